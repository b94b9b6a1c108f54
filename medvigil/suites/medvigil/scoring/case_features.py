"""The per-case feature tensor ``T[case, model, feature]`` (:class:`Layout`): one condition's
records reduced once to counts per case and model; every metric is a function of sums of ``T`` over
cases (:mod:`.metric_sums`)."""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from medvigil.errors import DataError, Problem
from medvigil.scoring.categorical import Categorical
from medvigil.scoring.record_columns import STATUS_ERROR, STATUS_PARSE_FAILURE
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.release.release_format import PROBE_KINDS, TIERS
from medvigil.suites.medvigil.scoring.axes import TRIPLET_KINDS

STRATA_AXES = ("risk_tier", "source_dataset", "modality", "text_only_answerable")
UNKNOWN_LEVEL = "unknown"


class Layout:
    """Columns of the feature tensor: the ``n_stat`` statistics the metrics and bootstrap read
    (scored and correct per kind, traps and silent failures per tier, PCons pairs, triplets), then
    records, parse failures, errors per kind."""

    def __init__(self, kinds: Sequence[str]):
        self.kinds = tuple(kinds)
        self.k = k = len(self.kinds)
        self._positions = {
            name: i for i, name in enumerate(self.kinds)
        }  # (looked up for every block of the report)
        self.trap_n = 2 * k  # + tier index
        self.trap_silent = 2 * k + len(TIERS)  # + tier index
        self.pcons_n = 2 * k + 2 * len(TIERS)
        self.pcons_agree = self.pcons_n + 1
        self.tri_n, self.tri_coh = self.pcons_n + 2, self.pcons_n + 3
        self.n_stat = self.pcons_n + 4
        self.n_features = self.n_stat + 3 * k

    def kind(self, name: str) -> int | None:
        return self._positions.get(name)

    def scored(self, i: int) -> int:
        return i

    def correct(self, i: int) -> int:
        return self.k + i

    def records(self, i: int) -> int:
        return self.n_stat + i

    def parse_failures(self, i: int) -> int:
        return self.n_stat + self.k + i

    def errors(self, i: int) -> int:
        return self.n_stat + 2 * self.k + i


@dataclass(frozen=True)
class Features:
    tensor: np.ndarray  # (n_cases, n_models, n_features) float64 counts
    layout: Layout
    models: tuple[str, ...]
    cases: tuple[str, ...]
    case_attrs: dict[str, Categorical]  # per-case codes for each strata axis
    traps_without_tier: np.ndarray  # (n_models,)
    incomplete_triplets: np.ndarray  # (n_models,)
    harness: bool = False  # built with harness_compatible=True
    # harness mode: per model code, its case indices in order of first scored row (the case
    # list bootstrap_mcs.py resamples), and the model codes in order of first row (its stream order)
    frames: tuple[np.ndarray, ...] | None = None
    stream_order: tuple[int, ...] | None = None

    @cached_property
    def totals(self) -> np.ndarray:
        """``(n_models, n_features)``: the tensor summed over cases (the headline sums; computed
        once)."""
        return self.tensor.sum(axis=0)

    @cached_property
    def has_case(self) -> np.ndarray:
        """``(n_cases, n_models)`` bool: the model has records of the case (computed once)."""
        lay = self.layout
        return self.tensor[:, :, lay.records(0) : lay.records(0) + lay.k].sum(-1) > 0


def _case_attribute(
    cat: Categorical, case: np.ndarray, n_cases: int, cases: tuple[str, ...], name: str
) -> Categorical:
    """One code per case; a case whose records disagree on the attribute is a DataError."""
    valid = cat.codes >= 0
    out = np.full(n_cases, -1, dtype=np.int32)
    out[case[valid]] = cat.codes[valid]
    bad = np.flatnonzero(valid & (cat.codes != out[case]))
    if bad.size:
        first_row: dict[int, int] = {}  # per conflicting case, its first conflicting row
        for row in bad.tolist():
            first_row.setdefault(int(case[row]), row)
        raise DataError(
            [
                Problem(
                    file="<records>",
                    field=name,
                    message=f"case {cases[c]!r} has conflicting {name} values "
                    f"{cat.levels[cat.codes[row]]!r} and {cat.levels[out[c]]!r}",
                )
                for c, row in list(first_row.items())[:50]
            ]
        )
    return Categorical(out, cat.levels)


