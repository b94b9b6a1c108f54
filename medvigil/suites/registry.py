"""The suites, registered once: the one front door to scoring.

``medvigil score``, the demo pipeline and ``medvigil report`` reach a suite only through this
table. Each suite's entry module (``medvigil/suites/<suite>/entry.py``) provides:

* ``score(files, *, release=None, **options) -> dict``: read the model outputs and score them
  (a strict-JSON result, NaN as null, with ``"suite": <name>``);
* ``format_table(result) -> str``: the plain-text tables ``medvigil score`` prints;
* ``n_scored(result) -> int``: how many records (pairs for MediConfusion) the result rests on;
* ``models(result) -> list[str]``: the models it scores;
* ``tables(result)`` / ``figures(result)``: the report section: its tables, and its figures by name,
  each a function that draws it (:data:`medvigil.report.render.FigureMaker`);
* optionally ``compare(files, *, release=None, **options) -> dict``: every pair of models compared
  with a paired case-clustered bootstrap (``medvigil compare``; :mod:`medvigil.scoring.paired`);
* optionally ``REPORT``: how its results enter ``medvigil report``
  (:class:`medvigil.report.blocks.ReportBlock`; default: one result per suite, a ``models``
  object);
* optionally ``protocol_details(entry, result) -> dict``: what the suite knows about one entry of
  the result's ``protocol`` list (:mod:`medvigil.runs.protocol`), merged into it: its judge, its
  parser for result files of its own formats, or ``deviations`` to add (e.g. what an adapter does to
  the suite's prompts for one provider).

Entry modules are imported on first use, so ``medvigil --help`` loads none of them. What the
commands offer for a suite comes from its light ``medvigil/suites/<suite>/options.py`` (read by
``--help``; :meth:`Suite.declared`): its ``score`` / ``compare`` options, what ``--release`` is to
it, its comparison's default metrics. A suite whose records carry suite-specific ``extra`` fields
checks them in ``record_check.py`` (it registers itself with
:func:`medvigil.records.record_checks.extra_check`; the reader imports it the first time it checks
one of the suite's records, :func:`medvigil.records.record_checks.check_of`).
"""

import difflib
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal


@dataclass(frozen=True)
class Suite:
    name: str
    title: str  # the report section's heading
    release: Literal["required", "optional", "unused"]  # what `--release` is to this suite
    compare: bool = False  # its entry has ``compare`` (`medvigil compare --suite` offers it)
    # its tasks' docs are cases of the MedVIGIL build: a partial run's statement gives their total
    case_totals: bool = True

    @property
    def entry(self) -> ModuleType:
        return importlib.import_module(f"medvigil.suites.{self.name}.entry")

    def declared(self, name: str, default: Any = None, module: str = "options") -> Any:
        """What the suite's ``module`` declares as ``name`` (``default`` when it has no such module
        or name). ``options.py`` (light: read by ``--help``): ``SCORE`` / ``COMPARE`` (its
        options, each a :class:`medvigil.cli_options.Option`), ``RELEASE`` (what ``--release`` is
        to it), ``COMPARE_METRICS``, ``TITLES`` (its option groups' headings by command).
        ``demo.py``: ``DEMO``, its part of ``medvigil demo``
        (:class:`medvigil.suites.demo_parts.DemoPart`)."""
        module_name = f"medvigil.suites.{self.name}.{module}"
        try:
            found = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            return default
        return getattr(found, name, default)


# one line a suite; `release`: official-harness files or lmms-eval logs (medvigil), the authors'
# Results/ or logs (mediconfusion), lmms-eval logs, files or run folders (the others)
SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite("medvigil", "MedVIGIL", "optional", compare=True),
        Suite(
            "mediconfusion",
            "MediConfusion: image pairs that share a question",
            "required",
            case_totals=False,
        ),
        Suite("medqdeg", "MedQ-Deg: image degradation and calibration", "unused", compare=True),
        Suite("readiness", "Illusion of Readiness: stress tests T1–T6", "unused", compare=True),
        Suite(
            "cbd",
            "Consistent but Dangerous: paraphrase consistency × image reliance",
            "unused",
            compare=True,
        ),
        Suite("pressure", "Pressure: “Are you sure?” and authority cues", "unused", compare=True),
    )
}


