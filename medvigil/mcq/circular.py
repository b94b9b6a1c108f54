"""CircularEval collapse: a probe asked under all five rotations is correct only when every rotation
is (else the record of its first wrong rotation stands for it). Records are in *published*
letters."""

from collections import Counter
from collections.abc import Iterable, Mapping

from medvigil.errors import DataError, Problem

CIRCULAR = "circular"


def collapse_circular(
    records: Iterable[Mapping], source: str = "<records>", *, incomplete: Counter | None = None
) -> list[dict]:
    """Replace each group of rotations (same model and probe, condition ``circular``) by one record.

    A group without all five rotations is an error, unless ``incomplete`` is given (a run cut by
    lmms-eval's ``--limit``, which keeps the first N docs): the group is then left out and its
    rotations are counted there per model, so the caller can say the run is partial.
    """
    out: list[dict] = []
    groups: dict[tuple[str, str], list[dict]] = {}
    for record in records:
        if record.get("condition") != CIRCULAR:
            out.append(dict(record))
            continue
        groups.setdefault((record["model"], record["probe_id"]), []).append(dict(record))
    problems = []
    for (model, probe_id), rotations in groups.items():
        seen = sorted((r.get("extra") or {}).get("rotation", -1) for r in rotations)
        if seen != list(range(5)):
            if (
                incomplete is not None
                and len(set(seen)) == len(seen)
                and set(seen) <= set(range(5))
            ):
                incomplete[model] += len(seen)
                continue
            problems.append(
                Problem(
                    source,
                    f"model {model!r} probe {probe_id!r}: rotations {seen}, expected 0..4",
                    field="extra.rotation",
                )
            )
            continue
        rotations.sort(key=lambda r: r["extra"]["rotation"])
        wrong = [
            r
            for r in rotations
            if r.get("predicted_letter") != r["correct_letter"] or r.get("parse_status") != "ok"
        ]
        chosen = dict(wrong[0] if wrong else rotations[0])
        chosen["extra"] = {**chosen.get("extra", {}), "rotations_correct": 5 - len(wrong)}
        out.append(chosen)
    if problems:
        raise DataError(problems)
    return out
