"""MediConfusion (Sepehri et al., NeurIPS 2024 workshop): release reading, synthetic pairs, export, scoring.

Importing this package only defines names. Data: ``release`` (strict reader of the authors'
``dataset.json`` / ``.csv``), ``synthetic`` (phantom stand-in), ``export`` (the Hub-ready folder),
``dataset_configs`` / ``dataset_rows`` (what the `datasets` builder and the export serve), ``data``
(``MEDICONFUSION_DATA``). Evaluation: ``prompts`` and ``modes`` (MC, GD, PS, FF: the authors'
prompts, MC parser, prefix-score normalisation and free-form judges). Scoring, implemented nowhere
else: ``answers`` (the vote rule), ``categories``, ``scoring`` (set / individual accuracy,
confusion, invalid), ``record_scoring`` (probe records by pair), ``mode_summary`` (Table 1 "Best").
"""
