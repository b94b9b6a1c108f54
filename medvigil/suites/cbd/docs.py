"""The lmms-eval docs of the generative arm of Consistent but Dangerous (seed 004) on MedVIGIL data.

A *sample* (Sec. 3.1) is one MedVIGIL case: its ``original`` MCQ probe asked with the image (``q``),
with every paraphrase ``q'`` (Eq. 1; :mod:`medvigil.suites.cbd.paraphrases`), and once without the
image (Eq. 2). Text-only arm: the original question only, image withheld (Sec. 3.2 "a standard
forward pass with the image omitted entirely"; Sec. 5 "exactly one additional forward pass per
sample"). The task pack ``tasks/cbd`` is a thin face over this module (no lmms-eval import here).
"""

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from medvigil.mcq.adapter import load_mcq
from medvigil.suites.cbd.arms import (
    ARMS,
    ORIGINAL_KIND,
    RELEASE_PARAPHRASE_KIND,
    SUPPLIED_KIND,
    TEMPLATE_KIND,
    WITHHELD,
)
from medvigil.suites.cbd.paraphrases import (
    PARAPHRASE_SETS,
    PARAPHRASES_ENV,
    paraphrase_set,
    paraphrase_setting,
)

log = logging.getLogger("medvigil.cbd")

#: the ``mcq`` columns the docs are planned from
MCQ_COLUMNS = (
    "probe_id",
    "probe_kind",
    "case_id",
    "question",
    "options",
    "correct_letter",
    "image_status",
)


def required_field(row: Mapping, name: str, where: str):
    """``row[name]``; missing or ``None`` is an error naming ``where`` and the field."""
    if name not in row or row[name] is None:
        raise ValueError(f"{where}: field {name!r} is missing")
    return row[name]


def _keeps_answer(para: Mapping, orig: Mapping, case: str, label: str, what: str) -> None:
    for name in ("options", "correct_letter"):
        if list(required_field(para, name, f"case {case} {label}")) != list(
            required_field(orig, name, f"case {case} original")
        ):
            raise ValueError(
                f"case {case!r}: {what} changes field {name!r}; a paraphrase must keep it"
            )


def _supplied_plans(
    rows: Sequence[Mapping[str, Any]],
    case: str,
    i: int,
    extra: list[Mapping[str, Any]],
    arms: list[str],
) -> list[tuple[int, dict]]:
    """A case's docs with its supplied paraphrase rows (``extra``, in row order) as the set."""
    orig = rows[i]
    if not extra:
        raise ValueError(
            f"case {case!r}: no supplied paraphrase (rows of field 'probe_kind' {SUPPLIED_KIND!r}) "
            f"with {PARAPHRASES_ENV}=supplied"
        )
    for para in extra:
        _keeps_answer(para, orig, case, "paraphrase", f"paraphrase {para.get('probe_id')!r}")
    items = [(0, ORIGINAL_KIND, orig)] + [
        (k, "supplied", para) for k, para in enumerate(extra, start=1)
    ]
    return [
        (
            i,
            {
                "probe_id": row["probe_id"],
                "probe_kind": ORIGINAL_KIND if index == 0 else SUPPLIED_KIND,
                "question": str(required_field(row, "question", f"case {case}")).strip(),
                "condition": ARMS[arm],
                "paraphrase_index": index,
                "paraphrase_source": source,
            },
        )
        for arm in arms
        for index, source, row in items[: 1 if arm == "noimg" else None]
    ]


def _template_plans(
    rows: Sequence[Mapping[str, Any]],
    case: str,
    i: int,
    para: Mapping[str, Any] | None,
    arms: list[str],
) -> list[tuple[int, dict]]:
    """A case's docs with the templates' paraphrase set (and the release's ``tcf`` probe)."""
    orig = rows[i]
    # other datasets (the adapter) have no release paraphrase: templates only
    if para is not None:
        _keeps_answer(para, orig, case, "tcf", "the tcf paraphrase")
    q = required_field(orig, "question", f"case {case} original")
    plans: list[tuple[int, dict]] = []
    for arm in arms:
        # text-only arm: q only (Sec. 3.2, Eq. 2); image arm: q and every q' (Eq. 1)
        items = paraphrase_set(q, None if para is None else para["question"])[
            : 1 if arm == "noimg" else None
        ]
        for index, source, text in items:
            probe_id = (
                orig["probe_id"]
                if index == 0
                else para["probe_id"]
                if index == 1
                else f"{case}-paraphrase-{source}"
            )
            kind = source if index < 2 else TEMPLATE_KIND
            plans.append(
                (
                    i,
                    {
                        "probe_id": probe_id,
                        "probe_kind": kind,
                        "question": text,
                        "condition": ARMS[arm],
                        "paraphrase_index": index,
                        "paraphrase_source": source,
                    },
                )
            )
    return plans


