"""MedQ-Deg (seed 002) records: a doc's ``T`` answers parsed, the per-probe record, the task's
headline scores, and which lmms-eval logs and record keys the suite reads.

* **Records** (:func:`record`): one per doc, suite ``medqdeg``, condition ``L0``/``L1``/``L2``;
  ``extra`` holds the ``T`` votes, ``K`` (``n_options``), the degradation, severity, seed and
  parameters, so every image can be re-rendered.
* **Parser** (:func:`parse_answer`): Appendix B's priority rule: (1) the reply is a single letter;
  (2) the first capital letter in the reply; (3) none: invalid. A letter beyond the K options is
  invalid.
* **Scores** (:func:`task_score`): :func:`medvigil.suites.medqdeg.scoring.score_records` (the spec
  defaults).
"""

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from medvigil.records.probe_record import probe_record
from medvigil.suites.medqdeg.degradation_types import seed_for
from medvigil.suites.medqdeg.docs import CLEAN, ct_work_size, doc_params, types_per_probe
from medvigil.suites.medqdeg.scoring import score_records

SUITE = "medqdeg"
# _reasoning: the 4096-token variants (tasks/task_yaml.py); medqdeg_bench_*: MedQ-DEG-Bench
# (tasks/medqdeg_bench)
TASKS = r"medqdeg_(acc_)?L[0-2](_reasoning)?|medqdeg_bench_[a-z0-9_]+"
METRICS = {
    "accuracy": True,
    "mean_confidence": None,
    "calibration_shift": False,
}  # metric -> higher is better


def record_key(record: Mapping[str, Any]) -> tuple:
    """L1/L2 ask one probe once per degradation type (and experiment)."""
    extra = record.get("extra") or {}
    return (
        record["model"],
        record.get("condition"),
        record["probe_id"],
        extra.get("degradation"),
        extra.get("experiment"),
    )


def parse_answer(response: str | None, n_options: int) -> str | None:
    """Appendix B's matching rule: the reply as a single letter, else its first capital letter;
    None (invalid) without one or when it is not among the first ``n_options`` letters.

    >>> (parse_answer(" b ", 5), parse_answer("The answer is B", 5), parse_answer("(C) cyst", 5),
    ...  parse_answer("none", 5))
    ('B', None, 'C', None)
    """
    if response is None:
        return None
    text = response.strip()
    if len(text) == 1 and text.isalpha():
        letter = text.upper()
    else:
        letter = next((c for c in text if "A" <= c <= "Z"), None)
    return letter if letter is not None and ord(letter) - 65 < n_options else None


def _plurality(votes: Sequence[str | None]) -> str | None:
    counts = Counter(v for v in votes if v is not None)
    if not counts:
        return None
    best = max(counts.values())
    return min(letter for letter, n in counts.items() if n == best)  # ties to the lowest letter


def responses_of(results: Sequence[Any]) -> list[str]:
    """The ``T`` responses lmms-eval hands to process_results (a list under one filter)."""
    if len(results) == 1 and isinstance(results[0], (list, tuple)):
        results = results[0]
    out = ["" if r is None else str(r) for r in results]
    if not out:
        raise ValueError("process_results got no responses")
    return out


def answered(doc: Mapping[str, Any], responses: Sequence[str]) -> tuple[str | None, dict[str, Any]]:
    """The plurality of the valid votes (information; scoring reads the votes) and the trial fields
    of ``extra`` every MedQ-Deg record carries, of one doc answered ``T = len(responses)`` times."""
    votes = [parse_answer(r, len(doc["options"])) for r in responses]
    return _plurality(votes), {
        "condition_source": "lmms-eval",
        "degradation": doc["degradation"],
        "severity": int(doc["severity"]),
        "votes": votes,
        "responses": list(responses),
        "trials": len(votes),
        "n_options": len(doc["options"]),
        "experiment": doc.get("experiment", "calibration"),
    }


def record(
    doc: Mapping[str, Any], responses: Sequence[str], env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The per-probe record of one doc answered ``T = len(responses)`` times."""
    letter, extra = answered(doc, responses)
    kind, level = doc["degradation"], int(doc["severity"])
    extra |= {
        "item_id": doc["probe_id"],
        "image_id": doc["image_file"],
        "params": doc_params(kind, level, ct_work_size(env)),
    }
    if doc.get("capability"):
        extra["capability"] = doc["capability"]
    if kind != CLEAN:
        extra["seed"] = seed_for(doc["image_file"], kind)
        n = types_per_probe(env)
        extra["types_per_probe"] = "all" if n is None else n
    return probe_record(
        SUITE,
        doc,
        condition=f"L{level}",
        predicted_letter=letter,
        raw_response=responses[0],
        extra=extra,
        score=trial_share(extra["votes"], doc["correct_letter"]),
    )


def trial_share(votes: Sequence[str | None], gold: str) -> float:
    """A doc's per-doc score: the share of its T trials answered with the gold letter (Eq. 2,
    trial_mean)."""
    return sum(v == gold for v in votes) / len(votes)


def task_score(records: Iterable[Mapping[str, Any]], metric: str) -> float:
    """One headline metric of a task's records (they share one model and one level)."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    records = list(records)
    if not records:
        return float("nan")
    (model,) = score_records(records)["models"].values()
    return float(model["overall"][metric])
