"""Scoring kernels shared by every suite: columnar probe records, statistics, the bootstrap.

Modules:

- :mod:`~medvigil.scoring.table`: columnar per-probe records, their columns coded by
  :mod:`~medvigil.scoring.categorical` and checked by :mod:`~medvigil.scoring.record_columns`;
- :mod:`~medvigil.scoring.stats`: Wilson and percentile intervals, Spearman;
- :mod:`~medvigil.scoring.bootstrap`: the case-clustered bootstrap;
- :mod:`~medvigil.scoring.agreement`: Cohen's kappa;
- :mod:`~medvigil.scoring.letters`: option letters as integer codes.

Each suite's metrics live in its room, e.g. :func:`medvigil.suites.medvigil.scoring.scoring.audit`
(MedVIGIL Eqs. 2-7). Importing this package loads nothing.
"""
