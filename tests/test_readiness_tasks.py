"""Illusion of Readiness task pack (tasks/readiness): perturbations and real lmms-eval runs.

One module-scoped synthetic build (12 cases; the two CXR cases are withheld, leaving ten
items) and two lmms-eval subprocess runs of the ``readiness`` group, ``blind`` and
``grounded``, in parallel. The assertions follow from the constructions:

* ``blind`` never reads the image, so each image arm answers exactly as its text twin
  (f1 = 0) and a substituted image cannot change its answer (T5);
* ``grounded`` without an image *is* the blind prior, so every text-only arm matches blind
  answer for answer (same f2, f3); with an image it reads the pixels, so another case's
  image changes its answer to the distractor that image supports.
"""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from medvigil.mcq.option_order import to_published_letter
from medvigil.pipeline import offline_env
from medvigil.suites.readiness.docs import ARMS, arm_docs, base_setting
from medvigil.suites.readiness.fragility import fragilities, robustness_score
from medvigil.suites.readiness.perturbation import (
    UNKNOWN,
    balanced_positions,
    base_order,
    insert_unknown,
    option_pool,
    reorder,
    replace_distractors,
    substitution_donors,
)
from medvigil.suites.readiness.records import (
    SOURCES,
    arm_accuracy,
    readiness_from_records,
    readiness_from_samples,
)

SLOW_FIXTURES = {"runs"}  # fixtures that drive lmms-eval or build datasets: their tests are `slow`

ROOT = Path(__file__).resolve().parents[1]
CASES, SEED = 12, 0  # seed 0: one text-answerable item and two items with a T5 donor
MODELS = ("blind", "grounded")


def _task_utils():
    spec = importlib.util.spec_from_file_location(
        "readiness_utils", ROOT / "tasks" / "readiness" / "utils.py"
    )
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    return utils


def _row(
    pid="P1-original",
    case="C1",
    options=("Left side", "Right side", "Both sides", "Midline", "Insufficient"),
    letter="A",
):
    return {
        "probe_id": pid,
        "case_id": case,
        "probe_kind": "original",
        "options": list(options),
        "correct_letter": letter,
        "text_only_answerable": False,
        "laterality_dependent": False,
    }


# ---------------------------------------------------------------- fast checks


def test_generated_yaml_in_sync():
    spec = importlib.util.spec_from_file_location(
        "readiness_gen", ROOT / "tasks" / "readiness" / "_generate_configs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.files().items():
        path = ROOT / "tasks" / "readiness" / name
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python tasks/readiness/_generate_configs.py"
        )


def test_replacement_is_seeded_and_never_the_gold():
    rows = [
        _row(),
        _row("P2-original", "C2", ("CT", "MRI", "PET", "Ultrasound", "Refuse")),
        _row(
            "P3-original",
            "C3",
            ("Right-sided pneumothorax", "Chest", "Knee", "Left side", "Decline"),
        ),
        _row("P4-original", "C4", ("Upper zone", "Lower zone", "Middle zone", "Yes", "No")),
    ]
    pool = option_pool(rows)
    first = replace_distractors(rows[0], pool, gold_at=2)
    assert first == replace_distractors(rows[0], pool, gold_at=2)  # deterministic
    again = replace_distractors(rows[0], pool, seed=1, gold_at=2)
    assert again["permutation"] != first["permutation"] or again["replaced"] != first["replaced"]
    gold = "Left side"
    assert first["options"][ord(first["correct_letter"]) - 65] == gold
    assert first["permutation"][ord(first["correct_letter"]) - 65] == "A"  # the stored gold letter
    assert len(set(first["replaced"])) == 4 and not set(first["replaced"]) & set(rows[0]["options"])
    # nothing sharing a word with the gold ("Right-sided pneumothorax" has no 'left'/'side' word;
    # "Left side" is taken)
    assert all(not ({"left", "side"} & set(t.lower().split())) for t in first["replaced"])


def test_too_small_pool_names_the_field():
    rows = [
        _row(),
        _row(
            "P2-original",
            "C2",
            ("Left side", "Right side", "Both sides", "Midline", "Insufficient"),
        ),
    ]
    with pytest.raises(ValueError, match="'options'"):
        replace_distractors(rows[0], option_pool(rows), base_kind="source")


