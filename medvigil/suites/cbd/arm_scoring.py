"""The quadrant scoring of one arm's checked records (generative, binary or proposed-answer), by
the core of :mod:`medvigil.suites.cbd.scoring`: the quadrant tables, the image arm alone, and the
letter codes and quadrant flags of the samples that the bootstrap and ``compare`` resample."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.suites.cbd.arms import (
    ARMS,
    BINARY_ARMS,
    ORIGINAL_KIND,
    PARAPHRASE_KINDS,
    PROPOSED_ARMS,
)
from medvigil.suites.cbd.records import check_records
from medvigil.suites.cbd.scoring import (
    case_parts,
    classify_codes,
    letter_codes,
    paraphrase_rows,
    quadrant_scores,
    score_records,
)


def quadrant_table(
    records: Iterable[Mapping[str, Any]], *, invalid: str = "exclude"
) -> dict[str, dict[str, Any]]:
    """Per model: quadrant counts and fractions, flip rate (Eq. 3), Dangerous fraction (Eq. 4),
    image-reliance rate and accuracy per quadrant (Table 2), from the records of both arms (the
    ``cbd_image`` and ``cbd_noimg`` logs, or ``cbd_quadrants``), by
    :func:`medvigil.suites.cbd.scoring.score_records`."""
    return arm_table(check_records(records), ARMS, invalid)


def binary_table(
    records: Iterable[Mapping[str, Any]], *, invalid: str = "exclude"
) -> dict[str, dict[str, Any]]:
    """:func:`quadrant_table` of the binary arm (with mean entropy per quadrant from p(yes)): the
    presence questions', or the proposed-answer variant's when the records are of that one only."""
    checked = check_records(records)
    proposed = bool(checked) and all(r["condition"] in PROPOSED_ARMS.values() for r in checked)
    return arm_table(checked, PROPOSED_ARMS if proposed else BINARY_ARMS, invalid)


def arm_table(
    checked: list[Mapping[str, Any]],
    arms: Mapping[str, str],
    invalid: str,
    incomplete: str = "drop",
) -> dict[str, dict[str, Any]]:
    """:func:`quadrant_table` or :func:`binary_table` (``arms``) of checked records; a case lacking
    a part is left out and counted (a run cut by ``--limit``) or, with ``incomplete="error"``, an
    error."""
    wanted = frozenset(arms.values())
    return score_records(
        [r for r in checked if r["condition"] in wanted],
        original_kind=ORIGINAL_KIND,
        paraphrase_kinds=PARAPHRASE_KINDS,
        image_condition=arms["image"],
        text_only_condition=arms["noimg"],
        invalid=invalid,
        incomplete=incomplete,
    )


def image_arm_summary(
    records: Iterable[Mapping[str, Any]], *, invalid: str = "exclude"
) -> dict[str, Any]:
    """Flip rate (Eq. 3) and accuracy of ``q`` from the image arm alone (one model); Eq. 1 needs no
    text-only prediction, so the image predictions fill that slot of :func:`quadrant_scores` and
    only Eq. 1's outputs are kept."""
    image_arm = [r for r in check_records(records) if r["condition"] == ARMS["image"]]
    cases, _ = case_parts(
        image_arm,
        str(image_arm[0]["model"]) if image_arm else "",
        original_kind=ORIGINAL_KIND,
        paraphrase_kinds=PARAPHRASE_KINDS,
        image_condition=ARMS["image"],
        text_only_condition=ARMS["noimg"],
        incomplete="drop",
    )
    # a case without its original or a paraphrase (cut by lmms-eval's --limit) is left out and
    # counted
    whole = [c for c in cases.values() if "orig" in c and c["para"]]
    origs = [c["orig"]["predicted_letter"] for c in whole]
    out = quadrant_scores(
        origs,
        [[p["predicted_letter"] for p in c["para"]] for c in whole],
        origs,
        [c["orig"]["correct_letter"] for c in whole],
        invalid=invalid,
    )
    cut = {"n_incomplete_cases": len(cases) - len(whole)} if len(whole) < len(cases) else {}
    return {
        **{k: out[k] for k in ("n_samples", "n_evaluable", "n_excluded", "flip_rate", "accuracy")},
        **cut,
    }


def arm_codes(cases: Mapping[str, Mapping[str, Any]], ids: Sequence[str]) -> dict[str, Any]:
    """Samples ``ids`` of :func:`medvigil.suites.cbd.scoring.case_parts` as letter codes (``A`` = 0,
    invalid = -1): the (image, q) answer ``orig``, the text-only answer ``text``, the ``gold``, and
    every paraphrase answer ``para`` sample by sample (``lengths[i]`` of them for sample ``i``) with
    its ``phenomena``."""
    orig = [cases[c]["orig"] for c in ids]
    paras = [p for c in ids for p in cases[c]["para"]]
    return {
        "orig": letter_codes([r.get("predicted_letter") for r in orig], "predictions"),
        "text": letter_codes(
            [cases[c]["text"].get("predicted_letter") for c in ids], "text_only_predictions"
        ),
        "gold": letter_codes([r["correct_letter"] for r in orig], "references"),
        "para": letter_codes([p.get("predicted_letter") for p in paras], "paraphrase_predictions"),
        "lengths": np.fromiter(
            (len(cases[c]["para"]) for c in ids), dtype=np.int64, count=len(ids)
        ),
        "phenomena": [
            str((p.get("extra") or {}).get("phenomenon") or p.get("probe_kind")) for p in paras
        ],
    }


def arm_flags(
    codes: Mapping[str, Any], invalid: str, ks: Any = slice(None)
) -> dict[str, np.ndarray]:
    """:func:`classify_codes` of the samples ``ks`` (all by default) of :func:`arm_codes`."""
    para_sample = np.repeat(np.arange(codes["lengths"].size), codes["lengths"])
    para = codes["para"][np.isin(para_sample, np.arange(codes["lengths"].size)[ks])]
    return classify_codes(
        codes["orig"][ks],
        paraphrase_rows(para, codes["lengths"][ks]),
        codes["text"][ks],
        invalid=invalid,
    )
