"""Short model names for the report's tables and figures, with a legend.

lmms-eval names a run's model by its every argument, which swamps a figure's axis; names longer than
:data:`MAX_NAME` show the weights they name (else an ellipsis), and the report lists each with the
full one.
"""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from medvigil.runs.lmms_run import short_model_name

MAX_NAME = 28
_MODEL_ARGS = re.compile(r"^(?P<model>[\w.-]+)\((?P<args>.*)\)$")


def short_names(names: Iterable[str]) -> dict[str, str]:
    """Full name -> short name, for the names longer than :data:`MAX_NAME` (each short name unique
    among all ``names``).

    >>> short_names(["grounded",
    ...              "qwen2_5_vl(pretrained=Qwen/Qwen2.5-VL-7B-Instruct,max_pixels=12845056)"])
    {'qwen2_5_vl(pretrained=Qwen/Qwen2.5-VL-7B-Instruct,max_pixels=12845056)': 'Qwen2.5-VL-7B-Instruct'}
    """  # noqa: E501
    names = list(dict.fromkeys(names))
    taken = {n for n in names if len(n) <= MAX_NAME}
    out: dict[str, str] = {}
    for name in names:
        if len(name) <= MAX_NAME:
            continue
        match = _MODEL_ARGS.match(name)
        short = short_model_name(match["model"], match["args"]) if match else name
        if len(short) > MAX_NAME:
            short = short[: MAX_NAME - 1] + "…"
        base, n = short, 2
        while short in taken:
            short, n = f"{base} ({n})", n + 1
        taken.add(short)
        out[name] = short
    return out


def renamed(value: Any, names: Mapping[str, str]) -> Any:
    """``value`` (a score result) with every long name replaced by its short one, in keys and
    strings (``"<model> [binary]"`` included)."""
    if not names:
        return value
    if isinstance(value, str):
        for full in sorted(names, key=len, reverse=True):
            if full in value:
                value = value.replace(full, names[full])
        return value
    if isinstance(value, dict):
        return {renamed(k, names): renamed(v, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(renamed(v, names) for v in value)
    return value