def test_unknown_and_reorder():
    row = _row()
    source = base_order(row, base="source")
    assert (
        source["options"] == row["options"] and source["correct_letter"] == "A"
    )  # the source's order, a named variant
    base = base_order(row, gold_at=3)  # the default: balanced, the gold where it is put
    assert base == base_order({**row, "probe_id": "P1-lr_flip"}, gold_at=3)  # one order per case
    assert sorted(base["options"]) == sorted(row["options"]) and base["correct_letter"] == "D"
    assert base["options"][3] == "Left side" and base["permutation"][3] == "A"
    with pytest.raises(ValueError, match="base must be one of"):
        base_order(row, base="sorted")
    with pytest.raises(ValueError, match="needs gold_at"):
        base_order(row)
    unk = insert_unknown(row, gold_at=3)
    assert unk["correct_letter"] == base["correct_letter"] and unk["options"].count(UNKNOWN) == 1
    assert [o for o in unk["options"] if o != UNKNOWN] == [
        o for o in base["options"] if o not in unk["replaced"]
    ]  # in place
    assert unk == insert_unknown(row, gold_at=3)
    moved = reorder(row, gold_at=3)
    assert (
        sorted(moved["options"]) == sorted(row["options"])
        and moved["base_permutation"] == base["permutation"]
    )
    assert moved["options"][ord(moved["correct_letter"]) - 65] == "Left side"
    assert to_published_letter(moved["permutation"], moved["correct_letter"]) == "A"


def test_balanced_base_spreads_the_gold_letters():
    """MedVIGIL stores every gold at A: the default base arms show it at A..E in turn (no letter is
    gold in more than 40 % of the items, visually-required ones included); the source order keeps
    A."""
    rows = [
        {**_row(f"P{i}-original", f"C{i}"), "text_only_answerable": i % 4 == 0} for i in range(23)
    ]
    for arm in ("readiness_img", "readiness_text", "readiness_text_unk"):
        docs = arm_docs(arm, rows)
        golds = [d["correct_letter"] for _, d in docs]
        assert max(golds.count(x) for x in "ABCDE") <= math.ceil(len(golds) / 5), arm
        for _, d in docs:  # the gold text is shown under the gold letter
            assert d["options"][ord(d["correct_letter"]) - 65] == "Left side"
    visreq = [d["correct_letter"] for i, d in arm_docs("readiness_img", rows) if i % 4]
    assert max(visreq.count(x) for x in "ABCDE") <= math.ceil(len(visreq) / 5)
    # the same item gets the same base view in every arm that starts from it
    img = dict(arm_docs("readiness_img", rows))
    text = dict(arm_docs("readiness_text", rows))
    unk = dict(arm_docs("readiness_text_unk", rows))
    for i, d in unk.items():
        assert d["readiness"]["permutation"] == img[i]["readiness"]["permutation"]
        assert text[i]["readiness"]["permutation"] == img[i]["readiness"]["permutation"]
    assert {d["correct_letter"] for _, d in arm_docs("readiness_img", rows, base="source")} == {"A"}
    assert balanced_positions(rows) == balanced_positions(list(reversed(rows)))  # row order free
    assert {d["readiness"]["base"] for _, d in arm_docs("readiness_text_unk", rows[:8])} == {
        "balanced"
    }
    # the task pack's switch (READINESS_BASE), checked before any doc is made
    assert base_setting({}) == "balanced" and base_setting({"READINESS_BASE": "source"}) == "source"
    with pytest.raises(ValueError, match="READINESS_BASE must be one of balanced, source"):
        base_setting({"READINESS_BASE": "seeded_shuffle"})


