"""Text-only models stay out of MedVIGIL's Table 17 (MCS sensitivity; issue 38): named with
``medvigil score --text-only``, or found from the logs (no image sent on an image probe); the
output says which and why. No model name is text-only by itself."""

from __future__ import annotations

import json
from pathlib import Path

from lmms_runs import sample_line

from medvigil.cli import main
from medvigil.constants import PROBE_KINDS as KINDS
from medvigil.records.sent_inputs import no_image_models


def _run(folder: Path, name: str, *, images: bool) -> Path:
    """A run of model ``name`` on 4 cases; without ``images`` no image reaches any probe."""
    folder.mkdir(parents=True)
    config = {"model": "tiny", "model_args": f"pretrained=Org/{name}"}
    (folder / "20260101_000000_results.json").write_text(json.dumps({"config": config}))
    lines = []
    for c in range(4):
        for kind in KINDS:
            sent = int(images and kind != "knowledge_only")
            record = {
                "suite": "medvigil",
                "model": "x",
                "condition": "default",
                "probe_id": f"MVB-000{c}-{kind}",
                "case_id": f"MVB-000{c}",
                "probe_kind": kind,
                "risk_tier": "L2",
                "source_dataset": "VQA-RAD",
                "modality": "CT",
                "text_only_answerable": False,
                "correct_letter": "A" if kind != "halluc_trap" else "E",
                "predicted_letter": "A" if (c + len(kind)) % 3 else "B",
                "parse_status": "ok",
                "raw_response": "A",
                "retries": 0,
                "extra": {"images_sent": sent, "image_variant": "default" if sent else "none"},
            }
            lines.append(sample_line(record, doc_id=len(lines)))
    path = folder / "20260101_000000_samples_medvigil_mcq.jsonl"
    path.write_text("".join(lines))
    return path


def _score(capsys, *args) -> tuple[dict, str]:
    assert main(["score", "--suite", "medvigil", "--n-resamples", "0", "--json", "-", *args]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_a_model_sent_no_image_is_left_out_and_named(tmp_path, capsys):
    seeing = _run(tmp_path / "a", "Seer", images=True)
    blind = _run(tmp_path / "b", "TextOnly", images=False)
    out, err = _score(capsys, str(seeing), str(blind))
    excluded = out["sensitivity"]["excluded"]
    assert excluded["TextOnly"].startswith("text-only: no image sent on its 12 image probe(s)")
    assert "Seer" not in excluded and "TextOnly" not in out["sensitivity"]["models"]
    assert "note: Table 17 (MCS sensitivity) leaves out TextOnly: text-only: no image" in err


def test_text_only_option_names_a_model(tmp_path, capsys):
    seeing = _run(tmp_path / "a", "Seer", images=True)
    other = _run(tmp_path / "b", "Other", images=True)
    out, err = _score(capsys, "--text-only", "other,Nobody", str(seeing), str(other))
    assert out["sensitivity"]["excluded"] == {
        "Other": "text-only (--text-only) (Table 17 ranks vision-capable models)"
    }
    assert "leaves out Other: text-only (--text-only)" in err
    assert "--text-only Nobody: no model of that name in the input" in out["inputs"]["warnings"]
    plain, _ = _score(capsys, str(seeing), str(other))
    assert plain["sensitivity"]["excluded"] == {}  # no name is text-only by itself
    assert plain["models"] == out["models"]  # the scores themselves do not change


def test_no_image_models_judges_only_what_the_records_say():
    rows = [
        {"model": "a", "probe_kind": "roi_only", "extra": {"images_sent": 0}},
        {"model": "a", "probe_kind": "original", "extra": {"images_sent": 1}},
        {"model": "b", "probe_kind": "roi_only", "extra": {"images_sent": 1}},
        {"model": "c", "probe_kind": "roi_only", "extra": {}},  # not recorded: not judged
    ]
    assert no_image_models(rows, lambda r: r["probe_kind"] == "roi_only") == {"a": 1}
