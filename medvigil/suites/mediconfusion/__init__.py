"""MediConfusion (Sepehri et al., NeurIPS 2024 workshop): release reading, synthetic pairs, export.

Modules (import what you need; importing this package only defines names):

- :mod:`~medvigil.suites.mediconfusion.release` - strict reader of the authors' ``dataset.json`` /
  ``dataset.csv`` (one :class:`~medvigil.suites.mediconfusion.release.Pair` per confusing pair).
- :mod:`~medvigil.suites.mediconfusion.synthetic` - deterministic synthetic pairs in the authors'
  layout, with phantom images standing in for ROCO.
- :mod:`~medvigil.suites.mediconfusion.export` - the Hub-ready folder (Parquet, card, Croissant).
- :mod:`~medvigil.suites.mediconfusion.dataset_configs` / :mod:`~medvigil.suites.mediconfusion.dataset_rows` -
  the configs, features and rows that the `datasets` builder and the export both serve.
- :mod:`~medvigil.suites.mediconfusion.data` - where the built dataset is (``MEDICONFUSION_DATA``).
- :mod:`~medvigil.suites.mediconfusion.prompts` - the prompts and token limits of the four modes: the
  authors' (default) and medvigil 0.1's.
- :mod:`~medvigil.suites.mediconfusion.modes` - the four evaluation modes (MC, GD, PS, FF): answer
  extraction (the authors' MC parser), prefix-score normalisation and the free-form judges.

Scoring (nothing else re-implements it):

- :mod:`~medvigil.suites.mediconfusion.answers` - the two options and the authors' vote rule.
- :mod:`~medvigil.suites.mediconfusion.categories` - the nine categories and the category count matrix.
- :mod:`~medvigil.suites.mediconfusion.scoring` - set / individual accuracy, confusion, invalid
  (:func:`~medvigil.suites.mediconfusion.scoring.score_pairs`, one row per image: ``score_rows``).
- :mod:`~medvigil.suites.mediconfusion.record_scoring` - probe records paired by image and scored.
- :mod:`~medvigil.suites.mediconfusion.mode_summary` - mode labels and the best over modes (Table 1 "Best").
"""
