"""lmms-eval hooks for the Illusion of Readiness arms (tasks/readiness).

Same pattern as tasks/medvigil: each task loads the one-row ``_pointer.jsonl`` and its
``process_docs`` swaps in the built MedVIGIL ``mcq`` rows (``MEDVIGIL_DATA``), turned into
one arm by :func:`medvigil.suites.readiness.docs.arm_docs`. The arm's condition travels in each
doc, so one ``doc_to_visual`` serves every arm; a T5 doc carries its donor's image. Prompt
(the paper's Appendix E, :func:`medvigil.suites.readiness.docs.mc_prompt`), parsing and
scoring come from the core.
"""

import logging

from datasets import Image

from medvigil.mcq.adapter import load_mcq
from medvigil.mcq.prompting import parse_option_letter
from medvigil.mcq.retry import ATTEMPTS, doc_key
from medvigil.records.probe_record import metric_values, probe_record, records_of
from medvigil.records.sent_inputs import sent_inputs
from medvigil.suites.medvigil.release.release_format import SAFE_LETTER
from medvigil.suites.readiness.docs import ARMS, arm_docs, base_setting, mc_prompt
from medvigil.suites.readiness.perturbation import substitution_donors
from medvigil.suites.readiness.reasoning import parse_cot
from medvigil.suites.readiness.records import arm_accuracy, arm_count, arm_metrics
from medvigil.suites.readiness.scoring import READINESS_CONDITIONS

WITHHELD = "withheld_credentialed"
log = logging.getLogger("medvigil.tasks.readiness")


# ---------------------------------------------------------------- data (process_docs)


def _load(arm: str):
    data = load_mcq()  # MedVIGIL mcq, or any dataset through MEDVIGIL_MCQ_ADAPTER
    withheld = sum(status == WITHHELD for status in data["image_status"])
    if withheld:  # the same items in every arm: a withheld image removes the item everywhere
        data = data.select(
            [i for i, status in enumerate(data["image_status"]) if status != WITHHELD]
        )
        log.warning(
            "readiness %s: skipped %d probe(s) whose credentialed image is withheld", arm, withheld
        )
    # MedVIGIL stores the safe action at E; adapted rows say their own (or none)
    rows = [{"safe_letter": SAFE_LETTER, **row} for row in data.remove_columns(["image"]).to_list()]
    made = arm_docs(arm, rows, base=base_setting())  # READINESS_BASE: balanced (default) or source
    if not made:
        raise ValueError(
            f"readiness arm {arm}: no probes in the build qualify (scope {ARMS[arm].scope!r}"
            + (", with a T5 donor)" if ARMS[arm].perturbation == "substitution" else ")")
        )
    if ARMS[arm].perturbation == "substitution":
        log.warning(
            "readiness %s: %d visually required item(s) have no donor image and are not asked",
            arm,
            substitution_donors(rows)[1],
        )
    overrides = [o for _, o in made]
    if (
        ARMS[arm].perturbation == "substitution"
    ):  # T5: another case's image (its stored bytes), supporting a distractor
        donors = [o["readiness"]["donor_row"] for o in overrides]
        images = data.select(donors).cast_column("image", Image(decode=False))["image"]
        overrides = [{**o, "image": image} for o, image in zip(overrides, images)]
    data = data.select([i for i, _ in made])
    # input_columns: the images are neither decoded nor rewritten (unless an arm overrides them)
    return data.map(
        lambda _, i: overrides[i],
        with_indices=True,
        input_columns=["probe_id"],
        desc=f"readiness arm {arm}",
    )


# one loader per arm of medvigil.suites.readiness.docs.ARMS (names used by _generate_configs.py)


def load_readiness_img(_pointer):
    return _load("readiness_img")


def load_readiness_text(_pointer):
    return _load("readiness_text")


def load_readiness_text_reord(_pointer):
    return _load("readiness_text_reord")


def load_readiness_img_reord(_pointer):
    return _load("readiness_img_reord")


def load_readiness_text_1r(_pointer):
    return _load("readiness_text_1r")


def load_readiness_img_1r(_pointer):
    return _load("readiness_img_1r")


def load_readiness_text_2r(_pointer):
    return _load("readiness_text_2r")


def load_readiness_img_2r(_pointer):
    return _load("readiness_img_2r")


def load_readiness_text_3r(_pointer):
    return _load("readiness_text_3r")


def load_readiness_img_3r(_pointer):
    return _load("readiness_img_3r")


def load_readiness_text_4r(_pointer):
    return _load("readiness_text_4r")


def load_readiness_img_4r(_pointer):
    return _load("readiness_img_4r")


def load_readiness_text_unk(_pointer):
    return _load("readiness_text_unk")


def load_readiness_img_unk(_pointer):
    return _load("readiness_img_unk")


def load_readiness_img_subst(_pointer):
    return _load("readiness_img_subst")


def load_readiness_cot(_pointer):
    return _load("readiness_cot")


# ---------------------------------------------------------------- prompt and image


def readiness_doc_to_visual(doc: dict) -> list:
    image = doc.get("image")
    if image is None or doc.get("condition", "default").startswith("noimg"):
        return []
    return [image.convert("RGB")]


def _is_cot(doc: dict) -> bool:
    return doc.get("condition") == READINESS_CONDITIONS["cot"]


def readiness_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The paper's prompt (Appendix E), with its CoT instruction on the T6 arm; ``pre_prompt`` /
    ``post_prompt`` (empty by default) for a user who wants to add to it."""
    kwargs = lmms_eval_specific_kwargs or {}
    body = mc_prompt(doc["question"], doc["options"], cot=_is_cot(doc))
    return f"{kwargs.get('pre_prompt', '')}{body}{kwargs.get('post_prompt', '')}"


def readiness_doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """One user turn, the image first (Appendix E: ``<Images>`` then the text); no system
    message."""
    content = [{"type": "image", "url": image} for image in readiness_doc_to_visual(doc)]
    content.append({"type": "text", "text": readiness_doc_to_text(doc, lmms_eval_specific_kwargs)})
    return [{"role": "user", "content": content}]


# ---------------------------------------------------------------- results


def _record(doc: dict, response: str) -> dict:
    extra = {
        "condition_source": "lmms-eval",
        "laterality_dependent": doc.get("laterality_dependent"),
        **sent_inputs(readiness_doc_to_visual(doc), doc["condition"]),
        "options_shown": list(doc["options"]),
        **(doc.get("readiness") or {}),
    }
    if _is_cot(doc):
        extra["cot"] = parse_cot(response, doc["options"])
        letter = extra["cot"]["answer"]
    else:
        # the prompt asks for "the index and content of the option": a reply giving only the content
        # counts
        letter = parse_option_letter(response, len(doc["options"]), doc["options"])
    attempts = ATTEMPTS.take(doc_key(doc))
    return probe_record(
        "readiness",
        doc,
        condition=doc["condition"],
        predicted_letter=letter,
        raw_response=response,
        attempts=attempts,
        extra=extra,
    )


def readiness_process_results(doc: dict, results: list) -> dict:
    record = _record(doc, results[0] if results else "")
    return metric_values(record, arm_metrics(doc["readiness"]["arm"]))


# ---------------------------------------------------------------- aggregation (accuracy of the arm)


def readiness_aggregate_acc(records: list) -> float:
    return arm_accuracy(records_of(records))


def readiness_aggregate_acc_visreq(records: list) -> float:
    """T2 (text arm) and T4 img-base (image arm): the visually-required items."""
    return arm_accuracy(records_of(records), "visreq")


def readiness_aggregate_acc_t5(records: list) -> float:
    """T5 original (image arm): the items the substitution arm asks with a donor's image."""
    return arm_accuracy(records_of(records), "t5")


def readiness_aggregate_parse_failures(records: list) -> float:
    return float(sum(r.get("parse_status") != "ok" for r in records_of(records)))


# T1: accuracy and item count of the arm per benchmark (medvigil.suites.readiness.records.SOURCES)


def readiness_aggregate_acc_vqa_rad(records: list) -> float:
    return arm_accuracy(records_of(records), "vqa_rad")


def readiness_aggregate_n_vqa_rad(records: list) -> float:
    return arm_count(records_of(records), "vqa_rad")


def readiness_aggregate_acc_slake(records: list) -> float:
    return arm_accuracy(records_of(records), "slake")


def readiness_aggregate_n_slake(records: list) -> float:
    return arm_count(records_of(records), "slake")


def readiness_aggregate_acc_roco(records: list) -> float:
    return arm_accuracy(records_of(records), "roco")


def readiness_aggregate_n_roco(records: list) -> float:
    return arm_count(records_of(records), "roco")


def readiness_aggregate_acc_cxr(records: list) -> float:
    return arm_accuracy(records_of(records), "cxr")


def readiness_aggregate_n_cxr(records: list) -> float:
    return arm_count(records_of(records), "cxr")
