"""The checks that turn record columns into a :class:`~medvigil.scoring.table.RecordTable`'s
codes: letters A-Z, the ``parse_status`` enum and its agreement with the letter, tiers, suites,
booleans. Every problem names the source, the 1-based row and the field; at most
:data:`MAX_PROBLEMS` rows are listed per kind of problem, then the number of the rest."""

from collections.abc import Sequence
from typing import Any

import numpy as np

from medvigil.constants import TIERS
from medvigil.errors import DataError, Problem
from medvigil.schemas import load_schema
from medvigil.scoring.categorical import Categorical, factorize

STATUS_OK, STATUS_PARSE_FAILURE, STATUS_ERROR = 0, 1, 2
PARSE_STATUSES = ("ok", "parse_failure", "error")
# the suites a record may name: listed once, in the record schema (tests/test_house_rules.py
# holds the suite registry to it)
SUITES = tuple(load_schema("probe_record")["properties"]["suite"]["enum"])
DEFAULT_CONDITION = "default"
NO_LETTER = -1  # predicted-letter code of a parse failure or an error
MAX_PROBLEMS = 200  # rows listed per kind of problem; the number of further rows is reported


def column(values: Any, name: str, n: int) -> Any:
    """``values`` as a column of ``n`` rows: None a column of None, a string that value in every
    row; a :class:`Categorical` stays coded; a column of another length is a ValueError."""
    if values is None:
        return [None] * n
    if isinstance(values, str):
        return [values] * n
    if not isinstance(values, (Categorical, list)):
        values = list(values)
    rows = len(values.codes) if isinstance(values, Categorical) else len(values)
    if rows != n:
        raise ValueError(f"column {name!r} has {rows} rows, expected {n}")
    return values


def coded(
    given: dict[str, Any], n: int, source: str, problems: list[Problem]
) -> dict[str, Categorical]:
    """The string columns ``given`` coded (a string: one value for every row, coded without a list
    of n); names, suites and tiers checked."""
    cats: dict[str, Categorical] = {}
    for name, values in given.items():
        if isinstance(values, str):
            cats[name] = Categorical(np.zeros(n, dtype=np.int32), (values,))
        else:
            cats[name] = _strings(column(values, name, n), name, source, problems)
    for name in ("suite", "model", "case_id", "probe_kind"):
        cat = cats[name]
        flag(problems, cat.codes < 0, source, name, "must be a non-empty string, got None")
        if "" in cat.levels:
            flag(
                problems,
                cat.codes == cat.levels.index(""),
                source,
                name,
                "must be a non-empty string",
            )
    for i, lv in enumerate(cats["suite"].levels):
        if lv not in SUITES:
            flag(
                problems,
                cats["suite"].codes == i,
                source,
                "suite",
                f"unknown suite {lv!r}; expected one of {', '.join(SUITES)}",
            )
    return cats


def _strings(values: Any, name: str, source: str, problems: list[Problem]) -> Categorical:
    """A column of strings or None coded (tiers in their order); any other value a problem."""
    order = TIERS if name == "risk_tier" else None
    try:
        return factorize(values, order=order)
    except TypeError:
        for i, v in enumerate(values):
            if not (isinstance(v, str) or v is None):
                problems.append(
                    Problem(
                        file=source, row=i + 1, field=name, message=f"must be a string, got {v!r}"
                    )
                )
        return factorize(
            [v if isinstance(v, str) or v is None else repr(v) for v in values], order=order
        )


def risk_tiers(tier: Categorical, source: str, problems: list[Problem]) -> Categorical:
    """The ``risk_tier`` column with levels exactly :data:`TIERS` (other values are problems)."""
    if tier.levels == TIERS:
        return tier
    for i, lv in enumerate(tier.levels[len(TIERS) :], start=len(TIERS)):
        flag(
            problems,
            tier.codes == i,
            source,
            "risk_tier",
            f"must be one of {', '.join(TIERS)} or null, got {lv!r}",
        )
    return Categorical(np.where(tier.codes >= len(TIERS), -1, tier.codes).astype(np.int32), TIERS)


def with_default_condition(cond: Categorical) -> Categorical:
    """The ``condition`` column with a missing value read as :data:`DEFAULT_CONDITION`."""
    if not (cond.codes.size and (cond.codes < 0).any()):
        return cond
    levels = (
        cond.levels
        if "default" in cond.levels
        else tuple(sorted(cond.levels + (DEFAULT_CONDITION,)))
    )
    remap = np.array(
        [levels.index(lv) for lv in cond.levels] + [levels.index(DEFAULT_CONDITION)],
        dtype=np.int32,
    )
    return Categorical(remap[cond.codes], levels)


def statuses(
    values: Any, pred: np.ndarray, has_letter: np.ndarray, source: str, problems: list[Problem]
) -> np.ndarray:
    """The int8 ``parse_status`` codes; without a column, ``ok`` where a letter was given, else
    ``parse_failure``. A letter is given exactly when the response parsed: anything else is
    ambiguous to score, a problem."""
    if values is None:
        return np.where(pred >= 0, STATUS_OK, STATUS_PARSE_FAILURE).astype(np.int8)
    st = factorize(values, sort=False)
    expected = f"must be one of {', '.join(PARSE_STATUSES)}"
    lut = np.full(len(st.levels) + 1, STATUS_ERROR, dtype=np.int8)
    for i, lv in enumerate(st.levels):
        if lv in PARSE_STATUSES:
            lut[i] = PARSE_STATUSES.index(lv)
        else:
            flag(problems, st.codes == i, source, "parse_status", f"{expected}, got {lv!r}")
    flag(problems, st.codes < 0, source, "parse_status", f"{expected}, got None")
    status = lut[st.codes]
    valid = np.isin(st.codes, [i for i, lv in enumerate(st.levels) if lv in PARSE_STATUSES])
    flag(
        problems,
        (status == STATUS_OK) & ~has_letter,
        source,
        "predicted_letter",
        "is null but parse_status is 'ok'",
    )
    for code in (STATUS_PARSE_FAILURE, STATUS_ERROR):
        flag(
            problems,
            valid & (status == code) & has_letter,
            source,
            "predicted_letter",
            f"must be null when parse_status is {PARSE_STATUSES[code]!r}",
        )
    return status


