"""MedQ-Deg (seed 002) on MedVIGIL data: docs, degraded images, records and the scores.

The lmms-eval task pack ``tasks/medqdeg`` is a thin face over this module (no lmms-eval import
here).

* **Docs** (:func:`plan_docs`): the ``original`` probes of the built ``mcq`` config whose image is
  in the build. L0 is one doc per probe (the clean pair; Section 3.3 builds L1/L2 from the pool of
  unique L0 pairs); L1 and L2 one doc per (probe, type) for :data:`TYPES_PER_PROBE` = 3 types
  (Section 3.3, "three modality-specific degradations"), chosen by
  :func:`medvigil.suites.medqdeg.degradations.choose_kinds` among the Table 5 types of the probe's
  modality: those with the smallest ``seed_for(image id, type)``, the same at L1 and L2 (nested
  draws). The image id of a probe is its ``image_file`` (e.g. ``images/MVB-0001.jpg``).
* **Records** (:func:`record`): one per doc, suite ``medqdeg``, condition ``L0``/``L1``/``L2``;
  ``extra`` holds the ``T`` votes, ``K`` (``n_options``), the degradation, severity, seed and
  parameters, so every image can be re-rendered.
* **Prompt** (:func:`answer_prompt`): Appendix B's template, verbatim, the one user turn after the
  degraded image, no system message. Its code block wraps the first sentence at the page width (a
  space); ``{option_text}`` is one ``A. text`` line per option; the "Constraint: ..." sentence and
  "Answer:" printed under the block are the rest of the prompt (they address the model).
* **Parser** (:func:`parse_answer`): Appendix B's priority rule: (1) the reply is a single letter;
  (2) the first capital letter in the reply; (3) none: invalid. A letter beyond the K options is
      invalid.
* **Scores** (:func:`task_score`): :func:`medvigil.suites.medqdeg.scoring.score_records` (the spec
  defaults).

Settings (environment, read when docs are built and images rendered; both recorded in ``extra``):
``MEDQDEG_TYPES_PER_PROBE`` (default 3; ``all`` = every applicable type) and
``MEDQDEG_CT_WORK_SIZE`` (default 512, the spec's CT working size; smaller is faster).
"""

import logging
import os
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from medvigil.images import imaging
from medvigil.records.probe_record import probe_record
from medvigil.suites.medqdeg import degradations
from medvigil.suites.medqdeg.scoring import score_records

log = logging.getLogger("medvigil.medqdeg")

SUITE = "medqdeg"
CLEAN = "clean"  # degradation name of L0 docs
TYPES_PER_PROBE = 3  # Section 3.3
TYPES_ENV, CT_ENV = "MEDQDEG_TYPES_PER_PROBE", "MEDQDEG_CT_WORK_SIZE"
WITHOUT_IMAGE = (
    "withheld_credentialed",
    "no_image",
)  # image_status values with no image in the build
METRICS = {
    "accuracy": True,
    "mean_confidence": None,
    "calibration_shift": False,
}  # metric -> higher is better
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


def parse_answer(response: str | None, n_options: int) -> str | None:
    """Appendix B's matching rule: the reply as a single letter, else its first capital letter;
    None (invalid) without one or when it is not among the first ``n_options`` letters.

    >>> (parse_answer(" b ", 5), parse_answer("The answer is B", 5), parse_answer("(C) cyst", 5),
    ...  parse_answer("none", 5))
    ('B', None, 'C', None)
    """
    if response is None:
        return None
    text = response.strip()
    if len(text) == 1 and text.isalpha():
        letter = text.upper()
    else:
        letter = next((c for c in text if "A" <= c <= "Z"), None)
    return letter if letter is not None and ord(letter) - 65 < n_options else None


def types_per_probe(env: Mapping[str, str] | None = None) -> int | None:
    """``MEDQDEG_TYPES_PER_PROBE``: a positive int, or ``all`` (None = every applicable type)."""
    value = ((os.environ if env is None else env).get(TYPES_ENV) or str(TYPES_PER_PROBE)).strip()
    if value.lower() == "all":
        return None
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{TYPES_ENV} must be a positive integer or 'all', got {value!r}")
    return int(value)


