"""MediConfusion (Sepehri et al., NeurIPS 2024 workshop): release reading, synthetic pairs, export.

Modules (import what you need; importing this package only defines names):

- :mod:`~medvigil.mediconfusion.release` - strict reader of the authors' ``dataset.json`` /
  ``dataset.csv`` (one :class:`~medvigil.mediconfusion.release.Pair` per confusing pair).
- :mod:`~medvigil.mediconfusion.synthetic` - deterministic synthetic pairs in the authors'
  layout, with phantom images standing in for ROCO.
- :mod:`~medvigil.mediconfusion.export` - the Hub-ready folder (Parquet, card, Croissant).
- :mod:`~medvigil.mediconfusion.data` - where the built dataset is (``MEDICONFUSION_DATA``).
- :mod:`~medvigil.mediconfusion.prompts` - the prompts and token limits of the four modes: the
  authors' (default) and medvigil 0.1's.
- :mod:`~medvigil.mediconfusion.modes` - the four evaluation modes (MC, GD, PS, FF): answer
  extraction (the authors' MC parser), prefix-score normalisation and the free-form judges.

Scoring (set / individual accuracy, confusion, invalid) is
:mod:`medvigil.scoring.mediconfusion`; nothing here re-implements it.
"""
