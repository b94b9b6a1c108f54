"""Reading the published release: layout facts, CSV/JSON readers, records, loading for scoring."""
