"""Arrow columns as numpy codes, without a Python object per row (the bulk readers' shared kernels).

``to_numpy`` and ``fill_null`` with a Python value would make pyarrow import pandas (0.2 s):
these read the buffers directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

PARSER_MODULES = ("pyarrow.json", "pyarrow.compute")  # what the bulk readers' workers parse and check with


def numbers(array, dtype) -> np.ndarray:
    """A null-free arrow array of fixed-width values as numpy, without a copy."""
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array) + array.offset)[array.offset :]


def dictionary_codes(column, pc, *, null_is_value: bool = False) -> tuple[list[Any], np.ndarray]:
    """``(distinct values, int32 code per row)`` of a column, in order of first appearance. A null
    is code -1, or (``null_is_value``) a value ``None`` among the distinct ones."""
    encoded = pc.dictionary_encode(column, null_encoding="encode" if null_is_value else "mask")
    if hasattr(encoded, "combine_chunks"):  # a chunked column: one array
        encoded = encoded.combine_chunks()
    indices = encoded.indices
    codes = numbers(indices, np.int32)
    if indices.null_count:
        valid = np.unpackbits(np.frombuffer(indices.buffers()[0], dtype=np.uint8), bitorder="little")
        codes = np.where(valid[indices.offset : indices.offset + len(indices)] == 1, codes, -1).astype(np.int32)
    return encoded.dictionary.to_pylist(), codes
