"""Fidelity: the official MediConfusion result files reproduce their own score files exactly.

Fixtures: ``shared/fixtures/mediconfusion/`` beside the repository (``MEDVIGIL_SHARED``
overrides the ``shared`` folder). Provenance and the known inconsistencies of the authors'
files are in that folder's README.

* Five complete runs (176 pairs): our totals equal the run's ``*_scores.json`` in every
  block and every category, and every pair's ``score`` block.
* Two partial runs (``claude_mc`` 129 pairs, ``gemini_mc`` 81 pairs) were saved before their
  runs finished; their score files are of other, complete runs. They must reproduce their
  own per-pair blocks (each pair and the sum), and report the missing pairs.
"""

import json
import os
from pathlib import Path

import pytest

from medvigil.cli import main
from medvigil.suites.mediconfusion.authors_results import read_results, read_score_file
from medvigil.suites.mediconfusion.categories import CATEGORIES
from medvigil.suites.mediconfusion.release import read_release
from medvigil.suites.mediconfusion.scoring import score_pairs


def _shared() -> Path:
    override = os.environ.get("MEDVIGIL_SHARED")
    return Path(override) if override else Path(__file__).resolve().parents[2] / "shared"


FIXTURES = _shared() / "fixtures" / "mediconfusion"
pytestmark = pytest.mark.skipif(
    not (FIXTURES / "dataset.json").is_file(),
    reason=f"MediConfusion fixtures not found at {FIXTURES} "
    f"(set MEDVIGIL_SHARED to the shared/ folder)",
)

# result file, score file, expected (set, individual, confused, invalid or None when the file has no
# block)
COMPLETE = {
    "gpt_mc": ("Results__gpt_mc.json", "Results__gpt_mc_scores.json", (34, 198, 130, None)),
    "claude/claude_mc": (
        "Results__claude__claude_mc.json",
        "Results__claude__claude_mc_scores.json",
        (15, 180, 149, 2),
    ),
    "instructblip_mc": (
        "Results__instructblip_mc.json",
        "Results__instructblip_mc_scores.json",
        (6, 177, 165, None),
    ),
    "med_flamingo_mc": (
        "Results__med_flamingo_mc.json",
        "Results__med_flamingo_mc_scores.json",
        (3, 178, 172, None),
    ),
    "llava/llava_mc": (
        "Results__llava__llava_mc.json",
        "Results__llava__llava_mc_score.json",
        (16, 183, 151, 0),
    ),
}
# result file, pairs, first missing pair, sums of the per-pair blocks (set, individual, confused,
# invalid)
PARTIAL = {
    "claude_mc": ("Results__claude_mc.json", 129, "10130", (12, 132, 107, 2)),
    "gemini_mc": ("Results__gemini_mc.json", 81, "10082", (16, 81, 46, None)),
}


@pytest.fixture(scope="module")
def release():
    return read_release(FIXTURES / "dataset.json")


def _totals(blocks):
    return tuple(
        blocks[b]["total"] if b in blocks else None
        for b in ("set_score", "individual_score", "confused", "invalid")
    )


def test_release(release):
    assert len(release.pairs) == 176
    images = score_pairs(
        ["A"] * 176,
        ["A"] * 176,
        [p.correct("im1") for p in release.pairs.values()],
        [p.correct("im2") for p in release.pairs.values()],
        [list(p.categories("im1")) for p in release.pairs.values()],
        [list(p.categories("im2")) for p in release.pairs.values()],
    ).category_images
    # Table 3 denominators: 79 cerebral, 73 vascular, 67 head & neck, 51 spinal, 42 musculoskeletal,
    # 52 cardiac, 43 gastrointestinal, 20 pulmonary, 14 nuclear medicine images
    assert [images[c] for c in CATEGORIES] == [79, 73, 67, 51, 42, 52, 43, 20, 14]


@pytest.mark.parametrize("run_name", list(COMPLETE))
def test_complete_run_reproduces_its_score_file(release, run_name):
    result_file, score_file, expected = COMPLETE[run_name]
    run = read_results(FIXTURES / result_file, release)
    assert run.n_pairs == 176 and run.missing_pairs == ()
    score = run.score()
    official = read_score_file(FIXTURES / score_file)
    ours = score.blocks()
    for block, counts in official.items():
        assert ours[block] == counts, (
            f"{run_name}: block {block} differs"
        )  # every category and the total
    assert _totals(official) == expected
    # blocks the score file lacks (invalid in gpt, instructblip, med_flamingo) still equal the
    # per-pair sums
    assert {b: ours[b] for b in run.official_totals()} == run.official_totals()


