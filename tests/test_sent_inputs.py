"""Each record says what the adapter was handed (medvigil.records.sent_inputs), from the task
hooks."""

import importlib.util
from pathlib import Path

from PIL import Image

from medvigil.records.sent_inputs import sent_inputs

ROOT = Path(__file__).resolve().parents[1]


def _medvigil_utils():
    spec = importlib.util.spec_from_file_location(
        "medvigil_task_utils", ROOT / "tasks" / "medvigil" / "utils.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _doc(**changes) -> dict:
    doc = {
        "probe_id": "P-1",
        "case_id": "C-1",
        "probe_kind": "original",
        "risk_tier": "L1",
        "source_dataset": "VQA-RAD",
        "modality": "CT",
        "text_only_answerable": False,
        "question": "Which side?",
        "options": ["Left", "Right", "Both", "Neither", "Cannot determine from the image"],
        "correct_letter": "A",
        "image": Image.new("RGB", (8, 8)),
        "condition": "default",
    }
    return {**doc, **changes}


def test_sent_inputs_fields():
    assert sent_inputs([object()], "blur:8") == {"images_sent": 1, "image_variant": "blur:8"}
    assert sent_inputs([], "default") == {"images_sent": 0, "image_variant": "none"}


def test_medvigil_records_say_whether_an_image_was_sent():
    utils = _medvigil_utils()

    def extra(doc):  # each task logs its record under its own first metric (blur: "overall")
        return next(iter(utils.medvigil_process_results(doc, ["A"]).values()))["extra"]

    shown = extra(_doc(condition="blur:8"))
    assert shown["images_sent"] == 1 and shown["image_variant"] == "blur:8"
    for doc in (_doc(image=None, probe_kind="knowledge_only"), _doc(condition="noimg")):
        sent = extra(doc)
        assert sent["images_sent"] == 0 and sent["image_variant"] == "none"
        assert len(utils.medvigil_doc_to_visual(doc)) == 0


def test_reordered_options_with_an_unparsed_answer_stay_unparsed():
    utils = _medvigil_utils()
    doc = _doc(condition="circular", permutation="BCDEA", published_correct_letter="B")
    record = utils.medvigil_process_results(doc, ["no letter here"])["mcs"]
    assert record["predicted_letter"] is None and record["parse_status"] == "parse_failure"


def test_task_docs_keep_images_encoded_until_the_model_asks():
    """_load's docs carry each image's encoded bytes (lmms-eval reads every doc three times;
    datasets would decode the image at each read); doc_to_visual decodes the same pixels datasets
    would."""
    import io

    import datasets
    import numpy as np

    utils = _medvigil_utils()
    buffer = io.BytesIO()
    pixels = np.random.default_rng(0).integers(0, 255, (16, 24), dtype=np.uint8)
    Image.fromarray(pixels, "L").save(buffer, format="JPEG")
    data = datasets.Dataset.from_dict(
        {"image": [{"bytes": buffer.getvalue(), "path": None}, None], "probe_id": ["P-1", "P-2"]},
        features=datasets.Features(
            {"image": datasets.Image(), "probe_id": datasets.Value("string")}
        ),
    )
    docs = utils._undecoded(data)
    first, second = docs[0], docs[1]
    assert first["image"] == buffer.getvalue() and second["image"] is None
    assert [d["probe_id"] for d in docs] == ["P-1", "P-2"]  # iteration too
    expected = data[0]["image"].convert("RGB")  # what the decoding docs handed the model
    (shown,) = utils.medvigil_doc_to_visual(_doc(image=first["image"]))
    assert shown.mode == "RGB" and np.array_equal(np.asarray(shown), np.asarray(expected))
    (blurred,) = utils.medvigil_doc_to_visual(_doc(image=first["image"], condition="blur:2"))
    (from_pil,) = utils.medvigil_doc_to_visual(_doc(image=expected, condition="blur:2"))
    assert np.array_equal(np.asarray(blurred), np.asarray(from_pil))
    assert utils.medvigil_doc_to_visual(_doc(image=second["image"])) == []
