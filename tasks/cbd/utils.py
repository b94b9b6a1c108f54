"""lmms-eval hooks for the Consistent-but-Dangerous task pack (seed 004) on MedVIGIL data.

Docs, records and scores are :mod:`medvigil.cbd_tasks` (paraphrase set, arms, quadrant
table via :mod:`medvigil.scoring.cbd`); the prompt is MedVIGIL's Appendix L prompt
(:func:`medvigil.prompting.build_k_option_prompt`, the same layout for K options). Nothing is re-implemented here.

Each task loads the one-row ``_pointer.jsonl``; ``process_docs`` swaps in the docs of its arm(s).
A doc's ``condition`` says the arm: ``default`` shows the image, ``noimg`` withholds it.
"""

from __future__ import annotations

from PIL import Image

from medvigil import cbd_tasks
from medvigil.prompting import build_k_option_prompt
from medvigil.release_format import SYSTEM_PROMPT
from medvigil.retry import ATTEMPTS, doc_key

# ---------------------------------------------------------------- data (process_docs)


def load_image_arm(_pointer):
    return cbd_tasks.load_docs(["image"])


def load_noimg_arm(_pointer):
    return cbd_tasks.load_docs(["noimg"])


def load_both_arms(_pointer):
    return cbd_tasks.load_docs(["image", "noimg"])


def load_binary_arms(_pointer):
    return cbd_tasks.load_binary_docs()


# ---------------------------------------------------------------- prompt and image


def cbd_doc_to_visual(doc: dict) -> list:
    image = doc.get("image")
    if image is None or doc.get("condition") in (cbd_tasks.ARMS["noimg"], cbd_tasks.BINARY_ARMS["noimg"]):
        return []  # Sec. 3.2: the image is omitted entirely, not replaced
    if doc.get("condition") == cbd_tasks.BINARY_ARMS["null"]:
        return [Image.new("RGB", cbd_tasks.NULL_IMAGE_SIZE, 0)]  # Sec. 5: black 224 x 224
    return [image.convert("RGB")]  # the swap doc's row is the donor case's: its image


def cbd_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{build_k_option_prompt(doc['question'], doc['options'])}{kwargs.get('post_prompt', '')}"


def cbd_doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """Chat form: the Appendix L system turn, then the image (image arm only) and the prompt."""
    kwargs = dict(lmms_eval_specific_kwargs or {}, pre_prompt="")
    content = [{"type": "image", "url": image} for image in cbd_doc_to_visual(doc)]
    content.append({"type": "text", "text": cbd_doc_to_text(doc, kwargs)})
    return [{"role": "system", "content": [{"type": "text", "text": SYSTEM_PROMPT}]}, {"role": "user", "content": content}]


def cbd_binary_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The yes/no question (no options block: the continuations are " yes" and " no")."""
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['question']}{kwargs.get('post_prompt', '')}"


def cbd_binary_doc_to_choice(doc: dict) -> list:
    return list(doc["choices"])


def cbd_binary_doc_to_target(doc: dict) -> int:
    return "AB".index(doc["correct_letter"])


def cbd_binary_process_results(doc: dict, results: list) -> dict:
    """``results``: one ``(loglikelihood, is_greedy)`` per continuation (yes, no)."""
    record = cbd_tasks.make_binary_record(doc, results)
    return {name: record for name in cbd_tasks.BINARY_METRICS}


def _binary_aggregator(name: str):
    def aggregate(records: list) -> float:
        return cbd_tasks.binary_metrics(records)[name]

    aggregate.__name__ = f"cbd_binary_{name}"
    return aggregate


for _name in cbd_tasks.BINARY_METRICS:
    globals()[f"cbd_binary_{_name}"] = _binary_aggregator(_name)


# ---------------------------------------------------------------- results and aggregation

KINDS = {"quadrants": cbd_tasks.QUADRANT_METRICS, "image": cbd_tasks.IMAGE_METRICS, "noimg": cbd_tasks.NOIMG_METRICS}


def _processor(kind: str):
    def process_results(doc: dict, results: list) -> dict:
        # the same record under each of the task's metric keys (read_samples finds it under any)
        record = cbd_tasks.make_record(doc, results[0] if results else "", ATTEMPTS.take(doc_key(doc)))
        return {name: record for name in KINDS[kind]}

    process_results.__name__ = f"cbd_{kind}_process_results"
    return process_results


def _aggregator(kind: str, name: str):
    def aggregate(records: list) -> float:
        if kind == "quadrants":
            (result,) = cbd_tasks.quadrant_table(records).values()  # one model per run
            return cbd_tasks.table_metrics(result)[name]
        return cbd_tasks.arm_metrics(records, kind)[name]

    aggregate.__name__ = f"cbd_{kind}_{name}"
    return aggregate


for _kind, _names in KINDS.items():
    globals()[f"cbd_{_kind}_process_results"] = _processor(_kind)
    for _name in _names:
        globals()[f"cbd_{_kind}_{_name}"] = _aggregator(_kind, _name)