@pytest.mark.parametrize("run_name", list(COMPLETE) + list(PARTIAL))
def test_every_pair_block_is_reproduced(release, run_name):
    result_file = (COMPLETE.get(run_name) or PARTIAL[run_name])[0]
    run = read_results(FIXTURES / result_file, release)
    score = run.score()
    assert set(run.official_pair_scores) == set(run.pair_ids)
    mismatched = [
        pid
        for pid in run.pair_ids
        if score.pair_block(pid, list(run.official_pair_scores[pid]))
        != run.official_pair_scores[pid]
    ]
    assert mismatched == []


@pytest.mark.parametrize("run_name", list(PARTIAL))
def test_partial_run_reproduces_its_own_pair_blocks(release, run_name):
    result_file, n_pairs, first_missing, sums = PARTIAL[run_name]
    run = read_results(FIXTURES / result_file, release)
    assert run.n_pairs == n_pairs
    assert len(run.missing_pairs) == 176 - n_pairs and run.missing_pairs[0] == first_missing
    ours = run.score().blocks()
    official = run.official_totals()
    for block, counts in official.items():
        assert ours[block] == counts
    assert _totals(official) == tuple(
        s if b in official else None
        for s, b in zip(sums, ("set_score", "individual_score", "confused", "invalid"))
    )
    assert _totals(ours)[:3] == sums[:3]


@pytest.mark.parametrize("run_name", list(PARTIAL))
def test_partial_run_is_not_its_score_files_run(release, run_name):
    """The partial files' score files count 176 pairs: they belong to other runs (README)."""
    result_file = PARTIAL[run_name][0]
    score_file = result_file.replace(".json", "_scores.json")
    official = read_score_file(FIXTURES / score_file)
    ours = read_results(FIXTURES / result_file, release).score().blocks()
    assert ours["set_score"]["total"] < official["set_score"]["total"]
    assert ours["confused"]["total"] < official["confused"]["total"]


def test_votes_not_full_answer_text_reproduce_the_totals(release):
    """InstructBLIP never answers a bare letter ('B") Showing ...'), yet the votes give the
    totals."""
    run = read_results(FIXTURES / "Results__instructblip_mc.json", release)
    assert all(r["raw_response"] not in ("A", "B") for r in run.records)
    assert run.score().totals["individual_score"] == 177


def test_records_are_schema_valid_probe_records(release):
    run = read_results(FIXTURES / "Results__claude__claude_mc.json", release, validate=True)
    invalid = [r for r in run.records if r["predicted_letter"] is None]
    assert len(invalid) == 2 and all(r["parse_status"] == "parse_failure" for r in invalid)
    r = run.records[0]
    assert (r["suite"], r["case_id"], r["probe_id"], r["condition"], r["model"]) == (
        "mediconfusion",
        "10001",
        "10001:im1",
        "mc",
        "claude",
    )
    assert r["extra"]["votes"] == {"A": 0, "B": 10} and r["extra"]["categories"] == [
        "Cerebral",
        "Vascular",
    ]


def test_cli_reproduces_official_totals(capsys):
    files = [str(FIXTURES / COMPLETE[name][0]) for name in COMPLETE] + [
        str(FIXTURES / PARTIAL[name][0]) for name in PARTIAL
    ]
    assert (
        main(
            [
                "score",
                "--suite",
                "mediconfusion",
                "--release",
                str(FIXTURES / "dataset.json"),
                *files,
                "--json",
                "-",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    got = {
        (Path(r["file"]).name): (
            r["set_correct"],
            r["individual_correct"],
            r["confused"],
            r["n_pairs"],
            r["n_missing_pairs"],
        )
        for r in out["runs"]
    }
    assert got["Results__gpt_mc.json"] == (34, 198, 130, 176, 0)
    assert got["Results__llava__llava_mc.json"] == (16, 183, 151, 176, 0)
    assert got["Results__claude_mc.json"] == (12, 132, 107, 129, 47)
    assert got["Results__gemini_mc.json"] == (16, 81, 46, 81, 95)
    gpt = next(r for r in out["runs"] if r["file"].endswith("Results__gpt_mc.json"))
    # Table 3 layout: GPT vascular set 25/73 and individual 49/73 in this run
    assert (
        gpt["per_category"]["Vascular"]["set_correct"] == 25
        and gpt["per_category"]["Vascular"]["images"] == 73
    )
    assert (
        round(100 * gpt["set_accuracy"], 2) == 19.32
        and round(100 * gpt["individual_accuracy"], 2) == 56.25
    )
