"""JSON Schema (draft 2020-12) files: the single source of truth for record shapes."""

from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent
