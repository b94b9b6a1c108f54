"""The first run and the daily run (issue #27): a run cut by lmms-eval's ``--limit`` is scored and
says it is partial, runs carry labels, two runs of one model are refused naming both files.

Fast tests on logs in lmms-eval 0.7.3's shape; the real ``--limit 8`` runs are in
``test_first_run_lmms.py`` (slow).
"""

import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest
from lmms_runs import sample_line

from medvigil.cli import main
from medvigil.errors import DataError
from medvigil.mcq.circular import collapse_circular
from medvigil.records.lmms_eval_logs import read_samples
from medvigil.runs.coverage import run_coverage
from medvigil.runs.lmms_run import short_model_name
from medvigil.suites import registry

RECORD = {
    "suite": "medvigil",
    "model": "lmms-eval-run",
    "condition": "default",
    "probe_id": "MVB-0001-original",
    "case_id": "MVB-0001",
    "probe_kind": "original",
    "risk_tier": "L1",
    "source_dataset": "VQA-RAD",
    "modality": "CT",
    "text_only_answerable": False,
    "correct_letter": "A",
    "predicted_letter": "A",
    "parse_status": "ok",
    "raw_response": "A",
    "retries": 0,
    "extra": {"condition_source": "lmms-eval"},
}
CASES = ("MVB-0001", "MVB-0002", "MVB-0003")


KINDS = ("original", "tcf", "negation")


def _records(condition: str = "default", n: int = 8) -> list[dict]:
    out = []
    for case in CASES:
        for kind in KINDS:
            out.append(
                dict(
                    RECORD,
                    condition=condition,
                    probe_id=f"{case}-{kind}",
                    case_id=case,
                    probe_kind=kind,
                )
            )
    return out[:n]


def _run(
    folder: Path,
    stamp: str,
    records: list[dict],
    *,
    task: str = "medvigil_mcq",
    limit: float | None = 8,
    of: int = 318,
    model_args: str = "pretrained=Org/Tiny-VL-2B,device=cpu",
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    results = {
        "config": {"model": "tiny_vl", "model_args": model_args, "limit": limit},
        "n-samples": {task: {"original": of, "effective": len(records)}},
    }
    (folder / f"{stamp}_results.json").write_text(json.dumps(results))
    path = folder / f"{stamp}_samples_{task}.jsonl"
    path.write_text("".join(sample_line(r, doc_id=i) for i, r in enumerate(records)))
    return path


def test_short_model_name():
    assert (
        short_model_name("qwen2_5_vl", "pretrained=Qwen/Qwen2.5-VL-7B-Instruct,max_pixels=100")
        == "Qwen2.5-VL-7B-Instruct"
    )
    assert (
        short_model_name("openai_compatible", "model_version=gpt-4o-2024-08-06")
        == "gpt-4o-2024-08-06"
    )
    assert (
        short_model_name("llava_hf", "device=cpu,pretrained=/models/llava-1.5-7b-hf/")
        == "llava-1.5-7b-hf"
    )
    assert short_model_name("constant", "letter=A") == "constant(letter=A)"
    assert short_model_name("blind", "") == "blind"


def test_limited_run_says_partial(tmp_path):
    path = _run(tmp_path / "run", "20260101_000000", _records())
    coverage = run_coverage([tmp_path / "run"], prefix="medvigil_")
    assert coverage["statement"] == (
        "partial run (lmms-eval --limit 8): medvigil_mcq 8 of 318 probes (3 cases); units the "
        "limit cut (a circular group, a case's arms, a pair) are left out"
    )
    entry = dict(coverage["tasks"]["medvigil_mcq"])
    assert "holds no build" in entry.pop(
        "cases_of_unknown"
    )  # no build at hand: the total of cases is not given
    assert entry == {"file": str(path), "limit": 8, "probes": 8, "of": 318, "cases": 3}
    result = registry.score("medvigil", [str(path)], n_resamples=0)
    assert result["partial"]["statement"] == coverage["statement"]
    assert list(result["models"]) == ["Tiny-VL-2B"]  # the short default label
    assert (
        run_coverage([_run(tmp_path / "full", "20260101_000000", _records(), limit=None)]) is None
    )


def test_score_command_prints_partial(tmp_path, capsys):
    path = _run(tmp_path / "run", "20260101_000000", _records())
    out = tmp_path / "out.json"
    assert (
        main(["score", "--suite", "medvigil", "--n-resamples", "0", "--json", str(out), str(path)])
        == 0
    )
    printed = capsys.readouterr()
    assert printed.out.startswith(
        "partial run (lmms-eval --limit 8): medvigil_mcq 8 of 318 probes (3 cases)"
    )
    assert "note: partial run" in printed.err
    assert json.loads(out.read_text())["partial"]["tasks"]["medvigil_mcq"]["cases"] == 3


def test_circular_group_cut_by_limit(tmp_path):
    rotations = [
        dict(
            RECORD,
            condition="circular",
            probe_id=f"{case}-original",
            case_id=case,
            extra={
                "condition_source": "lmms-eval",
                "rotation": r,
                "permutation": "ABCDE",
                "displayed_letter": "A",
                "displayed_correct": "A",
            },
        )
        for case in CASES[:2]
        for r in range(5)
    ][:8]  # one whole group, three rotations of the next
    cut = Counter()
    kept = collapse_circular(rotations, incomplete=cut)
    assert [r["probe_id"] for r in kept] == ["MVB-0001-original"] and cut == {"lmms-eval-run": 3}
    with pytest.raises(DataError, match="rotations \\[0, 1, 2\\], expected 0..4"):
        collapse_circular(rotations)  # outside a limited run a missing rotation is an error
    limited = _run(
        tmp_path / "limited", "20260101_000000", rotations, task="medvigil_mcq_circular", of=1590
    )
    assert [r["probe_id"] for r in read_samples([limited])] == ["MVB-0001-original"]
    full = _run(
        tmp_path / "full", "20260101_000000", rotations, task="medvigil_mcq_circular", limit=None
    )
    with pytest.raises(DataError, match="rotations"):
        read_samples([full])


def test_two_runs_of_one_model_refused_naming_both(tmp_path, capsys):
    first = _run(tmp_path / "runs", "20260101_000000", _records())
    second = _run(
        tmp_path / "runs",
        "20260102_000000",
        _records(),
        model_args="pretrained=Org/Tiny-VL-2B,chat=1",
    )
    with pytest.raises(DataError) as err:
        registry.score("medvigil", [str(first), str(second)], n_resamples=0)
    (problem,) = err.value.problems
    assert (
        problem.file == str(second)
        and str(first) in problem.message
        and "--label" in problem.message
    )
    for suite, task in (("medqdeg", "medqdeg_L1"),):  # the stress suites too (run folders)
        records = [dict(r, suite=suite, condition="L1") for r in _records()]
        _run(tmp_path / suite, "20260101_000000", records, task=task)
        _run(tmp_path / suite, "20260102_000000", records, task=task)
        with pytest.raises(
            DataError, match="a second run of model 'Tiny-VL-2B' on task medqdeg_L1"
        ):
            registry.score(suite, [str(tmp_path / suite)])
    # named apart: scored side by side
    assert (
        main(
            [
                "score",
                "--suite",
                "medvigil",
                "--n-resamples",
                "0",
                "--json",
                "-",
                str(first),
                str(second),
                "--label",
                f"{second}=tiny-chat",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert sorted(result["models"]) == ["Tiny-VL-2B", "tiny-chat"]


def test_label_checked():
    from medvigil.runs.labels import labelled

    for bad in ("", "  ", "/no/such/folder=name", "runs/x.jsonl=name"):
        with pytest.raises(ValueError, match="--label"):
            with labelled([bad]):
                pass
    with labelled(["qwen(pretrained=Org/M,device=cpu)"]) as mapping:  # a NAME with "=" in it
        assert mapping == {"": "qwen(pretrained=Org/M,device=cpu)"}


def test_generation_settings_recorded_and_checked(tmp_path):
    from medvigil.runs.generation import generation_report

    records = _records()
    records[0] = dict(
        records[0],
        predicted_letter=None,
        parse_status="parse_failure",
        raw_response="<think>The skull is visible, so A or",
    )
    path = _run(tmp_path / "run", "20260101_000000", records, limit=None)
    results = json.loads((tmp_path / "run" / "20260101_000000_results.json").read_text())
    results["configs"] = {
        "medvigil_mcq": {
            "generation_kwargs": {
                "max_new_tokens": 2048,
                "temperature": 0.0,
                "top_p": 1.0,
                "num_beams": 1,
                "do_sample": False,
                "until": ["\n\n"],
            }
        }
    }
    (tmp_path / "run" / "20260101_000000_results.json").write_text(json.dumps(results))
    report = generation_report([path], prefix="medvigil_")
    entry = report["tasks"]["medvigil_mcq"]
    assert entry["protocol"]["max_new_tokens"] == 8 and entry["used"]["max_new_tokens"] == 2048
    assert entry["differs"] == {
        "max_new_tokens": {"used": 2048, "protocol": 8}
    }  # 0 and 0.0 are the same temperature
    assert entry["cut_while_thinking"] == 1
    assert [w.split(":")[0] for w in report["warnings"]] == ["medvigil_mcq", "medvigil_mcq"]
    assert (
        "max_new_tokens 2048 (protocol 8)" in report["warnings"][0]
        and "reasoning block" in report["warnings"][1]
    )
    result = registry.score("medvigil", [str(path)], n_resamples=0)
    assert result["generation"] == report


def test_partial_statement_gives_total_cases_when_the_build_is_known(tmp_path, monkeypatch):
    """The total of cases comes from the task's docs in the build the run used (--release when it is
    a build, else MEDVIGIL_DATA); a build with another doc total, docs without case ids or no build
    at all keep the cases-asked wording, and never say "of ? cases"."""
    from medvigil.runs import coverage as coverage_module

    path = _run(tmp_path / "run", "20260101_000000", _records())
    seen = []

    def hooks(docs):
        def process_docs(_pointer):
            seen.append(os.environ.get("MEDVIGIL_DATA"))
            return docs

        return lambda task: (process_docs, None, {})

    full = [{"case_id": f"c{i % 40}", "probe_id": f"p{i}"} for i in range(318)]
    build = tmp_path / "build"
    build.mkdir()
    (build / "README.md").write_text("card")
    monkeypatch.setenv("MEDVIGIL_DATA", str(tmp_path / "other-build"))
    monkeypatch.setattr(coverage_module, "task_hooks", hooks(full))
    coverage = run_coverage([path], prefix="medvigil_", release=str(build))  # --release preferred
    assert seen == [str(build.resolve())] and os.environ["MEDVIGIL_DATA"] == str(
        tmp_path / "other-build"
    )
    assert "medvigil_mcq 8 of 318 probes, 3 of 40 cases;" in coverage["statement"]
    entry = coverage["tasks"]["medvigil_mcq"]
    assert entry["cases_of"] == 40 and entry["cases_of_source"] == f"--release {build}"
    coverage = run_coverage([path], prefix="medvigil_")  # no --release: MEDVIGIL_DATA
    assert (
        seen[-1] == str(tmp_path / "other-build")
        and coverage["tasks"]["medvigil_mcq"]["cases_of"] == 40
    )
    assert (
        coverage["tasks"]["medvigil_mcq"]["cases_of_source"]
        == f"MEDVIGIL_DATA={tmp_path / 'other-build'}"
    )
    assert registry.score("medvigil", [str(path)], n_resamples=0)["partial"] == coverage
    for docs, why in (
        (full[:300], "has 300 docs, the run had 318"),
        ([{"probe_id": "p"}] * 318, "carry no case_id"),
    ):
        monkeypatch.setattr(coverage_module, "task_hooks", hooks(docs))
        coverage = run_coverage([path], prefix="medvigil_")
        assert (
            "8 of 318 probes (3 cases);" in coverage["statement"]
            and "?" not in coverage["statement"]
        )
        assert why in coverage["tasks"]["medvigil_mcq"]["cases_of_unknown"]
    assert not registry.get("mediconfusion").case_totals  # not MedVIGIL-built: its docs are pairs
    coverage = run_coverage([path], prefix="medvigil_", case_totals=False)
    assert "is not a MedVIGIL-built task" in coverage["tasks"]["medvigil_mcq"]["cases_of_unknown"]


def test_cbd_reasoning_arms_repeated_by_their_quadrants_task(tmp_path):
    from medvigil.records.suite_logs import find_samples
    from medvigil.suites.cbd import entry

    run = tmp_path / "run"
    run.mkdir()
    for task in (
        "cbd_image",
        "cbd_quadrants_reasoning",
        "cbd_image_reasoning",
        "cbd_noimg_reasoning",
    ):
        (run / f"20260101_000000_samples_{task}.jsonl").write_text("")
    kept, skipped = entry.without_repeated_arms(find_samples([run], "cbd", entry.TASKS))
    assert sorted(p.name.split("_samples_")[1] for p in kept) == [
        "cbd_image.jsonl",
        "cbd_quadrants_reasoning.jsonl",
    ]
    assert {s["reason"] for s in skipped} == {
        "same run's cbd_quadrants_reasoning log holds these probes"
    }


def test_reasoning_variant_budget_is_its_protocol(tmp_path):
    from medvigil.runs.generation import generation_report
    from medvigil.task_pack import REASONING_MAX_NEW_TOKENS, task_config

    assert REASONING_MAX_NEW_TOKENS == 4096
    for task in (
        "medvigil_mcq",
        "medvigil_mcq_noimg",
        "medvigil_mcq_shuffled",
        "medvigil_mcq_circular",
        "readiness_img",
        "medqdeg_L1",
        "medqdeg_acc_L0",
        "mediconfusion_mc",
        "mediconfusion_mc_medvigil",
        "cbd_image",
        "cbd_noimg",
        "cbd_quadrants",
    ):
        _, base = task_config(task)
        _, variant = task_config(f"{task}_reasoning")
        assert variant["generation_kwargs"]["max_new_tokens"] == 4096, task
        assert base["generation_kwargs"]["max_new_tokens"] < 256, task
        # the same docs, prompts and scoring; only the budget differs (a per-model budget, as
        # MediConfusion's Claude 2048 tokens, gives way to the variant's)
        gen = ("task", "generation_kwargs", "model_specific_generation_kwargs")
        same = {k: v for k, v in base.items() if k not in gen}
        assert {k: v for k, v in variant.items() if k not in gen} == same, task
        assert "model_specific_generation_kwargs" not in variant, task
        assert {k: v for k, v in variant["generation_kwargs"].items() if k != "max_new_tokens"} == {
            k: v for k, v in base["generation_kwargs"].items() if k != "max_new_tokens"
        }, task
    assert (
        task_config("readiness_cot_reasoning") is None
        and task_config("medvigil_open_reasoning") is None
    )
    from medvigil.suites.medqdeg.records import TASKS as MEDQDEG_TASKS
    from medvigil.suites.readiness.records import TASKS as READINESS_TASKS

    # each suite's scoring finds the variants' logs as its base tasks'
    assert re.fullmatch(MEDQDEG_TASKS, "medqdeg_acc_L2_reasoning") and re.fullmatch(
        READINESS_TASKS, "readiness_img_reasoning"
    )

    records = _records()
    path = _run(
        tmp_path / "run", "20260101_000000", records, task="medvigil_mcq_reasoning", limit=None
    )
    results = json.loads((tmp_path / "run" / "20260101_000000_results.json").read_text())
    results["configs"] = {
        "medvigil_mcq_reasoning": {
            "generation_kwargs": {
                "max_new_tokens": 4096,
                "temperature": 0,
                "top_p": 1.0,
                "num_beams": 1,
                "do_sample": False,
            }
        }
    }
    (tmp_path / "run" / "20260101_000000_results.json").write_text(json.dumps(results))
    report = generation_report([path], prefix="medvigil_")
    entry = report["tasks"]["medvigil_mcq_reasoning"]
    assert (
        entry["used"]["max_new_tokens"] == entry["protocol"]["max_new_tokens"] == 4096
        and entry["differs"] == {}
    )
    assert entry["reasoning_variant_of"] == {
        "task": "medvigil_mcq",
        "protocol": {
            "max_new_tokens": 8,
            "temperature": 0,
            "top_p": 1.0,
            "num_beams": 1,
            "do_sample": False,
        },
    }
    assert report["warnings"] == []
    result = registry.score(
        "medvigil", [str(path)], n_resamples=0
    )  # read exactly like medvigil_mcq's log
    assert result["generation"] == report and "partial" not in result


def test_mediconfusion_pair_cut_by_limit():
    from medvigil.suites.mediconfusion.record_scoring import pair_slots, score_records

    records = [
        {
            "suite": "mediconfusion",
            "model": "m",
            "condition": "mc",
            "case_id": pair,
            "probe_id": f"{pair}:{im}",
            "correct_letter": "A",
            "predicted_letter": "A",
            "extra": {"categories": ["Cerebral"]},
        }
        for pair in ("p1", "p2")
        for im in ("im1", "im2")
    ][:3]  # the limit cut pair p2 in half
    with pytest.raises(ValueError, match="1 pair\\(s\\) lack one image record, e.g. 'p2'"):
        score_records(records)
    by_pair, problems = pair_slots(records, incomplete="drop")
    assert list(by_pair) == ["p1"] and problems == []
    assert score_records(records, incomplete="drop").n_pairs == 1


def test_predict_only_logs_are_recognised(tmp_path):
    from medvigil.runs.lmms_run import is_predict_only
    from medvigil.runs.predict_only import _results
    from medvigil.task_pack import task_config

    normal = _run(tmp_path / "normal", "20260101_000000", _records())
    bare = tmp_path / "bare" / "20260101_000000_samples_medvigil_mcq.jsonl"
    bare.parent.mkdir()
    bare.write_text(
        json.dumps({"doc_id": 0, "target": "A", "filtered_resps": "A", "bypass": [["A"], ["A"]]})
        + "\n"
    )
    assert not is_predict_only(normal) and is_predict_only(bare)
    # what lmms-eval hands process_results: stripped text, one per repeat; log-likelihood pairs as
    # they are
    assert _results(" B\n", "generate_until") == ["B"] and _results(
        ["A ", None], "generate_until"
    ) == ["A", ""]
    assert _results(["(-1.0, False)", "(0.0, True)"], "multiple_choice") == [
        "(-1.0, False)",
        "(0.0, True)",
    ]
    path, config = task_config("medvigil_mcq")
    assert (
        path.name == "medvigil_mcq.yaml"
        and config["process_results"] == "utils.medvigil_process_results"
    )
    assert (
        config["generation_kwargs"]["max_new_tokens"] == 8 and task_config("no_such_task") is None
    )
