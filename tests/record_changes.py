"""Change one field of a probe record (top level or ``extra.<name>``), for the columnar readers' tests."""

from __future__ import annotations

import copy
from typing import Any

DELETE = "<delete>"


def change_field(record: dict, field: str, value: Any) -> None:
    """Set ``field`` to a copy of ``value`` (``DELETE``: remove it); an ``extra.`` field of a
    record whose extra is not an object is left alone."""
    if field.startswith("extra."):
        if not isinstance(record.get("extra"), dict):
            return
        record, field = record["extra"], field.split(".", 1)[1]
    if value == DELETE:
        record.pop(field, None)
    else:
        record[field] = copy.deepcopy(value)