def _one_per_case(
    per_case: np.ndarray, what: str, models: Sequence[str], cases: Sequence[str]
) -> None:
    """DataError unless every (case, model) has at most one scored ``what`` record (``per_case``:
    their counts)."""
    counts = per_case.T.ravel()  # (model, case) order
    dup = np.flatnonzero(counts > 1)
    if dup.size:
        problems = []
        for key in dup[:50].tolist():
            m, c = divmod(key, len(cases))
            problems.append(
                Problem(
                    file="<records>",
                    field="probe_kind",
                    message=f"model {models[m]!r}, case {cases[c]!r}: {int(counts[key])} "
                    f"{what!r} records in one condition; pairing needs at most one per "
                    f"case",
                )
            )
        raise DataError(problems)


def case_features(tab: RecordTable, harness_compatible: bool) -> Features:
    """The feature tensor of ``tab``, one condition's records (``harness_compatible``: the
    harness's error rows and PCons), with each case's strata attributes."""
    models = tab.model.levels
    # clusters: the cases that have records in this table (levels may hold cases seen only
    # in other conditions); compacting keeps the level order, so codes stay canonical
    used = np.bincount(tab.case.codes, minlength=len(tab.case.levels)) > 0
    remap = np.cumsum(used) - 1
    cases = tuple(lv for lv, u in zip(tab.case.levels, used.tolist()) if u)
    m_n, c_n = len(models), len(cases)
    lay, kind = _kind_layout(tab)
    model = tab.model.codes
    case = remap[tab.case.codes]  # int64
    slot = case * m_n + model  # one slot per (case, model): the tensor's first two axes, flattened
    scored = tab.scored_mask(harness_compatible)
    tier = tab.risk_tier.codes
    trap_i = lay.kind("halluc_trap")
    is_trap = (kind == trap_i) if trap_i is not None else np.zeros(len(tab), dtype=bool)
    tensor = _count_tensor(tab, lay, kind, slot, scored, is_trap & scored & (tier >= 0), c_n, m_n)
    rows = (kind, slot, scored, tab.pred)
    _add_pcons(tensor, lay, rows, harness_compatible, models, cases)
    incomplete = _add_triplets(tensor, lay, models, cases)
    attrs = _case_attributes(tab, case, cases)
    no_tier = np.bincount(model[is_trap & scored & (tier < 0)], minlength=m_n).astype(float)
    frames = order = None
    if harness_compatible:
        frames, order = harness_frames(model[scored], case[scored], m_n, c_n)
    return Features(
        tensor, lay, models, cases, attrs, no_tier, incomplete, harness_compatible, frames, order
    )


def _kind_layout(tab: RecordTable) -> tuple[Layout, np.ndarray]:
    """The layout of ``tab``'s probe kinds (the paper's in their order, then the rest sorted) and
    each row's kind index in it."""
    levels = [tab.probe_kind.levels[i] for i in tab.probe_kind.used_codes().tolist()]
    canonical = [k for k in PROBE_KINDS + TRIPLET_KINDS if k in levels]
    lay = Layout(canonical + sorted(k for k in levels if k not in canonical))
    kmap = np.full(len(tab.probe_kind.levels), -1, dtype=np.int64)
    for i, name in enumerate(lay.kinds):
        kmap[tab.probe_kind.levels.index(name)] = i
    return lay, kmap[tab.probe_kind.codes]


def _count_tensor(
    tab: RecordTable,
    lay: Layout,
    kind: np.ndarray,
    slot: np.ndarray,
    scored: np.ndarray,
    tiered_traps: np.ndarray,
    c_n: int,
    m_n: int,
) -> np.ndarray:
    """``(cases, models, features)`` counts of the rows: scored, correct, records, parse failures
    and errors per kind, and scored and silent traps per tier (the rows of ``tiered_traps``)."""
    f_n = lay.n_features
    correct = tab.correct & scored
    tier = tab.risk_tier.codes
    trap_rows = np.flatnonzero(tiered_traps)
    cell = slot * f_n + kind  # feature 0 of the row's (case, model) + its kind
    trap_cell = slot[trap_rows] * f_n + tier[trap_rows]
    # the scored columns first count the records left out (none, or the error rows of the
    # harness): scored = records - those, and the rows scored need no cells of their own
    cells = np.concatenate(
        [
            cell[~scored] + lay.scored(0),
            cell[correct] + lay.correct(0),
            cell + lay.records(0),
            cell[tab.status == STATUS_PARSE_FAILURE] + lay.parse_failures(0),
            cell[tab.status == STATUS_ERROR] + lay.errors(0),
            trap_cell + lay.trap_n,
            trap_cell[~correct[trap_rows]] + lay.trap_silent,
        ]
    )
    tensor = np.bincount(cells, minlength=c_n * m_n * f_n).astype(np.float64).reshape(c_n, m_n, f_n)
    n_scored = tensor[:, :, lay.scored(0) : lay.scored(0) + lay.k]  # records left out, until:
    np.subtract(tensor[:, :, lay.records(0) : lay.records(0) + lay.k], n_scored, out=n_scored)
    return tensor


