"""What a task handed the model adapter for one doc, recorded in each logged sample.

Every suite's ``process_results`` adds these fields to the record's ``extra`` from the same
``doc_to_visual`` the adapter called, so a log says whether an image was sent and which variant
(the doc's condition: ``default``, ``blur:8``, ``roi_decay:2``, ``binary:null``, ...), and a
text-only doc is visible as ``images_sent: 0``, ``image_variant: "none"``; a model that was sent no
image on the probes that carry one is found by :func:`no_image_models`.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

NO_IMAGE = "none"


def sent_inputs(visuals: Sequence, variant: str) -> dict:
    """``{"images_sent": n, "image_variant": variant or "none"}`` for the visuals of one doc."""
    return {"images_sent": len(visuals), "image_variant": str(variant) if visuals else NO_IMAGE}


def with_sent_inputs(record: dict, visuals: Sequence, variant: str) -> dict:
    """``record`` with :func:`sent_inputs` merged into its ``extra`` (in place; returned)."""
    record["extra"] = {**(record.get("extra") or {}), **sent_inputs(visuals, variant)}
    return record


def no_image_models(
    records: Iterable[Mapping[str, Any]], is_image_probe: Callable[[Mapping[str, Any]], bool]
) -> dict[str, int]:
    """Models whose records show no image sent on any image probe (``is_image_probe``), with the
    number of such probes: ``{model: n}``. Only records that say what was sent
    (``extra.images_sent``) count; a model with none of them is not judged."""
    seen: dict[str, list[int]] = {}
    for record in records:
        sent = (record.get("extra") or {}).get("images_sent")
        if isinstance(sent, int) and not isinstance(sent, bool) and is_image_probe(record):
            seen.setdefault(str(record.get("model")), []).append(sent)
    return {model: len(sent) for model, sent in sorted(seen.items()) if not any(sent)}
