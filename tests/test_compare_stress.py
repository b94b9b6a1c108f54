"""``medvigil compare`` on the stress suites where a paired design exists (issue #32).

The logs are written in lmms-eval's layout from each task pack's own docs and record hook, for
several models answering the same cases; the point values are checked against ``medvigil score``
on the same logs, and the paired tests against an identical copy and a clearly different model.
"""

import json
import random
from pathlib import Path

import pytest

from medvigil.cli import main
from medvigil.records.schema_validation import problems_for
from medvigil.suites import registry
from medvigil.suites.cbd.docs import plan_docs
from medvigil.suites.cbd.records import make_record

OPTIONS = ["Yes", "No", "Cannot tell", "Both", "Insufficient visual evidence"]
STAMP = "20260101_000000"


def write_run(
    folder: Path, files: dict[str, list], keys: tuple[str, ...], *, model_args: str
) -> list[Path]:
    """One lmms-eval run of model ``toy``: ``<stamp>_results.json`` naming it, and per task a
    ``<stamp>_samples_<task>.jsonl`` with each record under every metric key of ``keys``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{STAMP}_results.json").write_text(
        json.dumps({"config": {"model": "toy", "model_args": model_args}})
    )
    paths = []
    for task, records in files.items():
        path = folder / f"{STAMP}_samples_{task}.jsonl"
        path.write_text(
            "".join(
                json.dumps({"doc_id": i, **dict.fromkeys(keys, r)}) + "\n"
                for i, r in enumerate(records)
            )
        )
        paths.append(path)
    return paths


# ---------------------------------------------------------------------------------- CbD
def _cbd_rows(n_cases: int) -> list[dict]:
    rows = []
    for c in range(n_cases):
        case = f"c{c:03d}"
        for kind, text in (
            ("original", f"Is there a finding {c}?"),
            ("tcf", f"Does the image show finding {c}?"),
        ):
            rows.append(
                {
                    "probe_id": f"{case}-{kind}",
                    "probe_kind": kind,
                    "case_id": case,
                    "question": text,
                    "options": OPTIONS,
                    "correct_letter": "A",
                    "finding": "",
                    "safe_letter": "E",
                    "risk_tier": "L1",
                    "source_dataset": "toy",
                    "modality": "CT",
                    "text_only_answerable": False,
                }
            )
    return rows


def _cbd_run(
    folder: Path, rows: list[dict], model_args: str, p_stable: float, seed: int
) -> list[Path]:
    """One model's ``cbd_quadrants`` log: per case, with probability ``p_stable`` the paraphrase
    keeps the image answer and the text-only answer differs (Ideal), else a random mix."""
    rng = random.Random(seed)
    by_case: dict[str, bool] = {}
    records = []
    for i, overrides in plan_docs(rows, ["image", "noimg"]):
        doc = {**rows[i], **overrides}
        stable = by_case.setdefault(doc["case_id"], rng.random() < p_stable)
        if doc["condition"] == "noimg":
            answer = "B" if stable else rng.choice("AB")
        else:
            answer = "A" if stable or doc["paraphrase_index"] == 0 else rng.choice("AB")
        records.append(make_record(doc, answer))
    return write_run(
        folder, {"cbd_quadrants": records}, ("frac_ideal", "flip_rate"), model_args=model_args
    )


@pytest.fixture(scope="module")
def cbd_logs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cbd")
    rows = _cbd_rows(150)
    return {
        "weak": _cbd_run(root / "weak", rows, "seed=1", 0.3, 1),
        "strong": _cbd_run(root / "strong", rows, "seed=2", 0.8, 2),
        "twin": _cbd_run(root / "twin", rows, "seed=3", 0.3, 1),  # the weak model's answers again
    }


def _compare(tmp_path: Path, suite: str, files, *extra) -> dict:
    out = tmp_path / f"{suite}-{len(list(tmp_path.glob('*.json')))}.json"
    assert main(["compare", "--suite", suite, *map(str, files), "--json", str(out), *extra]) == 0
    result = json.loads(out.read_text())
    assert not problems_for(
        "compare_result", result, str(out)
    )  # schemas/compare_result.schema.json
    return result


def _row(result, a, b, metric):
    (row,) = [r for r in result["pairs"] if (r["a"], r["b"], r["metric"]) == (a, b, metric)]
    return row


def test_cbd_quadrant_fractions_paired(cbd_logs, tmp_path):
    files = [p for paths in cbd_logs.values() for p in paths]
    result = _compare(tmp_path, "cbd", files)
    weak, strong, twin = "toy(seed=1)", "toy(seed=2)", "toy(seed=3)"
    assert set(result["models"]) == {weak, strong, twin}
    assert len(result["pairs"]) == 3 * 4 and {r["metric"] for r in result["pairs"]} == {
        "ideal",
        "fragile",
        "dangerous",
        "worst",
    }
    scored = registry.score("cbd", [str(f) for f in files])["models"]
    for a, b in ((weak, strong), (strong, twin), (weak, twin)):
        for metric in ("ideal", "fragile", "dangerous", "worst"):
            row = _row(result, a, b, metric)
            own = {m: scored[m]["fractions"][metric.capitalize()] for m in (a, b)}
            assert row["delta"] == pytest.approx(
                100 * (own[b] - own[a]), abs=1e-9
            )  # `score`'s fractions, in pp
            assert row["n_cases"] == 150
    for metric in ("ideal", "fragile", "dangerous", "worst"):
        same = _row(result, weak, twin, metric)
        assert same["delta"] == 0.0 and same["ci95"] == [0.0, 0.0] and same["p"] >= 0.5
    gap = _row(result, weak, strong, "ideal")
    assert gap["delta"] > 20 and gap["ci95"][0] > 0 and gap["p_holm"] < 0.05


# ------------------------------------------------------------------------------ MedQ-Deg
def _medqdeg_run(
    folder: Path, n_items: int, model_args: str, p_clean: float, p_degraded: float, seed: int
) -> list[Path]:
    """One model's calibration logs: per item an L0 doc and one doc per degradation at L1 and L2,
    T = 10 trials each, each trial right with ``p_clean`` (L0) or ``p_degraded`` (L1, L2)."""
    from medvigil.suites.medqdeg.records import record

    rng = random.Random(seed)
    by_level: dict[int, list] = {0: [], 1: [], 2: []}
    for i in range(n_items):
        item = f"q{i:03d}"
        for kind, level in (
            ("clean", 0),
            ("gaussian_noise", 1),
            ("motion_blur", 1),
            ("gaussian_noise", 2),
            ("low_dose", 2),
        ):
            p = p_clean if level == 0 else p_degraded
            doc = {
                "probe_id": item,
                "case_id": item,
                "probe_kind": "original",
                "question": "Is it there?",
                "options": ["yes", "no", "maybe", "refuse"],
                "correct_letter": "A",
                "image_file": f"images/{item}.png",
                "modality": "CT",
                "capability": "Diagnosis",
                "degradation": kind,
                "severity": level,
                "experiment": "calibration",
                "risk_tier": None,
                "source_dataset": "toy",
            }
            by_level[level].append(
                record(doc, ["A" if rng.random() < p else rng.choice("BCD") for _ in range(10)])
            )
    return write_run(
        folder,
        {f"medqdeg_L{lv}": recs for lv, recs in by_level.items()},
        ("accuracy", "calibration_shift"),
        model_args=model_args,
    )


@pytest.fixture(scope="module")
def medqdeg_logs(tmp_path_factory):
    root = tmp_path_factory.mktemp("medqdeg")
    return {
        "robust": _medqdeg_run(root / "robust", 120, "seed=1", 0.8, 0.78, 1),
        "fragile": _medqdeg_run(root / "fragile", 120, "seed=2", 0.8, 0.5, 2),
        "twin": _medqdeg_run(
            root / "twin", 120, "seed=3", 0.8, 0.78, 1
        ),  # the robust model's answers again
    }


def test_medqdeg_accuracy_drop_paired(medqdeg_logs, tmp_path):
    from medvigil.suites.medqdeg.scoring import accuracy_scores

    files = [p for paths in medqdeg_logs.values() for p in paths]
    result = _compare(
        tmp_path, "medqdeg", files, "--metrics", "drop_l12,drop_l1,drop_l2,accuracy_l0"
    )
    robust, fragile, twin = "toy(seed=1)", "toy(seed=2)", "toy(seed=3)"
    scored = registry.score("medqdeg", [str(f) for f in files])["models"]
    for a, b in ((robust, fragile), (fragile, twin), (robust, twin)):
        paired = {m: accuracy_scores(scored[m])["paired_drops"] for m in (a, b)}
        for metric, level in (("drop_l12", "L1&L2"), ("drop_l1", "L1"), ("drop_l2", "L2")):
            row = _row(result, a, b, metric)
            own = {m: paired[m][level][f"{level}-L0"] for m in (a, b)}
            assert row["delta"] == pytest.approx(
                100 * (own[b] - own[a]), abs=1e-9
            )  # `score`'s drops, in pp
            assert row["n_cases"] == 120 and row["n_probes"] == 600
        l0 = _row(result, a, b, "accuracy_l0")
        assert l0["delta"] == pytest.approx(
            100
            * (
                scored[b]["by_severity"]["L0"]["accuracy"]
                - scored[a]["by_severity"]["L0"]["accuracy"]
            ),
            abs=1e-9,
        )
    for metric in ("drop_l12", "drop_l1", "drop_l2", "accuracy_l0"):
        same = _row(result, robust, twin, metric)
        assert same["delta"] == 0.0 and same["ci95"] == [0.0, 0.0] and same["p"] >= 0.5
    gap = _row(result, robust, fragile, "drop_l12")
    assert gap["delta"] < -20 and gap["ci95"][1] < 0 and gap["p_holm"] < 0.05


# ---------------------------------------------------------------------------- Readiness
def _readiness_hooks():
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "tasks" / "readiness" / "utils.py"
    spec = importlib.util.spec_from_file_location("readiness_task_utils_compare", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _readiness_run(
    folder: Path, n_cases: int, model_args: str, p_image: float, p_text: float, seed: int
) -> list[Path]:
    """One model's logs of every arm but chain-of-thought: each answer right with ``p_image`` when
    the arm shows the image, ``p_text`` when not (a seeded draw per record), else a wrong letter."""
    from medvigil.suites.readiness.docs import ARMS, arm_docs

    pool = [
        "effusion",
        "nodule",
        "fracture",
        "mass",
        "edema",
        "pneumothorax",
        "cyst",
        "stone",
        "hernia",
        "abscess",
        "aneurysm",
        "atelectasis",
    ]
    rows = []
    for i in range(
        n_cases
    ):  # one question, options rotating over a pool: T4 replacements and T5 donors exist
        case, source = f"C{i:03d}", ("VQA-RAD", "SLAKE")[i % 2]
        rows.append(
            {
                "case_id": case,
                "probe_id": f"{case}-original",
                "probe_kind": "original",
                "question": "Which finding is shown?",
                "options": [pool[(i + k) % len(pool)] for k in range(4)]
                + ["Insufficient visual evidence"],
                "correct_letter": "A",
                "source_dataset": source,
                "safe_letter": "E",
                "text_only_answerable": i % 5 == 0,
                "laterality_dependent": False,
                "risk_tier": "L1",
                "modality": "CT",
            }
        )
    rng, record = random.Random(seed), _readiness_hooks()._record
    arms = {}
    for arm in (a for a in ARMS if a != "readiness_cot"):
        out = []
        for i, overrides in arm_docs(arm, rows):
            doc = {**rows[i], **overrides}
            p = p_text if str(doc["condition"]).startswith("noimg") else p_image
            gold = doc["correct_letter"]
            out.append(
                record(
                    doc, gold if rng.random() < p else rng.choice([x for x in "ABCD" if x != gold])
                )
            )
        arms[arm] = out
    return write_run(folder, arms, ("acc", "acc_visreq"), model_args=model_args)


@pytest.fixture(scope="module")
def readiness_logs(tmp_path_factory):
    root = tmp_path_factory.mktemp("readiness")
    return {
        "grounded": _readiness_run(root / "grounded", 90, "seed=1", 0.85, 0.25, 1),
        "shortcut": _readiness_run(root / "shortcut", 90, "seed=2", 0.85, 0.8, 2),
        "twin": _readiness_run(
            root / "twin", 90, "seed=3", 0.85, 0.25, 1
        ),  # the grounded model's answers again
    }


def test_readiness_r_paired(readiness_logs, tmp_path):
    files = [p for paths in readiness_logs.values() for p in paths]
    result = _compare(tmp_path, "readiness", files, "--metrics", "r,r_t2", "--resamples", "300")
    grounded, shortcut, twin = "toy(seed=1)", "toy(seed=2)", "toy(seed=3)"
    scored = registry.score("readiness", [str(f) for f in files])["models"]
    assert all(scored[m]["R"] is not None for m in (grounded, shortcut, twin))
    for a, b in ((grounded, shortcut), (shortcut, twin), (grounded, twin)):
        row = _row(result, a, b, "r")
        assert row["delta"] == pytest.approx(
            100 * (scored[b]["R"] - scored[a]["R"]), abs=1e-9
        )  # `score`'s R(m)
        t2 = _row(result, a, b, "r_t2")
        assert t2["delta"] == pytest.approx(
            100 * (scored[b]["robustness"]["T2"] - scored[a]["robustness"]["T2"]), abs=1e-9
        )
        assert row["n_cases"] == 90
    for metric in ("r", "r_t2"):
        same = _row(result, grounded, twin, metric)
        assert same["delta"] == 0.0 and same["ci95"] == [0.0, 0.0] and same["p"] >= 0.5
    gap = _row(
        result, grounded, shortcut, "r_t2"
    )  # answering visually-required items without the image (T2)
    assert gap["delta"] < -40 and gap["ci95"][1] < 0 and gap["p_holm"] < 0.05