def _add_pcons(
    tensor: np.ndarray,
    lay: Layout,
    rows: tuple[np.ndarray, ...],
    harness_compatible: bool,
    models: Sequence[str],
    cases: Sequence[str],
) -> None:
    """PCons pairs into ``tensor``: a case's original and tcf both scored, agreeing on the letter.
    No letter never agrees (paper); the harness compares the two model_letter strings, so two
    empty letters agree there. ``rows``: each row's kind, slot, scored flag and letter."""
    o_i, t_i = lay.kind("original"), lay.kind("tcf")
    if o_i is None or t_i is None:
        return
    kind, slot, scored, pred = rows
    c_n, m_n = tensor.shape[:2]
    lo, lt = (
        np.full(c_n * m_n, -2, dtype=np.int16) for _ in range(2)
    )  # -2: not scored (NO_LETTER is -1)
    for letters, i, name in ((lo, o_i, "original"), (lt, t_i, "tcf")):
        _one_per_case(tensor[:, :, lay.scored(i)], name, models, cases)
        mask = scored & (kind == i)
        letters[slot[mask]] = pred[mask]
    both = (lo != -2) & (lt != -2)
    agree = both & (lo == lt) if harness_compatible else both & (lo == lt) & (lo >= 0)
    tensor[:, :, lay.pcons_n] = both.reshape(c_n, m_n)
    tensor[:, :, lay.pcons_agree] = agree.reshape(c_n, m_n)


def _add_triplets(
    tensor: np.ndarray, lay: Layout, models: Sequence[str], cases: Sequence[str]
) -> np.ndarray:
    """TR-coh into ``tensor``: complete when all three arms are scored, coherent when all correct
    (one record per arm and case). Returns each model's incomplete triplets."""
    c_n, m_n = tensor.shape[:2]
    incomplete = np.zeros(m_n)
    arm_idx = [lay.kind(k) for k in TRIPLET_KINDS]
    if all(i is None for i in arm_idx):
        return incomplete
    present = np.zeros((3, c_n, m_n), dtype=bool)
    ok = np.zeros((3, c_n, m_n), dtype=bool)
    for a, i in enumerate(arm_idx):
        if i is None:
            continue
        _one_per_case(tensor[:, :, lay.scored(i)], TRIPLET_KINDS[a], models, cases)
        present[a] = tensor[:, :, lay.scored(i)] > 0
        ok[a] = tensor[:, :, lay.correct(i)] > 0
    complete = present.all(axis=0)
    tensor[:, :, lay.tri_n] = complete
    tensor[:, :, lay.tri_coh] = complete & ok.all(axis=0)
    return (present.any(axis=0) & ~complete).sum(axis=0).astype(float)


def _case_attributes(
    tab: RecordTable, case: np.ndarray, cases: tuple[str, ...]
) -> dict[str, Categorical]:
    """Each case's code on every strata axis."""
    columns = {
        "risk_tier": tab.risk_tier,
        "source_dataset": tab.source_dataset,
        "modality": tab.modality,
        "text_only_answerable": tab.text_only,
    }
    return {
        axis: _case_attribute(columns[axis], case, len(cases), cases, axis) for axis in STRATA_AXES
    }


def harness_frames(model: np.ndarray, case: np.ndarray, m_n: int, c_n: int):
    """Each model's cases, and the models, in order of first row: what ``bootstrap_mcs.py``
    resamples on one stream."""
    n = len(model)
    first = np.full(m_n * c_n, n, dtype=np.int64)  # first row of each (model, case) pair; n: none
    np.minimum.at(first, model * np.int64(c_n) + case, np.arange(n))
    seen = np.flatnonzero(first < n)
    pairs = seen[np.argsort(first[seen], kind="stable")]  # (model, case) pairs in row order
    by_model = np.argsort(pairs // c_n, kind="stable")  # grouped by model, row order kept
    frames = tuple(
        np.split(pairs[by_model] % c_n, np.cumsum(np.bincount(pairs // c_n, minlength=m_n))[:-1])
    )
    first_row = first.reshape(m_n, c_n).min(axis=1)
    models = np.flatnonzero(first_row < n)
    order = tuple(int(m) for m in models[np.argsort(first_row[models], kind="stable")])
    return frames, order