def test_4r_replaces_every_distractor_and_nests():
    rows = [
        {**_row(), "safe_letter": "E", "source_dataset": "S"},
        *(
            {
                **_row(
                    f"P{i}-original",
                    f"C{i}",
                    (f"opt{i} a", f"opt{i} b", f"opt{i} c", f"opt{i} d", "Insufficient"),
                ),
                "source_dataset": "S",
            }
            for i in range(2, 5)
        ),
    ]
    pool = option_pool(rows)
    views = {n: replace_distractors(rows[0], pool, n, gold_at=1) for n in (1, 2, 3, 4)}
    for n, v in views.items():
        assert "Left side" in v["options"] and v["n_replaced"] == n == len(
            v["replaced"]
        )  # the gold is never replaced
    assert (
        "Insufficient" not in views[4]["options"]
    )  # the paper's 4R: all four distractors, the safe option too
    assert (
        set(views[1]["replaced"])
        < set(views[2]["replaced"])
        < set(views[3]["replaced"])
        < set(views[4]["replaced"])
    )
    assert set(views[1]["replaced_texts"]) < set(views[2]["replaced_texts"])
    kept = {
        n: replace_distractors(rows[0], pool, n, keep_safe=True, gold_at=1) for n in (3, 4)
    }  # the stand-in variant: 4R = 3R
    for v in kept.values():
        assert v["n_replaced"] == 3 and v["options"][ord(v["safe_letter"]) - 65] == "Insufficient"


def test_replacements_come_from_the_same_source():
    def item(source, i):
        return {
            **_row(f"{source}{i}-original", f"{source}{i}", [f"{source}x{i}{c}" for c in "abcde"]),
            "source_dataset": source,
        }

    rows = [item(src, i) for src in ("one", "two") for i in range(4)]
    docs = arm_docs("readiness_text_4r", rows)
    assert len(docs) == len(rows)
    for index, doc in docs:
        source = rows[index]["source_dataset"]
        assert len(doc["readiness"]["replaced"]) == 4 and all(
            t.startswith(f"{source}x") for t in doc["readiness"]["replaced"]
        )


def test_generic_k_items():
    row = {
        "probe_id": "x",
        "case_id": "x",
        "probe_kind": "original",
        "options": ["yes", "no", "maybe"],
        "correct_letter": "B",
        "text_only_answerable": False,
    }
    base = base_order(row, gold_at=0)
    assert (
        len(base["permutation"]) == 3 and base["options"][ord(base["correct_letter"]) - 65] == "no"
    )
    unk = insert_unknown(row, base_kind="source")
    assert unk["options"].count(UNKNOWN) == 1 and "no" in unk["options"]
    with pytest.raises(ValueError, match="'correct_letter'"):
        base_order({**row, "correct_letter": "D"}, gold_at=0)


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"correct_letter": "F"}, "correct_letter"),
        ({"options": ["a"] * 5}, "options"),
        ({"text_only_answerable": None}, "text_only_answerable"),
    ],
)
def test_bad_rows_name_the_field(bad, field):
    with pytest.raises(ValueError, match=f"'{field}'"):
        arm_docs("readiness_text_unk", [{**_row(), **bad}])
    with pytest.raises(ValueError, match="unknown readiness arm"):
        arm_docs("readiness_t9", [_row()])


def test_substitution_shows_another_case_supporting_a_distractor():
    question = "On which side is the effusion?"
    item = {**_row(), "question": question, "image_file": "images/C1.png"}
    right = {
        **_row(
            "P2-original",
            "C2",
            ("Right side", "Left side", "Midline", "Both sides", "Insufficient"),
        ),
        "question": question,
        "image_file": "images/C2.png",
    }
    other_question = {
        **_row(
            "P3-original",
            "C3",
            ("Midline", "Left side", "Right side", "Both sides", "Insufficient"),
        ),
        "question": "Where is the mass?",
        "image_file": "images/C3.png",
    }
    mirror = {**item, "probe_id": "P1-lr_flip", "probe_kind": "lr_flip", "correct_letter": "B"}
    rows = [item, mirror, right, other_question]
    docs = dict(arm_docs("readiness_img_subst", rows))
    # C1 (gold "Left side") gets C2's image, whose gold "Right side" is a C1 distractor: B becomes
    # the gold; C2 gets C1's image ("Left side"); C3 has no donor with its question; the mirror is
    # never a T5 doc
    assert (
        set(docs) == {0, 2}
        and docs[0]["readiness"]["donor_row"] == 2
        and docs[2]["readiness"]["donor_row"] == 0
    )
    doc = docs[0]
    base = dict(arm_docs("readiness_img", rows))[0]
    assert (
        doc["condition"] == "visual_substitution" and doc["options"] == base["options"]
    )  # question and options as in the base arm
    assert doc["options"][ord(doc["correct_letter"]) - 65] == "Right side"
    assert doc["readiness"]["original_letter"] == base["correct_letter"] != doc["correct_letter"]
    source = dict(arm_docs("readiness_img_subst", rows, base="source"))[0]
    assert source["options"] == item["options"] and source["correct_letter"] == "B"
    assert doc["readiness"]["substituted_by"] == {
        "case_id": "C2",
        "probe_id": "P2-original",
        "image_file": "images/C2.png",
    }
    assert substitution_donors(rows) == ({0: 2, 2: 0}, 1)
    # any question: C3 (gold "Midline", a C1 and C2 distractor) may donate too
    assert set(substitution_donors(rows, donor_match="answer")[0]) == {0, 2, 3}
    # the image arm marks the items T5 asks, for T5's original accuracy
    marks = {i: d["readiness"]["t5_item"] for i, d in arm_docs("readiness_img", rows)}
    assert marks == {0: True, 2: True, 3: False}


