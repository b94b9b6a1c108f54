"""The binary arm's checks per quadrant (seed 004, Sec. 5 and Table 3): p(yes) with and without the
image, one example, the null-image and image-swap invariance, and the KL image-reliance check."""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from medvigil.suites.cbd.arms import BINARY_CHOICES
from medvigil.suites.cbd.scoring import QUADRANTS

#: how an infinite mean KL is written in a result (JSON has no infinity): :func:`kl_check`
INFINITE_KL = "inf"


def _rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


def _mean(values: Sequence[float]) -> float | None:
    return float(sum(values) / len(values)) if values else None


def _same(case: Mapping[str, Any], record: Mapping[str, Any]) -> bool:
    return record.get("predicted_letter") == case["orig"].get("predicted_letter")


def binary_by_quadrant(
    cases: Mapping[str, Mapping[str, Any]],
    ids: Sequence[str],
    quad: Sequence[int],
    arms: Mapping[str, str],
) -> dict[str, dict[str, Any]]:
    """Per quadrant of the samples ``ids`` (``quad``: their quadrant codes): mean p(yes) with and
    without the image, the null-image and image-swap invariance (``arms``: the binary form's
    conditions) and one example (Table 3)."""
    per_q: dict[str, dict[str, Any]] = {}
    for q_index, q_name in enumerate(QUADRANTS):
        mine = [c for c, q in zip(ids, quad) if q == q_index]
        py_img = [cases[c]["orig"]["extra"]["p_yes"] for c in mine]
        py_txt = [cases[c]["text"]["extra"]["p_yes"] for c in mine]
        entry: dict[str, Any] = {
            "n": len(mine),
            "mean_p_yes_image": _mean(py_img),
            "mean_p_yes_text": _mean(py_txt),
            **_invariance(cases, mine, arms),
        }
        if mine:
            entry["example"] = _example(mine[0], cases[mine[0]])
        per_q[q_name] = entry
    return per_q


def _invariance(
    cases: Mapping[str, Mapping[str, Any]], mine: Sequence[str], arms: Mapping[str, str]
) -> dict[str, Any]:
    """The share of samples ``mine`` whose answer to q is unchanged under the null image, and under
    all of their swapped images (and per swapped image)."""
    null = [c for c in mine if arms["null"] in cases[c]]
    entry: dict[str, Any] = {
        "null_invariant": _rate(
            sum(_same(cases[c], cases[c][arms["null"]][-1]) for c in null), len(null)
        ),
        "n_null": len(null),
    }
    swapped = [c for c in mine if cases[c].get(arms["swap"])]
    entry["swap_invariant"] = _rate(
        sum(all(_same(cases[c], r) for r in cases[c][arms["swap"]]) for c in swapped),
        len(swapped),
    )
    each = [_same(cases[c], r) for c in swapped for r in cases[c][arms["swap"]]]
    entry["swap_invariant_per_image"] = _rate(sum(each), len(each))
    entry["n_swap"], entry["n_swap_images"] = len(swapped), len(each)
    return entry


def _example(case_id: str, case: Mapping[str, Any]) -> dict[str, Any]:
    """One sample's question, answers and p(yes) with and without the image, and its label."""
    o, t = case["orig"], case["text"]
    return {
        "case_id": case_id,
        "question": o["extra"].get("question") or o.get("raw_question") or "",
        "image": BINARY_CHOICES["AB".index(o["predicted_letter"])],
        "text": BINARY_CHOICES["AB".index(t["predicted_letter"])],
        "p_yes_image": o["extra"]["p_yes"],
        "p_yes_text": t["extra"]["p_yes"],
        "gt": o["extra"]["label"],
    }


def binary_kl(p_image: Any, p_text: Any) -> np.ndarray:
    """KL(P_image || P_text) in nats between the yes/no distributions of q with and without the
    image (Sec. 5), per sample; 0 log 0 = 0."""
    from scipy.special import rel_entr

    p, q = np.asarray(p_image, dtype=float), np.asarray(p_text, dtype=float)
    return rel_entr(p, q) + rel_entr(1.0 - p, 1.0 - q)


def kl_check(
    p_image: Sequence[float], p_text: Sequence[float], quadrants: Sequence[str | None]
) -> dict[str, Any]:
    """Sec. 5's image-reliance check: per-sample KL (:func:`binary_kl`), its mean per quadrant, and
    the AUROC (Mann-Whitney U of -KL, ties one half) of a low KL for Dangerous samples against Ideal
    ones (the paper's "mean KL: Dangerous vs. Ideal") and against all others; ``None`` without
    samples of both kinds.

    KL is infinite where the text-only p(yes) is exactly 0 or 1 and the image one is not (the image
    gives mass to an answer the text rules out); JSON has no infinity, so such a quadrant's mean is
    the string :data:`INFINITE_KL` (``"inf"``) and ``n_infinite_kl`` counts its infinite samples (0
    elsewhere).

    >>> kl_check([0.5, 0.5], [1.0, 0.5], ["Ideal", "Dangerous"])["mean_kl"]["Ideal"]
    'inf'
    """
    from scipy.stats import mannwhitneyu

    kl = binary_kl(p_image, p_text)
    quad = np.array([q or "" for q in quadrants], dtype=object)

    def auroc(negatives: np.ndarray) -> float | None:
        pos, neg = -kl[quad == "Dangerous"], -kl[negatives]
        if not (pos.size and neg.size):
            return None
        return float(mannwhitneyu(pos, neg).statistic / (pos.size * neg.size))

    infinite = {q: int(np.isinf(kl[quad == q]).sum()) for q in QUADRANTS}
    return {
        "mean_kl": {
            q: INFINITE_KL if infinite[q] else _mean(kl[quad == q].tolist()) for q in QUADRANTS
        },
        "n_infinite_kl": infinite,
        "auroc_dangerous_vs_ideal": auroc(quad == "Ideal"),
        "auroc_dangerous_vs_rest": auroc((quad != "Dangerous") & (quad != "")),
        "n": int((quad != "").sum()),
    }