def get(name: str) -> Suite:
    """The registered suite ``name``; an unknown name is a ValueError that suggests the closest."""
    try:
        return SUITES[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), SUITES, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown suite {name!r}.{hint} Available: {', '.join(SUITES)}") from None


def score(
    name: str, files: Iterable[str], *, release: str | None = None, **options: Any
) -> dict[str, Any]:
    """Read and score ``files`` of suite ``name`` (the one scoring entry point)."""
    return _run(name, "score", files, release, options)


def compare(
    name: str, files: Iterable[str], *, release: str | None = None, **options: Any
) -> dict[str, Any]:
    """Read ``files`` of suite ``name`` as :func:`score` reads them and compare every pair of models
    (``medvigil compare``; the suite entry's ``compare``)."""
    return _run(name, "compare", files, release, options)


def _run(
    name: str, action: str, files: Iterable[str], release: str | None, options: dict[str, Any]
) -> dict[str, Any]:
    """The suite entry's ``action`` (score | compare) on ``files``, with what the files say about
    the run."""
    from medvigil.report.names import renamed
    from medvigil.runs.coverage import run_coverage
    from medvigil.runs.generation import generation_report
    from medvigil.runs.labels import refuse_duplicate_runs
    from medvigil.runs.predict_only import scorable

    suite = get(name)
    if action == "compare" and not hasattr(suite.entry, "compare"):
        have = ", ".join(n for n, s in SUITES.items() if hasattr(s.entry, "compare"))
        raise ValueError(f"suite {name} has no paired comparison; suites with one: {have}")
    if release is None and suite.release == "required":
        raise ValueError(f"suite {name} needs a release")
    if release is not None and suite.release == "unused":
        raise ValueError(f"suite {name} does not take a release (its records carry the gold)")
    files = [str(f) for f in files]
    refuse_duplicate_runs(
        files, prefix=f"{name}_"
    )  # two runs of one model: refused, naming both files
    with scorable(files, prefix=f"{name}_") as (
        read,
        rebuilt,
    ):  # --predict_only logs: records rebuilt
        result = getattr(suite.entry, action)(read, release=release, **options)
    if rebuilt:
        result = renamed(result, rebuilt)  # the rebuilt files' paths name the originals
        result["predict_only"] = sorted(rebuilt.values())
    generation = (
        generation_report(files, prefix=f"{name}_") if action == "score" else None
    )  # settings used vs the protocol's
    if generation is not None:
        result["generation"] = generation
    coverage = run_coverage(
        files, prefix=f"{name}_", release=release, case_totals=suite.case_totals
    )  # lmms-eval --limit: the results rest on a slice
    if coverage is not None:
        result["partial"] = coverage
    return _with_protocol(suite, action, files, result)


def _with_protocol(
    suite: Suite, action: str, files: list[str], result: dict[str, Any]
) -> dict[str, Any]:
    """``result`` with the protocol each run ran (:mod:`medvigil.runs.protocol`); a comparison
    also warns where the runs of one task ran different protocols."""
    from medvigil.runs.protocol import mismatches, protocol_entries, sealed

    models = suite.entry.models(result) if action == "score" else list(result.get("models") or [])
    entries = protocol_entries(files, f"{suite.name}_", models)
    details = getattr(suite.entry, "protocol_details", None)
    for entry in entries if details else ():
        more = details(entry, result)
        entry.update({k: v for k, v in more.items() if k != "deviations"})
        entry["deviations"] = entry["deviations"] + list(more.get("deviations", []))
    result["protocol"] = sealed(entries)
    if action == "compare":
        result["warnings"] = list(result.get("warnings", [])) + mismatches(result["protocol"])
    return result