def ct_work_size(env: Mapping[str, str] | None = None) -> int:
    value = (
        (os.environ if env is None else env).get(CT_ENV) or str(degradations.CT_WORK_SIZE)
    ).strip()
    if not value.isdigit() or int(value) < 16:
        raise ValueError(f"{CT_ENV} must be an integer >= 16, got {value!r}")
    return int(value)


def plan_docs(
    rows: Sequence[Mapping[str, Any]], level: int, n_types: int | None = TYPES_PER_PROBE
) -> list[dict[str, Any]]:
    """The docs a task asks, ``{"row": index, "degradation": type, "severity": level}`` in row
    order; ``rows`` need ``probe_kind``, ``image_status``, ``image_file`` and ``modality`` (no
    image)."""
    if level not in degradations.LEVELS:
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
            else degradations.choose_kinds(row["image_file"], row.get("modality"), n_types)
        )
        plan.extend({"row": i, "degradation": kind, "severity": level} for kind in kinds)
    for status, count in skipped.items():
        log.warning(
            "medqdeg: skipped %d original probe(s) without an image in the build (%s)",
            count,
            status,
        )
    return plan


def _params(kind: str, level: int, work: int) -> dict[str, Any]:
    if kind == CLEAN:
        return {}
    params = degradations.parameters(kind, level)
    if kind in degradations.MODALITY_KINDS["CT"]:
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
    seed = degradations.seed_for(doc["image_file"], kind)
    return _CACHE.get(
        key,
        lambda: degradations.degrade_image(
            working_image(image), kind, level, seed, ct_work_size=work
        ).convert("RGB"),
    )


def _plurality(votes: Sequence[str | None]) -> str | None:
    counts = Counter(v for v in votes if v is not None)
    if not counts:
        return None
    best = max(counts.values())
    return min(letter for letter, n in counts.items() if n == best)  # ties to the lowest letter


def responses_of(results: Sequence[Any]) -> list[str]:
    """The ``T`` responses lmms-eval hands to process_results (a list under one filter)."""
    if len(results) == 1 and isinstance(results[0], (list, tuple)):
        results = results[0]
    out = ["" if r is None else str(r) for r in results]
    if not out:
        raise ValueError("process_results got no responses")
    return out


def answered(doc: Mapping[str, Any], responses: Sequence[str]) -> tuple[str | None, dict[str, Any]]:
    """The plurality of the valid votes (information; scoring reads the votes) and the trial fields
    of ``extra`` every MedQ-Deg record carries, of one doc answered ``T = len(responses)`` times."""
    votes = [parse_answer(r, len(doc["options"])) for r in responses]
    return _plurality(votes), {
        "condition_source": "lmms-eval",
        "degradation": doc["degradation"],
        "severity": int(doc["severity"]),
        "votes": votes,
        "responses": list(responses),
        "trials": len(votes),
        "n_options": len(doc["options"]),
        "experiment": doc.get("experiment", "calibration"),
    }


def record(
    doc: Mapping[str, Any], responses: Sequence[str], env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The per-probe record of one doc answered ``T = len(responses)`` times."""
    letter, extra = answered(doc, responses)
    kind, level = doc["degradation"], int(doc["severity"])
    extra |= {
        "item_id": doc["probe_id"],
        "image_id": doc["image_file"],
        "params": _params(kind, level, ct_work_size(env)),
    }
    if doc.get("capability"):
        extra["capability"] = doc["capability"]
    if kind != CLEAN:
        extra["seed"] = degradations.seed_for(doc["image_file"], kind)
        n = types_per_probe(env)
        extra["types_per_probe"] = "all" if n is None else n
    return probe_record(
        SUITE,
        doc,
        condition=f"L{level}",
        predicted_letter=letter,
        raw_response=responses[0],
        extra=extra,
        score=trial_share(extra["votes"], doc["correct_letter"]),
    )


def trial_share(votes: Sequence[str | None], gold: str) -> float:
    """A doc's per-doc score: the share of its T trials answered with the gold letter (Eq. 2,
    trial_mean)."""
    return sum(v == gold for v in votes) / len(votes)


def task_score(records: Iterable[Mapping[str, Any]], metric: str) -> float:
    """One headline metric of a task's records (they share one model and one level)."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    records = list(records)
    if not records:
        return float("nan")
    (model,) = score_records(records)["models"].values()
    return float(model["overall"][metric])