def flag(problems: list[Problem], mask: np.ndarray, source: str, field: str, message: str) -> None:
    """One problem per row where ``mask`` holds (1-based), at most ``MAX_PROBLEMS``, then a count
    of the rest."""
    rows = np.flatnonzero(mask)
    for row in rows[:MAX_PROBLEMS].tolist():
        problems.append(Problem(file=source, row=row + 1, field=field, message=message))
    if rows.size > MAX_PROBLEMS:
        problems.append(
            Problem(
                file=source,
                field=field,
                message=f"{message}: {rows.size - MAX_PROBLEMS} more row(s) not listed",
            )
        )


def letters(
    values: Sequence[Any], field_name: str, source: str, allow_none: bool, problems: list[Problem]
) -> tuple[np.ndarray, np.ndarray]:
    """Letter column -> (int8 codes, given mask); NO_LETTER for None; invalid cells become
    problems."""
    try:
        cat = factorize(values, sort=False)
    except TypeError:  # non-string cells: report them as their repr below
        cat = factorize(
            [v if isinstance(v, str) or v is None else repr(v) for v in values], sort=False
        )
    lut = np.full(len(cat.levels) + 1, NO_LETTER, dtype=np.int8)  # last slot: missing (-1)
    for i, lv in enumerate(cat.levels):
        if isinstance(lv, str) and len(lv) == 1 and "A" <= lv <= "Z":
            lut[i] = ord(lv) - 65
        else:
            flag(
                problems, cat.codes == i, source, field_name, f"must be one letter A-Z, got {lv!r}"
            )
    if not allow_none:
        flag(problems, cat.codes < 0, source, field_name, "must be one letter A-Z, got None")
    return lut[cat.codes], cat.codes >= 0


def text_only_column(
    values: list | Categorical, source: str, problems: list[Problem]
) -> Categorical:
    if isinstance(values, Categorical) and values.levels == ("false", "true"):
        return values
    codes = np.full(len(values), -1, dtype=np.int32)
    lut = {True: 1, False: 0, None: -1}
    try:
        codes = np.fromiter(map(lut.__getitem__, values), dtype=np.int32, count=len(values))
    except (KeyError, TypeError):
        for i, v in enumerate(values):
            if v is True or v is False or v is None:
                codes[i] = lut[v]
            else:
                problems.append(
                    Problem(
                        file=source,
                        row=i + 1,
                        field="text_only_answerable",
                        message=f"must be true, false or null, got {v!r}",
                    )
                )
    return Categorical(codes, ("false", "true"))


STRING_COLUMNS = (  # coded as Categorical, in this order (the order problems are reported in)
    "suite",
    "model",
    "case_id",
    "probe_kind",
    "condition",
    "risk_tier",
    "source_dataset",
    "modality",
)


def checked_columns(given: dict[str, Any], source: str) -> dict[str, Any]:
    """A :class:`~medvigil.scoring.table.RecordTable`'s columns (its field names) from the record
    fields ``given`` (:meth:`~medvigil.scoring.table.RecordTable.from_columns`' arguments); every
    problem raised in one :class:`~medvigil.errors.DataError`."""
    case_id = given["case_id"]
    n = len(case_id.codes) if isinstance(case_id, Categorical) else len(case_id)
    problems: list[Problem] = []
    cats = coded({name: given[name] for name in STRING_COLUMNS}, n, source, problems)
    tier = risk_tiers(cats["risk_tier"], source, problems)
    text_only = text_only_column(
        column(given["text_only_answerable"], "text_only_answerable", n), source, problems
    )
    gold, _ = letters(
        column(given["correct_letter"], "correct_letter", n),
        "correct_letter",
        source,
        False,
        problems,
    )
    pred, has_letter = letters(
        column(given["predicted_letter"], "predicted_letter", n),
        "predicted_letter",
        source,
        True,
        problems,
    )
    status_values = given["parse_status"]
    if status_values is not None:
        status_values = column(status_values, "parse_status", n)
    status = statuses(status_values, pred, has_letter, source, problems)
    probe = None
    if given["probe_id"] is not None:
        probe = factorize(column(given["probe_id"], "probe_id", n), sort=False)
        flag(problems, probe.codes < 0, source, "probe_id", "must be a non-empty string, got None")
    if problems:
        raise DataError(problems)
    return {
        "suite": cats["suite"],
        "model": cats["model"],
        "condition": with_default_condition(cats["condition"]),
        "probe_kind": cats["probe_kind"],
        "risk_tier": tier,
        "source_dataset": cats["source_dataset"],
        "modality": cats["modality"],
        "text_only": text_only,
        "case": cats["case_id"],
        "gold": gold,
        "pred": pred,
        "status": status,
        "probe": probe,
    }
