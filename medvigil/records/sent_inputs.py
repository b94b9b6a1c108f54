"""What a task handed the model adapter for one doc, recorded in each logged sample.

Every suite's ``process_results`` adds these fields to the record's ``extra`` from the same
``doc_to_visual`` the adapter called, so a log says whether an image was sent and which variant
(the doc's condition: ``default``, ``blur:8``, ``roi_decay:2``, ``binary:null``, ...), and a
text-only doc is visible as ``images_sent: 0``, ``image_variant: "none"``.
"""

from collections.abc import Sequence

NO_IMAGE = "none"


def sent_inputs(visuals: Sequence, variant: str) -> dict:
    """``{"images_sent": n, "image_variant": variant or "none"}`` for the visuals of one doc."""
    return {"images_sent": len(visuals), "image_variant": str(variant) if visuals else NO_IMAGE}


def with_sent_inputs(record: dict, visuals: Sequence, variant: str) -> dict:
    """``record`` with :func:`sent_inputs` merged into its ``extra`` (in place; returned)."""
    record["extra"] = {**(record.get("extra") or {}), **sent_inputs(visuals, variant)}
    return record
