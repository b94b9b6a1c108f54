"""Text-only models stay out of MedVIGIL's Table 17 (MCS sensitivity; issue 38): named with
``medvigil score --text-only``, or found from the logs (no image sent on an image probe); the
output says which and why. No model name is text-only by itself."""

import json

from lmms_runs import medvigil_run as _run

from medvigil.cli import main
from medvigil.records.sent_inputs import no_image_models


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
