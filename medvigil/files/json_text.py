"""Strict JSON for score results: NaN/inf become null, and the text is indented only near the
top."""

import json
import math
from typing import Any

_ENCODE = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False
).encode  # one encoder for every value (json.dumps builds one per call)


def finite(value: Any) -> Any:
    """``value`` with NaN/inf replaced by None (and keys made strings), so it is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`finite` ``value``: strict JSON (NaN and infinities as null)."""
    return json.dumps(finite(value), allow_nan=False, **kwargs)


def json_text(value: Any, depth: int = 3, indent: str = "") -> str:
    """Strict JSON, indented for its first ``depth`` levels only: deeper values are written by
    the C encoder on one line (``indent=`` everywhere takes the pure-Python encoder, several
    times slower on an 18-model audit)."""
    if depth == 0 or not isinstance(value, (dict, list)) or not value:
        return _ENCODE(value)
    inner = indent + "  "
    if isinstance(value, dict):
        items = [
            f"{inner}{_ENCODE(str(k))}: {json_text(v, depth - 1, inner)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    return (
        "[\n"
        + ",\n".join(f"{inner}{json_text(v, depth - 1, inner)}" for v in value)
        + f"\n{indent}]"
    )
