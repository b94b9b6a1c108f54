"""Spearman's test without scipy (:func:`medvigil.scoring.stats.spearman_test`) against scipy."""

import pytest


def test_spearman_test_matches_scipy():
    """The MedQ-Deg inter-model Spearman test no longer imports scipy (0.3–0.7 s); same numbers."""
    import math

    import numpy as np
    from scipy import stats

    from medvigil.scoring.stats import spearman_test, t_two_sided_p

    for df in range(1, 30):
        for t in (0.0, 1e-6, 0.3, 1.0, 2.5, 7.0, 40.0, 1e4):
            assert t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9, abs=0)
    rng = np.random.default_rng(0)
    for n in range(3, 20):
        x, y = rng.normal(size=n), rng.normal(size=n)
        y = np.round(x + y) if n % 3 == 0 else x + y  # ties too
        rho, p = spearman_test(x, y)
        ref = stats.spearmanr(x, y)
        assert rho == pytest.approx(ref.statistic, abs=1e-12) and p == pytest.approx(
            ref.pvalue, rel=1e-9
        )
    assert spearman_test([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(
        (0.8, 0.2)
    )  # hand: d = (0,1,1,0), 1 - 6·2/60
    assert spearman_test([1, 2, 3], [3, 2, 1]) == (-1.0, 0.0)
    assert math.isnan(spearman_test([1, 1, 1], [1, 2, 3])[1])
