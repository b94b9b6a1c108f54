"""Per-probe records, the one shape every suite scores: the constructor the task packs use, schema
checks (column-wise and per row) and the lmms-eval `--log_samples` reader."""