def test_paper_prompts_verbatim():
    """Appendix E's two multiple-choice prompts, as rendered for a doc (snapshot)."""
    utils = _task_utils()
    doc = {
        "question": "What is the diagnosis?",
        "options": ["Carcinoid syndrome", "Dermatomyositis", "Endocarditis"],
        "condition": "default",
    }
    assert utils.readiness_doc_to_text(doc, {"pre_prompt": "", "post_prompt": ""}) == (
        "You are a helpful medical assistant that answers multiple choice questions about the "
        "provided image. The following is a multiple choice question (with answers).\nQuestion: "
        "What is the diagnosis?\nOptions:\nA. Carcinoid syndrome\nB. Dermatomyositis\nC. "
        "Endocarditis\nPlease only answer with the index and content of the option."
    )
    cot = utils.readiness_doc_to_text({**doc, "condition": "default:cot"})
    assert cot.endswith(
        "C. Endocarditis\nLet us think step by step, enclosing the thought process "
        "within <thinking> and </thinking>.\nProvide answer with the index and "
        "content of the option, and place it within <answer> and </answer>."
    )
    messages = utils.readiness_doc_to_messages(doc, {})
    assert [m["role"] for m in messages] == ["user"]  # no system message


# ---------------------------------------------------------------- real lmms-eval runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    pytest.importorskip("lmms_eval")
    from medvigil.suites.medvigil.export.export import build
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("readiness")
    generate_release(base / "release", cases=CASES, seed=SEED)
    build(base / "release", base / "build" / "medvigil")
    procs = {}
    for model in MODELS:
        env = offline_env(base / "build" / "medvigil")
        env["HF_DATASETS_CACHE"] = str(base / f"hf-cache-{model}")
        cmd = [
            sys.executable,
            "-m",
            "lmms_eval",
            "--model",
            model,
            "--tasks",
            "readiness_all",
            "--include_path",
            str(ROOT / "tasks"),
            "--output_path",
            str(base / "runs" / model),
            "--log_samples",
        ]
        with open(base / f"{model}.log", "w") as log:  # files, not pipes: the runs go in parallel
            procs[model] = subprocess.Popen(
                cmd, env=env, cwd=base, stdout=log, stderr=subprocess.STDOUT
            )
    for model, proc in procs.items():
        proc.wait(timeout=600)
        text = (base / f"{model}.log").read_text()
        # lmms-eval 0.7.3 logs an evaluation error and still exits 0
        assert proc.returncode == 0 and "Error during evaluation" not in text, (
            f"{model}: " + text[-4000:]
        )
    return {model: base / "runs" / model for model in MODELS}


def _table(out: Path) -> dict:
    (results,) = out.rglob("*_results.json")
    return {
        task: {k.split(",")[0]: v for k, v in metrics.items()}
        for task, metrics in json.loads(results.read_text())["results"].items()
    }


