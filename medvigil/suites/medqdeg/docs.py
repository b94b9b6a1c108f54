"""MedQ-Deg (seed 002) docs on MedVIGIL data: which docs a task asks, their prompt and their
degraded image. The lmms-eval task pack ``tasks/medqdeg`` is a thin face over this module and
:mod:`medvigil.suites.medqdeg.records` (no lmms-eval import here).

* **Docs** (:func:`plan_docs`): the ``original`` probes of the built ``mcq`` config whose image is
  in the build. L0 is one doc per probe (the clean pair; Section 3.3 builds L1/L2 from the pool of
  unique L0 pairs); L1 and L2 one doc per (probe, type) for :data:`TYPES_PER_PROBE` = 3 types
  (Section 3.3, "three modality-specific degradations"), chosen by
  :func:`medvigil.suites.medqdeg.degradation_types.choose_kinds` among the Table 5 types of the
  probe's modality: those with the smallest ``seed_for(image id, type)``, the same at L1 and L2
  (nested draws). The image id of a probe is its ``image_file`` (e.g. ``images/MVB-0001.jpg``).
* **Prompt** (:func:`answer_prompt`): Appendix B's template, verbatim, the one user turn after the
  degraded image, no system message. Its code block wraps the first sentence at the page width (a
  space); ``{option_text}`` is one ``A. text`` line per option; the "Constraint: ..." sentence and
  "Answer:" printed under the block are the rest of the prompt (they address the model).
* **Images** (:func:`render`): the doc's image degraded by
  :func:`medvigil.suites.medqdeg.degradations.degrade_image` (L0: unchanged).

Settings (environment, read when docs are built and images rendered; both recorded in ``extra``):
``MEDQDEG_TYPES_PER_PROBE`` (default 3; ``all`` = every applicable type) and
``MEDQDEG_CT_WORK_SIZE`` (default 512, the spec's CT working size; smaller is faster).
"""

import logging
import os
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from medvigil.images import imaging
from medvigil.suites.medqdeg.degradation_types import (
    LEVELS,
    MODALITY_KINDS,
    choose_kinds,
    parameters,
    seed_for,
)
from medvigil.suites.medqdeg.degradations import CT_WORK_SIZE, degrade_image

log = logging.getLogger("medvigil.medqdeg")

CLEAN = "clean"  # degradation name of L0 docs
TYPES_PER_PROBE = 3  # Section 3.3
TYPES_ENV, CT_ENV = "MEDQDEG_TYPES_PER_PROBE", "MEDQDEG_CT_WORK_SIZE"
WITHOUT_IMAGE = (
    "withheld_credentialed",
    "no_image",
)  # image_status values with no image in the build
# Appendix B "Prompt template", verbatim (see the module docstring for how it is read).
PROMPT_HEAD = (
    "You are a medical AI assistant. Please answer the following "
    "question based on the provided medical image."
)
PROMPT_TAIL = (
    "Constraint: Output ONLY the single letter (A, B, C, or D, E, etc) corresponding "
    "to the correct answer. No explanation, no punctuation.\n\nAnswer:"
)


def answer_prompt(question: str, options: Sequence[str]) -> str:
    """The paper's prompt for one question (Appendix B).

    >>> print(answer_prompt("Is there a mass?", ["Yes", "No"]))
    You are a medical AI assistant. Please answer the following question based on the provided medical image. Is there a mass?
    <BLANKLINE>
    A. Yes
    B. No
    <BLANKLINE>
    Constraint: Output ONLY the single letter (A, B, C, or D, E, etc) corresponding to the correct answer. No explanation, no punctuation.
    <BLANKLINE>
    Answer:
    """  # noqa: E501
    option_text = "\n".join(f"{chr(65 + i)}. {str(text).strip()}" for i, text in enumerate(options))
    return f"{PROMPT_HEAD} {str(question).strip()}\n\n{option_text}\n\n{PROMPT_TAIL}"


