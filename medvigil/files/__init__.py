"""File safety shared by every reader and writer: strict CSV, bounded input files, paths that stay
inside their root, atomic outputs (with the steps a signal must not cut held), the output guard,
release digests, bulk JSON-line decoding."""