def test_substitution_docs_show_the_donor_image(runs, monkeypatch):
    """The T5 docs lmms-eval is given carry the donor case's image, not the item's own."""
    monkeypatch.setenv("MEDVIGIL_DATA", str(runs["blind"].parents[1] / "build" / "medvigil"))
    utils = _task_utils()
    from medvigil.mcq.adapter import load_mcq

    own = {
        r["probe_id"]: r["image"].tobytes()
        for r in load_mcq()
        if r["probe_kind"] == "original" and r["image"] is not None
    }
    docs = utils.load_readiness_img_subst(None)
    assert len(docs) == 2
    for doc in docs:
        donor = doc["readiness"]["substituted_by"]
        assert doc["image"].tobytes() == own[donor["probe_id"]] != own[doc["probe_id"]]


def _records(out: Path) -> list[dict]:
    from medvigil.records.lmms_eval_logs import (
        read_samples,
    )  # validates every record against the schema

    return read_samples(sorted(out.rglob("*_samples_readiness_*.jsonl")))


def _by_arm(records):
    return {
        arm: {r["probe_id"]: r for r in records if r["condition"] == spec.condition}
        for arm, spec in ARMS.items()
    }


def _eq(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


def test_records_validate_and_cover_every_arm(runs):
    for model, out in runs.items():
        records = _records(out)
        assert {r["model"] for r in records} == {model} and {r["suite"] for r in records} == {
            "readiness"
        }
        arms = _by_arm(records)
        assert len(arms["readiness_img"]) == len(arms["readiness_text"]) == 10
        assert sum(r["text_only_answerable"] for r in arms["readiness_img"].values()) >= 1
        visreq = {
            p for p, r in arms["readiness_text"].items() if r["text_only_answerable"] is False
        }
        for arm, spec in ARMS.items():
            if (
                spec.scope == "visreq" and spec.perturbation != "substitution"
            ):  # T5: the visreq items with a donor
                assert set(arms[arm]) == visreq, arm
        for arm in ("readiness_img", "readiness_text"):  # base arms: balanced gold letters
            golds = [r["correct_letter"] for r in arms[arm].values()]
            assert max(golds.count(x) for x in "ABCDE") <= 0.4 * len(golds), (arm, golds)
        for n in (1, 2, 3, 4):  # every option but the gold is a distractor: 4R replaces four
            for r in arms[f"readiness_text_{n}r"].values():
                assert r["extra"]["n_replaced"] == n == len(r["extra"]["replaced"])
        assert len(arms["readiness_img_subst"]) == 2
        for r in arms[
            "readiness_img_subst"
        ].values():  # another case's image, whose gold is one of this item's distractors
            donor = r["extra"]["substituted_by"]
            assert (
                donor["case_id"] != r["case_id"]
                and r["correct_letter"] != r["extra"]["original_letter"]
            )
            assert arms["readiness_img"][r["probe_id"]]["extra"]["t5_item"] is True
        for r in arms[
            "readiness_text_4r"
        ].values():  # the gold text is shown under the correct letter
            base = arms["readiness_text"][r["probe_id"]]
            gold = base["extra"]["options_shown"][ord(base["correct_letter"]) - 65]
            assert r["extra"]["options_shown"][ord(r["correct_letter"]) - 65] == gold
            assert gold not in r["extra"]["replaced"]


def test_table_accuracies_equal_the_records(runs):
    for out in runs.values():
        table, arms = _table(out), _by_arm(_records(out))
        for arm, recs in arms.items():
            rows = list(recs.values())
            assert table[arm]["acc"] == pytest.approx(arm_accuracy(rows))
            assert table[arm]["acc"] == pytest.approx(
                100 * sum(r["predicted_letter"] == r["correct_letter"] for r in rows) / len(rows)
            )
            for subset in ("acc_visreq", "acc_t5", *(f"acc_{s}" for s in SOURCES)):
                if subset in table[arm]:
                    assert _eq(table[arm][subset], arm_accuracy(rows, subset.removeprefix("acc_")))


def test_R_from_logs_equals_the_core_on_the_table(runs):
    for model, out in runs.items():
        t = _table(out)
        img, text = t["readiness_img"], t["readiness_text"]
        bench = [s for s in SOURCES if img[f"n_{s}"] > 0]
        f = fragilities(
            t1_img=[img[f"acc_{s}"] for s in bench],
            t1_text=[text[f"acc_{s}"] for s in bench],
            t1_n=[img[f"n_{s}"] for s in bench],
            t2_text=text["acc_visreq"],
            t3_text_orig=text["acc_visreq"],
            t3_text_reord=t["readiness_text_reord"]["acc"],
            t4_text_base=text["acc_visreq"],
            t4_text_4r=t["readiness_text_4r"]["acc"],
            t4_img_base=img["acc_visreq"],
            t4_img_4r=t["readiness_img_4r"]["acc"],
            t4_text_unk=t["readiness_text_unk"]["acc"],
            t5_orig=img["acc_t5"],
            t5_subst=t["readiness_img_subst"]["acc"],
        )
        (scored,) = readiness_from_samples([out]).values()
        assert [scored["fragility"][k] for k in ("T1", "T2", "T3", "T4", "T5")] == pytest.approx(
            list(f)
        )
        assert scored["R"] == pytest.approx(float(robustness_score(f))), model
        assert scored["missing_tests"] == [] and not scored["partial"]


def test_blind_ignores_the_image(runs):
    records = _records(runs["blind"])
    arms = _by_arm(records)
    for img, txt in (
        ("readiness_img", "readiness_text"),
        ("readiness_img_4r", "readiness_text_4r"),
        ("readiness_img_unk", "readiness_text_unk"),
        ("readiness_img_reord", "readiness_text_reord"),
        ("readiness_img_2r", "readiness_text_2r"),
    ):
        assert {p: r["predicted_letter"] for p, r in arms[img].items()} == {
            p: r["predicted_letter"] for p, r in arms[txt].items()
        }
    scored = readiness_from_records(records)["blind"]
    assert scored["fragility"]["T1"] == 0.0
    # the substituted image cannot change blind's answer: right on at most one of the two
    for r in arms["readiness_img_subst"].values():
        original = next(o for o in arms["readiness_img"].values() if o["case_id"] == r["case_id"])
        assert r["predicted_letter"] == original["predicted_letter"]
    t5 = scored["accuracies"]["T5"]
    assert t5["original"] + t5["substituted"] <= 100.0


def test_grounded_is_blind_without_the_image_and_follows_the_substituted_image(runs):
    blind, grounded = _by_arm(_records(runs["blind"])), _by_arm(_records(runs["grounded"]))
    for arm, spec in ARMS.items():
        if not spec.image:
            assert {p: r["predicted_letter"] for p, r in grounded[arm].items()} == {
                p: r["predicted_letter"] for p, r in blind[arm].items()
            }
    b = readiness_from_samples([runs["blind"]])["blind"]
    g = readiness_from_samples([runs["grounded"]])["grounded"]
    assert (
        g["fragility"]["T2"] == b["fragility"]["T2"]
        and g["fragility"]["T3"] == b["fragility"]["T3"]
    )
    # another case's image supports a distractor; grounded reads the pixels, so its answers move
    # with the image (blind's cannot: test_blind_ignores_the_image)
    originals = {r["case_id"]: r for r in grounded["readiness_img"].values()}
    assert all(
        r["predicted_letter"] != originals[r["case_id"]]["predicted_letter"]
        for r in grounded["readiness_img_subst"].values()
    )
    assert g["accuracies"]["T5"]["substituted"] == 100.0 > b["accuracies"]["T5"]["substituted"]


def test_duplicate_logs_are_refused(runs):
    records = _records(runs["blind"])
    with pytest.raises(ValueError, match="duplicate record"):
        readiness_from_records(records + records[:1])


def test_score_command_reads_run_folders(runs, tmp_path, capsys):
    from medvigil.cli import main

    out = tmp_path / "readiness.json"
    assert (
        main(["score", "--suite", "readiness", *map(str, runs.values()), "--json", str(out)]) == 0
    )
    table = capsys.readouterr().out
    result = json.loads(out.read_text())
    assert result["skipped_files"] == [] and len(result["files"]) == len(ARMS) * len(runs)
    for model, folder in runs.items():
        (expected,) = readiness_from_samples([folder]).values()
        assert result["models"][model]["R"] == pytest.approx(expected["R"])
        assert f"| {model} |" in table
    assert "R(m)" in table


def test_score_command_refuses_a_release_and_other_logs(runs, capsys):
    from medvigil.cli import main

    assert main(["score", "--suite", "readiness", "--release", "x", str(runs["blind"])]) == 2
    assert "does not take --release" in capsys.readouterr().err
    (results,) = runs["blind"].rglob("*_results.json")
    assert main(["score", "--suite", "readiness", str(results)]) == 2
    assert "not an lmms-eval samples file of a readiness task" in capsys.readouterr().err


def test_report_has_the_readiness_section(runs, tmp_path, capsys):
    from medvigil.cli import main

    scores, report = tmp_path / "readiness.json", tmp_path / "report"
    assert (
        main(["score", "--suite", "readiness", *map(str, runs.values()), "--json", str(scores)])
        == 0
    )
    assert main(["report", str(scores), "--out", str(report)]) == 0
    md = (report / "report.md").read_text()
    assert "## Illusion of Readiness" in md and "R(m)" in md
    assert "mirrored" not in md  # T5 is the paper's substitution, no longer a stand-in
    result = json.loads(scores.read_text())
    for model, folder in runs.items():  # Ext. Data Table 5 and T6 rows equal the records
        arms = _by_arm(_records(folder))
        row = next(line for line in md.splitlines() if line.startswith(f"| {model} | Text only |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[3:] == [
            f"{arm_accuracy(list(arms[f'readiness_text_{v}'].values())):.1f}"
            for v in ("unk", "1r", "2r", "3r", "4r")
        ]
        t6 = result["models"][model]["accuracies"]["T6"]
        cot = list(arms["readiness_cot"].values())
        assert t6["n"] == len(cot) and t6["cot"] == pytest.approx(arm_accuracy(cot))
        direct = [
            r for r in arms["readiness_img"].values() if r["case_id"] in {c["case_id"] for c in cot}
        ]
        assert t6["direct"] == pytest.approx(arm_accuracy(direct))
        assert f"| {model} | {len(cot)} |" in md
    assert (report / "figures" / "readiness_robustness.png").stat().st_size > 1000
    # one result per suite: the cross-model statistics need every model scored together
    again = tmp_path / "again.json"
    again.write_text(scores.read_text())
    capsys.readouterr()
    assert main(["report", str(scores), str(again), "--out", str(tmp_path / "r2")]) == 2
    assert "a second readiness result" in capsys.readouterr().err and not (tmp_path / "r2").exists()


def test_score_warns_on_degenerate_gold_letters(runs, tmp_path, capsys):
    """`medvigil score --suite readiness`: no warning on the balanced run; a copy of its logs with
    every gold at A (the source order on MedVIGIL data) is flagged for the base arms, on stderr and
    in the JSON."""
    from medvigil import cli

    out = runs["blind"]
    assert (
        cli.main(["score", "--suite", "readiness", str(out), "--json", str(tmp_path / "a.json")])
        == 0
    )
    assert "is the gold of" not in capsys.readouterr().err
    assert json.loads((tmp_path / "a.json").read_text())["warnings"] == []
    copy = tmp_path / "copy"
    for path in out.rglob("*.json*"):
        target = copy / path.relative_to(out)
        target.parent.mkdir(parents=True, exist_ok=True)
        if (
            "_samples_readiness_img.jsonl" in path.name
            or "_samples_readiness_text.jsonl" in path.name
        ):
            lines = []
            for line in path.read_text().splitlines():
                row = json.loads(line)
                for value in row.values():
                    if isinstance(value, dict) and "correct_letter" in value:
                        value["correct_letter"] = "A"
                lines.append(json.dumps(row))
            target.write_text("\n".join(lines) + "\n")
        else:
            target.write_bytes(path.read_bytes())
    assert (
        cli.main(["score", "--suite", "readiness", str(copy), "--json", str(tmp_path / "b.json")])
        == 0
    )
    err = capsys.readouterr().err
    assert "condition 'default': letter A is the gold of 10 of 10 docs" in err
    assert "condition 'noimg': letter A is the gold of 10 of 10 docs" in err
    assert len(json.loads((tmp_path / "b.json").read_text())["warnings"]) == 2
