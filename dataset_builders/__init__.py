"""Hugging Face `datasets` builders, one sub-package per suite (importable as medvigil.builders)."""