def _case_rows(rows: Sequence[Mapping[str, Any]], paraphrases: str):
    """Per case: its original probe's row index, its ``tcf`` row, its supplied paraphrase rows
    (``paraphrases="supplied"``), and the cases whose image is withheld."""
    originals: dict[str, int] = {}
    tcf: dict[str, Mapping] = {}
    supplied: dict[str, list[Mapping[str, Any]]] = {}
    withheld: set[str] = set()
    for i, row in enumerate(rows):
        kind = required_field(row, "probe_kind", f"mcq row {i}")
        if paraphrases == "supplied" and kind in (RELEASE_PARAPHRASE_KIND, SUPPLIED_KIND):
            supplied.setdefault(str(required_field(row, "case_id", f"mcq row {i}")), []).append(row)
            continue
        if kind not in (ORIGINAL_KIND, RELEASE_PARAPHRASE_KIND):
            continue
        case = str(required_field(row, "case_id", f"mcq row {i}"))
        if row.get("image_status") == WITHHELD:
            withheld.add(case)
        slot = originals if kind == ORIGINAL_KIND else tcf
        if case in slot:
            raise ValueError(
                f"mcq row {i}: case {case!r} has two {kind!r} probes (field 'probe_kind')"
            )
        slot[case] = i if kind == ORIGINAL_KIND else row
    return originals, tcf, supplied, withheld


def plan_docs(
    rows: Sequence[Mapping[str, Any]], arms: Iterable[str], paraphrases: str = "templates"
) -> list[tuple[int, dict]]:
    """The docs of the given arms as ``(row index of the case's original probe, overrides)`` from
    MedVIGIL ``mcq`` rows (``probe_id``, ``probe_kind``, ``case_id``, ``question``, ``options``,
    ``correct_letter``, optionally ``image_status``). Cases whose image is withheld are skipped in
    both arms. ``paraphrases``: ``templates`` or ``supplied``
    (:mod:`medvigil.suites.cbd.paraphrases`)."""
    arms = list(arms)
    for arm in arms:
        if arm not in ARMS:
            raise ValueError(f"arm must be one of {', '.join(ARMS)}, got {arm!r}")
    if paraphrases not in PARAPHRASE_SETS:
        raise ValueError(
            f"paraphrases must be one of {', '.join(PARAPHRASE_SETS)}, got {paraphrases!r}"
        )
    originals, tcf, supplied, withheld = _case_rows(rows, paraphrases)
    if withheld:
        log.warning("cbd: skipped %d case(s) whose credentialed image is withheld", len(withheld))
    plans: list[tuple[int, dict]] = []
    for case, i in originals.items():
        if case in withheld:
            continue
        if paraphrases == "supplied":
            plans += _supplied_plans(rows, case, i, supplied.get(case, []), arms)
        else:
            plans += _template_plans(rows, case, i, tcf.get(case), arms)
    return plans


def load_planned_docs(
    columns: Sequence[str], desc: str, plan: Callable[[list[dict]], list[tuple[int, dict]]]
):
    """The docs ``plan(rows)`` makes of the built MedVIGIL ``mcq`` config (``MEDVIGIL_DATA``)."""
    data = load_mcq()  # MedVIGIL mcq, or any dataset through MEDVIGIL_MCQ_ADAPTER
    plans = plan(
        data.select_columns([c for c in dict.fromkeys(columns) if c in data.column_names]).to_list()
    )
    if not plans:
        raise ValueError(
            "cbd: the mcq config yields no askable case (all "
            "images withheld, or no original probes)"
        )
    overrides = [o for _, o in plans]
    return data.select([i for i, _ in plans]).map(
        lambda _, k: overrides[k], with_indices=True, desc=desc
    )


def load_docs(arms: Iterable[str]):
    """The docs of the given arms from the built MedVIGIL ``mcq`` config (``MEDVIGIL_DATA``)."""
    return load_planned_docs(
        MCQ_COLUMNS, "cbd paraphrase set", lambda rows: plan_docs(rows, arms, paraphrase_setting())
    )
