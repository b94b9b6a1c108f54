"""lmms-eval task packs, one folder per suite (importable as medvigil.tasks)."""
