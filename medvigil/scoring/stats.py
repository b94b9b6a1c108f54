"""Small statistics used by every suite: Wilson and percentile intervals, bootstrap p-values,
Spearman.

Vectorised over leading axes, numpy only (scipy costs about 0.7 s to import; :func:`spearman`
reproduces ``scipy.stats.spearmanr`` exactly).
"""

import math

import numpy as np

__all__ = [
    "Z_95",
    "bootstrap_p_value",
    "percentile_interval",
    "rankdata",
    "spearman",
    "top_k_overlap",
    "wilson_interval",
]

Z_95 = 1.959963984540054  # two-sided 95% normal quantile
PERCENTILE_METHODS = ("percentile", "harness")


def wilson_interval(successes, n, z: float = Z_95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion, in percent.

    ``centre = (p + z²/2n) / (1 + z²/n)``, ``half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)``
    (Wilson 1927), the interval used for the ROI-decay rates of MedVIGIL Appendix K.
    ``n == 0`` gives ``(nan, nan)``.

    >>> lo, hi = wilson_interval(46, 80)   # Claude Opus 4.7, step-3 refusal (Appendix K)
    >>> round(float(lo), 1), round(float(hi), 1)
    (46.6, 67.7)
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("successes must lie in [0, n]")
    safe_n = np.where(n > 0, n, 1.0)
    p = k / safe_n
    z2 = z * z
    denom = 1.0 + z2 / safe_n
    centre = (p + z2 / (2.0 * safe_n)) / denom
    half = z * np.sqrt(p * (1.0 - p) / safe_n + z2 / (4.0 * safe_n * safe_n)) / denom
    lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0) * 100.0, np.nan)
    hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0) * 100.0, np.nan)
    return lo, hi


def percentile_interval(samples, level: float = 0.95, method: str = "percentile"):
    """Two-sided percentile interval of bootstrap ``samples`` (resamples along the first axis).

    ``method="percentile"`` (paper, Appendix M): numpy's linearly interpolated
    ``(1-level)/2`` and ``(1+level)/2`` quantiles, i.e. 2.5 / 97.5 for 95%.
    ``method="harness"`` (official ``bootstrap_mcs.py``): with the ``n`` finite values
    sorted, ``lo = sorted[int(0.025 n)]`` and ``hi = sorted[int(0.975 n) - 1]``.
    NaN samples (a resample where the statistic is undefined) are ignored; a column with
    no finite sample gives ``(nan, nan)``.
    """
    if method not in PERCENTILE_METHODS:
        raise ValueError(f"method must be one of {PERCENTILE_METHODS}, got {method!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    x = np.asarray(samples, dtype=np.float64)
    alpha = (1.0 - level) / 2.0
    finite = np.isfinite(x)
    n = finite.sum(axis=0)
    xs = np.sort(np.where(finite, x, np.inf), axis=0)  # NaN/inf last
    if method == "harness":
        last = np.maximum(n - 1, 0)
        lo_i = np.clip(np.floor(alpha * n).astype(np.int64), 0, last)
        hi_i = np.clip(np.floor((1.0 - alpha) * n).astype(np.int64) - 1, 0, last)
        lo = np.take_along_axis(xs, lo_i[None, ...], axis=0)[0]
        hi = np.take_along_axis(xs, hi_i[None, ...], axis=0)[0]
    else:
        lo = _interp_sorted(xs, alpha * (n - 1))
        hi = _interp_sorted(xs, (1.0 - alpha) * (n - 1))
    return np.where(n > 0, lo, np.nan), np.where(n > 0, hi, np.nan)


def _interp_sorted(xs: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Linear interpolation at fractional index ``pos`` of sorted ``xs`` (axis 0)."""
    pos = np.maximum(np.asarray(pos, dtype=np.float64), 0.0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(xs.shape[0] - 1, 0))
    hi = np.where(pos > lo, hi, lo)
    a = np.take_along_axis(xs, lo[None, ...], axis=0)[0]
    b = np.take_along_axis(xs, hi[None, ...], axis=0)[0]
    frac = pos - lo
    with np.errstate(invalid="ignore"):
        return np.where(frac > 0, a + (b - a) * frac, a)


def bootstrap_p_value(diffs) -> np.ndarray:
    """Two-sided bootstrap p-value for "difference = 0" from resampled differences.

    ``p = min(1, 2 · (min(#{d* <= 0}, #{d* >= 0}) + 1) / (B + 1))`` over the ``B`` finite
    resamples (the ``+1`` keeps p > 0 with finitely many resamples; Davison & Hinkley
    1997, §4.4). NaN when no resample is finite.
    """
    d = np.asarray(diffs, dtype=np.float64)  # resamples along the first axis
    finite = np.isfinite(d)
    b = finite.sum(axis=0)
    le = np.sum(finite & (d <= 0), axis=0)
    ge = np.sum(finite & (d >= 0), axis=0)
    p = np.minimum(1.0, 2.0 * (np.minimum(le, ge) + 1.0) / (b + 1.0))
    return np.where(b > 0, p, np.nan)


def rankdata(values) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (``scipy.stats.rankdata`` default)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    starts = np.r_[True, xs[1:] != xs[:-1]]
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    last = np.r_[first[1:], n] - 1
    avg = (first + last) / 2.0 + 1.0
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = avg[group]
    return ranks


def spearman(x, y) -> float:
    """Spearman's rank correlation: Pearson correlation of average ranks (Table 17, Appendix N).

    Same value as ``scipy.stats.spearmanr(x, y).statistic``; NaN when fewer than two
    pairs or when either input is constant.

    >>> spearman([1, 2, 3, 4], [10, 20, 40, 30])
    0.8
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d of equal length, got {x.shape} and {y.shape}")
    if x.size < 2:
        return float("nan")
    rx = rankdata(x) - (x.size + 1) / 2.0
    ry = rankdata(y) - (y.size + 1) / 2.0
    den = np.sqrt(np.dot(rx, rx) * np.dot(ry, ry))
    if den == 0:
        return float("nan")
    return float(round(np.dot(rx, ry) / den, 15))


def t_two_sided_p(t: float, df: int) -> float:
    """``P(|T| >= |t|)`` for Student's t with integer ``df >= 1`` (``2 * scipy.stats.t.sf(|t|,
    df)``).

    Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df) give ``A = P(|T| < t)`` as a finite
    series in ``cos(theta)``, ``theta = atan(t / sqrt(df))``; the full infinite series sums to
    1, so for small ``cos`` (large ``t``) ``1 - A`` is summed directly as the tail of the series,
    which keeps small p-values to full relative precision.
    """
    t = abs(float(t))
    if math.isnan(t):
        return float("nan")
    if math.isinf(t):
        return 0.0
    theta = math.atan(t / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    odd = df % 2 == 1
    m = (df - 1) // 2 if odd else df // 2  # terms in A's finite sum
    # term k: even df: a_k c^(2k), a_k = prod_{j<=k} (2j-1)/(2j); odd df: d_k c^(2k+1), d_k =
    # prod_{j<=k} 2j/(2j+1)
    term = c if odd else 1.0

    def step(k: int) -> float:  # ratio term_k / term_(k-1)
        return (2 * k / (2 * k + 1) if odd else (2 * k - 1) / (2 * k)) * c2

    if c2 < 0.5:
        for k in range(1, m + 1):
            term *= step(k)
        tail, k = 0.0, m
        while term > 1e-17 * tail or tail == 0.0:
            tail += term
            k += 1
            term *= step(k)
            if term == 0.0:
                break
        return (2 / math.pi) * s * tail if odd else s * tail
    head = 0.0
    for k in range(m):
        head += term
        term *= step(k + 1)
    return 1.0 - ((2 / math.pi) * (theta + s * head) if odd else s * head)


def spearman_test(x, y) -> tuple[float, float]:
    """Spearman's rho and its two-sided p-value, as ``scipy.stats.spearmanr(x, y)`` computes them (t
    test with n - 2 degrees of freedom) without importing scipy; NaNs as :func:`spearman`."""
    rho = spearman(x, y)
    n = len(x)
    if math.isnan(rho) or n < 3:
        return rho, float("nan")
    if abs(rho) >= 1.0:
        return rho, 0.0
    t = rho * math.sqrt((n - 2) / ((rho + 1.0) * (1.0 - rho)))
    return rho, t_two_sided_p(t, n - 2)


def top_k_overlap(names, reference_scores, scores, k: int = 5) -> int:
    """Number of models in both top-``k`` lists (Table 17's "Top-5"; ties broken by name)."""
    names = list(names)

    def top(s):
        return {n for _, n in sorted(zip((-float(v) for v in s), names))[:k]}

    return len(top(reference_scores) & top(scores))
