"""MedQ-DEG-Bench in lmms-eval: the docs of a ``medqdeg-build`` config and their records (no
lmms-eval import).

The task pack ``tasks/medqdeg_bench`` is a thin face over this module. The protocol is our MedQ-Deg
suite's (:mod:`medvigil.suites.medqdeg.docs`, :mod:`medvigil.suites.medqdeg.records`): the paper's
Appendix B prompt (``answer_prompt``) under the release's image (already degraded: nothing is
rendered), ``T`` trials at temperature 1.0 (``--repeats``), Appendix B's parser, and the same record
fields (``answered``), so :func:`medvigil.suites.medqdeg.scoring.score_records` scores them like the
``medqdeg_L*`` tasks.

* **Docs** (:func:`docs`): every row of one config, in order. ``probe_id`` is ``<config>:<index>``;
  ``case_id`` and ``extra.item_id`` the row's ``medvigil_pair_key`` (a clean row and its degraded
  versions share it: drops from L0 are paired on it) or, unpaired, the ``probe_id``; ``degradation``
  the row's ``degradation_type`` (``clean`` at L0); ``severity`` the level of its
  ``degradation_severity`` (:data:`medvigil.suites.medqdeg.bench_tsv.SEVERITY_NAMES`).
* **Data**: ``MEDQDEG_DATA``, the output of ``medvigil medqdeg-build`` (a folder or a Hub repo id).
"""

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from medvigil.data_location import DataLocationExit, DataNotFoundError
from medvigil.records.probe_record import probe_record
from medvigil.suites.mediconfusion.data import is_built_folder
from medvigil.suites.medqdeg.bench_export import PAIR_KEY
from medvigil.suites.medqdeg.bench_tsv import kind_of, options_of, severity_level
from medvigil.suites.medqdeg.docs import CLEAN
from medvigil.suites.medqdeg.records import SUITE, answered, trial_share

ENV_VAR = "MEDQDEG_DATA"
BENCHMARK = "MedQ-DEG-Bench"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_COLUMNS = (
    "index",
    "question",
    "A",
    "B",
    "C",
    "D",
    "E",
    "answer",
    "modality",
    "degradation_type",
    "degradation_severity",
    "source",
    PAIR_KEY,
)


def data_location(config: str, env: Mapping[str, str] | None = None) -> str:
    """The build ``MEDQDEG_DATA`` names (a folder holding ``config``, or a Hub repo id)."""
    value = ((os.environ if env is None else env).get(ENV_VAR) or "").strip()
    hint = f"build it with `medvigil medqdeg-build TSV ... --out BUILD` and set {ENV_VAR}=BUILD"
    if not value:
        raise DataNotFoundError(f"{ENV_VAR} is not set: {hint} (or a Hub repo id ORG/NAME)")
    path = Path(value).expanduser()
    if path.exists():
        if not is_built_folder(path) or not (path / "data" / config).is_dir():
            raise DataNotFoundError(f"{ENV_VAR}={value} holds no '{config}' config; {hint}")
        return str(path.resolve())
    if _REPO_ID.match(value) and not value.startswith((".", "/", "~")):
        return value
    raise DataNotFoundError(f"{ENV_VAR}={value} is neither a folder nor a Hub repo id; {hint}")


def doc_fields(config: str, *cells: Any) -> dict[str, Any]:
    """The fields a doc adds to one built row (``cells`` in the order of ``_COLUMNS``)."""
    row = dict(zip(_COLUMNS, cells))
    level = severity_level(row["degradation_severity"], kind_of(config))
    if level is None:
        raise ValueError(
            f"{config} index {row['index']!r}: degradation_severity {row['degradation_severity']!r}"
        )
    probe_id = f"{config}:{row['index']}"
    return {
        "probe_id": probe_id,
        "case_id": row[PAIR_KEY] or probe_id,
        "probe_kind": "original",
        "options": options_of(row),
        "correct_letter": (row["answer"] or "").strip().upper(),
        "source_dataset": row["source"],
        "degradation": CLEAN if level == 0 else (row["degradation_type"] or "(unlabelled)"),
        "severity": level,
        "experiment": "calibration",
        "config": config,
    }


def docs(config: str, env: Mapping[str, str] | None = None):
    """The docs of one config of the build ``MEDQDEG_DATA`` names (DataLocationExit when it is not
    there)."""
    import datasets

    try:
        location = data_location(config, env)
    except DataNotFoundError as exc:
        raise DataLocationExit(exc) from None  # lmms-eval's last lines say what to do
    data = datasets.load_dataset(location, config, split="test")
    return data.map(
        lambda *cells: doc_fields(config, *cells),
        input_columns=list(_COLUMNS),
        desc=f"medqdeg_bench {config} docs",
    )


def record(doc: Mapping[str, Any], responses: Sequence[str]) -> dict[str, Any]:
    """The per-probe record of one doc answered ``T = len(responses)`` times (fields as
    ``medqdeg_L*``)."""
    letter, extra = answered(doc, responses)
    extra |= {
        "item_id": doc["case_id"],
        "source": doc["source_dataset"],
        "benchmark": BENCHMARK,
        "config": doc["config"],
        "index": doc["index"],
    }
    return probe_record(
        SUITE,
        doc,
        condition=f"L{int(doc['severity'])}",
        predicted_letter=letter,
        raw_response=responses[0],
        extra=extra,
        score=trial_share(extra["votes"], doc["correct_letter"]),
    )
