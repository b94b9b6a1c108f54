"""JSON Schema (draft 2020-12) files: the single source of truth for record shapes."""

import json
from functools import cache
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent


@cache
def load_schema(name: str) -> dict:
    """Return the schema ``schemas/<name>.schema.json``."""
    path = SCHEMA_DIR / f"{name}.schema.json"
    if not path.is_file():
        known = sorted(
            p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json")
        )
        raise ValueError(f"unknown schema {name!r}; available: {', '.join(known)}")
    return json.loads(path.read_text(encoding="utf-8"))
