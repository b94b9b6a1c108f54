"""lmms-eval hooks for the pressure task pack on MedVIGIL data.

Docs and records are :mod:`medvigil.suites.pressure.protocol` (arms, seeded wrong option,
challenge texts); nothing is re-implemented here. Each task loads the one-row
``_pointer.jsonl``; ``process_docs`` swaps in the docs of its arm.

Chat adapters get the conversation as messages (:func:`pressure_doc_to_messages`): the Appendix L
system turn, the user turn with the image and the question, the pre-filled assistant answer, and
the user's challenge. Simple adapters get it as one text (:func:`pressure_doc_to_text`) and the
image through :func:`pressure_doc_to_visual`.
"""

from medvigil.mcq.retry import ATTEMPTS, doc_key
from medvigil.records.probe_record import metric_values, records_of
from medvigil.records.sent_inputs import with_sent_inputs
from medvigil.suites.medvigil.release.release_format import SYSTEM_PROMPT
from medvigil.suites.pressure import protocol

# ---------------------------------------------------------------- data (process_docs)


def load_challenge(_pointer):
    return protocol.load_docs("challenge")


def load_authority_wrong(_pointer):
    return protocol.load_docs("authority_wrong")


def load_authority_correct(_pointer):
    return protocol.load_docs("authority_correct")


def load_refusal(_pointer):
    return protocol.load_docs("refusal")


# ---------------------------------------------------------------- prompt and image


def pressure_doc_to_visual(doc: dict) -> list:
    image = doc.get("image")
    return [] if image is None else [image.convert("RGB")]


def pressure_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The conversation as text (simple adapters), after the system pre-prompt."""
    kwargs = lmms_eval_specific_kwargs or {}
    text = protocol.conversation_text(doc)
    return f"{kwargs.get('pre_prompt', '')}{text}{kwargs.get('post_prompt', '')}"


def pressure_doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """Chat form: system, user (image and question), the pre-filled assistant answer, the
    challenge."""
    question, answer, second = protocol.turns(doc)
    content = [{"type": "image", "url": image} for image in pressure_doc_to_visual(doc)]
    content.append({"type": "text", "text": question})
    return [
        {"role": "system", "content": [{"type": "text", "text": SYSTEM_PROMPT}]},
        {"role": "user", "content": content},
        {"role": "assistant", "content": [{"type": "text", "text": answer}]},
        {"role": "user", "content": [{"type": "text", "text": second}]},
    ]


# ---------------------------------------------------------------- results and aggregation


def _process(doc: dict, results: list) -> dict:
    # the record under the arm's rate (logged once), {score, case_id} under the others; the
    # per-doc score is whether the answer after the pressure is the gold (E on the refusal arm)
    record = protocol.make_record(doc, results[0] if results else "", ATTEMPTS.take(doc_key(doc)))
    with_sent_inputs(record, pressure_doc_to_visual(doc), doc["condition"])
    names = (protocol.RATE_OF_ARM[doc["condition"]], "n_answered", "parse_failures")
    return metric_values(record, names)


def pressure_challenge_process_results(doc: dict, results: list) -> dict:
    return _process(doc, results)


def pressure_authority_wrong_process_results(doc: dict, results: list) -> dict:
    return _process(doc, results)


def pressure_authority_correct_process_results(doc: dict, results: list) -> dict:
    return _process(doc, results)


def pressure_refusal_process_results(doc: dict, results: list) -> dict:
    return _process(doc, results)


def pressure_flip_when_correct(records: list) -> float:
    return protocol.arm_rate(records_of(records))["rate"]


def pressure_adopt_wrong_suggestion(records: list) -> float:
    return protocol.arm_rate(records_of(records))["rate"]


def pressure_adopt_correct_suggestion(records: list) -> float:
    return protocol.arm_rate(records_of(records))["rate"]


def pressure_refusal_kept(records: list) -> float:
    return protocol.arm_rate(records_of(records))["rate"]


def pressure_n_answered(records: list) -> float:
    return protocol.arm_rate(records_of(records))["n_answered"]


def pressure_parse_failures(records: list) -> float:
    return protocol.arm_rate(records_of(records))["parse_failures"]
