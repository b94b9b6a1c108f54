"""File safety shared by every reader and writer: strict CSV, bounded input files, paths that stay
inside their root, atomic outputs, the output guard, release digests, bulk JSON-line decoding."""