def types_per_probe(env: Mapping[str, str] | None = None) -> int | None:
    """``MEDQDEG_TYPES_PER_PROBE``: a positive int, or ``all`` (None = every applicable type)."""
    value = ((os.environ if env is None else env).get(TYPES_ENV) or str(TYPES_PER_PROBE)).strip()
    if value.lower() == "all":
        return None
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{TYPES_ENV} must be a positive integer or 'all', got {value!r}")
    return int(value)


def ct_work_size(env: Mapping[str, str] | None = None) -> int:
    """``MEDQDEG_CT_WORK_SIZE``: the CT working size, an int >= 16 (default 512)."""
    value = ((os.environ if env is None else env).get(CT_ENV) or str(CT_WORK_SIZE)).strip()
    if not value.isdigit() or int(value) < 16:
        raise ValueError(f"{CT_ENV} must be an integer >= 16, got {value!r}")
    return int(value)


def plan_docs(
    rows: Sequence[Mapping[str, Any]], level: int, n_types: int | None = TYPES_PER_PROBE
) -> list[dict[str, Any]]:
    """The docs a task asks, ``{"row": index, "degradation": type, "severity": level}`` in row
    order; ``rows`` need ``probe_kind``, ``image_status``, ``image_file`` and ``modality`` (no
    image)."""
    if level not in LEVELS:
        raise ValueError(f"level must be 0, 1 or 2, got {level!r}")
    plan, skipped = [], Counter()
    for i, row in enumerate(rows):
        if row["probe_kind"] != "original":
            continue
        if row["image_status"] in WITHOUT_IMAGE or not row.get("image_file"):
            skipped[row["image_status"]] += 1
            continue
        kinds = (
            (CLEAN,)
            if level == 0
            else choose_kinds(row["image_file"], row.get("modality"), n_types)
        )
        plan.extend({"row": i, "degradation": kind, "severity": level} for kind in kinds)
    for status, count in skipped.items():
        log.warning(
            "medqdeg: skipped %d original probe(s) without an image in the build (%s)",
            count,
            status,
        )
    return plan


def doc_params(kind: str, level: int, work: int) -> dict[str, Any]:
    """The parameters a record of a ``kind`` doc at ``level`` carries (CT: the working size)."""
    if kind == CLEAN:
        return {}
    params = parameters(kind, level)
    if kind in MODALITY_KINDS["CT"]:
        params["ct_work_size"] = work
    return params


_CACHE = imaging.ImageCache()  # lmms-eval asks one doc T times in a row


def working_image(image: Image.Image) -> Image.Image:
    """The image the degradation reads: mode "L" when grey (a grey mode, or three equal channels),
    else RGB (degrading a grey image as RGB would colour it: gaussian_noise draws each channel
    independently)."""
    if image.mode in ("1", "L", "LA", "I", "I;16", "F"):
        return image.convert("L")
    rgb = image.convert("RGB")
    a = np.asarray(rgb)
    return (
        rgb.convert("L")
        if np.array_equal(a[..., 0], a[..., 1]) and np.array_equal(a[..., 1], a[..., 2])
        else rgb
    )


def render(doc: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Image.Image | None:
    """The doc's image degraded by its type and level (L0: unchanged), as RGB (a grey image stays
    grey)."""
    image = doc.get("image")
    if image is None:
        return None
    kind, level = doc["degradation"], int(doc["severity"])
    if kind == CLEAN or level == 0:
        return image.convert("RGB")
    work = ct_work_size(env)
    key = (
        doc["image_file"],
        zlib.crc32(image.tobytes()),
        kind,
        level,
        work,
    )  # content, not only the name
    seed = seed_for(doc["image_file"], kind)
    return _CACHE.get(
        key,
        lambda: degrade_image(working_image(image), kind, level, seed, ct_work_size=work).convert(
            "RGB"
        ),
    )
