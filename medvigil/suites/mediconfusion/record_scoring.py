"""Scoring MediConfusion probe records: each pair's two image records found, then scored."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from medvigil.suites.mediconfusion.scoring import MediConfusionScore, score_pairs

__all__ = ["pair_inputs", "pair_slots", "score_records", "score_records_by_run"]


def _image_of(record: Mapping[str, Any]) -> str | None:
    """Which image of its pair a record answers: ``extra.image``, else its probe id's ``:im1`` /
    ``:im2`` tail."""
    image = (record.get("extra") or {}).get("image")
    if image is None:
        probe = str(record.get("probe_id", ""))
        image = probe.rsplit(":", 1)[-1] if ":" in probe else None
    return image if image in ("im1", "im2") else None


def pair_slots(
    records: Iterable[Mapping[str, Any]],
    *,
    incomplete: str = "error",
) -> tuple[dict[str, dict[str, Mapping[str, Any]]], list[str]]:
    """``({pair: {"im1": record, "im2": record}}, problems)`` of one run's records: a record whose
    image cannot be told, two records for one image, a pair lacking an image (with
    ``incomplete="drop"``, for a run cut by lmms-eval's ``--limit``, such a pair is left out
    instead)."""
    by_pair: dict[str, dict[str, Mapping[str, Any]]] = {}
    problems: list[str] = []
    for record in records:
        image = _image_of(record)
        if image is None:
            problems.append(
                f"record {record.get('probe_id')!r}: cannot tell which image of the pair it is "
                "(need extra.image or a probe_id ending in ':im1' / ':im2')"
            )
            continue
        slot = by_pair.setdefault(str(record["case_id"]), {})
        if image in slot:
            problems.append(f"pair {record['case_id']!r} has two records for {image}")
        slot[image] = record
    if incomplete not in ("error", "drop"):
        raise ValueError(f"incomplete must be 'error' or 'drop', got {incomplete!r}")
    halves = [pid for pid, slot in by_pair.items() if len(slot) != 2]
    if halves and incomplete == "drop":
        by_pair = {pid: slot for pid, slot in by_pair.items() if len(slot) == 2}
    elif halves:
        problems.append(f"{len(halves)} pair(s) lack one image record, e.g. {halves[0]!r}")
    return by_pair, problems


def score_records(
    records: Iterable[Mapping[str, Any]],
    *,
    confusion_denominator: str = "both_valid",
    category_names: Sequence[str] | None = None,
    incomplete: str = "error",
) -> MediConfusionScore:
    """Score probe records of one run (one model, one condition): one record per image of each pair
    (``case_id``; :func:`pair_slots`, ``incomplete`` as there); ``predicted_letter`` ``None`` is
    invalid. Pairs in order of first appearance."""
    records = list(records)
    runs = {(r.get("model"), r.get("condition", "default")) for r in records}
    if len(runs) > 1:
        raise ValueError(
            f"records mix {len(runs)} runs (model, condition): "
            f"{sorted(runs, key=str)}; use score_records_by_run"
        )
    for record in records:
        if record.get("suite") != "mediconfusion":
            raise ValueError(
                f"record {record.get('probe_id')!r} has suite "
                f"{record.get('suite')!r}, not 'mediconfusion'"
            )
    by_pair, problems = pair_slots(records, incomplete=incomplete)
    if problems:
        raise ValueError(
            problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more)"
        )
    return score_pairs(
        **pair_inputs(by_pair),
        category_names=category_names,
        confusion_denominator=confusion_denominator,
    )


def _categories(record: Mapping[str, Any]) -> list[str]:
    """An image's categories: ``extra.categories`` (a list), else its ``category`` alone, else
    none."""
    categories = (record.get("extra") or {}).get("categories")
    if categories is None:
        return [] if record.get("category") is None else [record["category"]]
    return list(categories)


def pair_inputs(by_pair: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, list]:
    """The arguments of :func:`~medvigil.suites.mediconfusion.scoring.score_pairs` for one run's
    records paired by :func:`pair_slots` (which found no problem), in order."""
    inputs: dict[str, list] = {"pair_ids": list(by_pair)}
    for n, image in enumerate(("im1", "im2"), start=1):
        records = [slot[image] for slot in by_pair.values()]
        inputs |= {
            f"pred{n}": [r.get("predicted_letter") for r in records],
            f"gold{n}": [r["correct_letter"] for r in records],
            f"categories{n}": [_categories(r) for r in records],
        }
    return inputs


def score_records_by_run(
    records: Iterable[Mapping[str, Any]], **kwargs: Any
) -> dict[tuple[str, str], MediConfusionScore]:
    """Split records by (model, condition) and score each run with :func:`score_records`."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for record in records:
        groups.setdefault((record.get("model"), record.get("condition", "default")), []).append(
            record
        )
    return {key: score_records(recs, **kwargs) for key, recs in groups.items()}
