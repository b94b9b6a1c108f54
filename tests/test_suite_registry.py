"""A seventh suite reaches every shared room through its declarations alone (issue 43): one
registry line plus its own modules -- an entry, ``options.py``, a record check -- and ``medvigil
score`` offers its option, passes it to its entry, ``medvigil report`` gives it a section and a
file, and the records reader checks its ``extra``. Nothing outside the suite is edited."""

import json
import sys
import types

import pytest

from medvigil.cli import main
from medvigil.cli_options import Option
from medvigil.records import record_checks
from medvigil.report.render import Table
from medvigil.suites import registry


def _toy_entry() -> types.ModuleType:
    entry = types.ModuleType("medvigil.suites.toy.entry")

    def score(files, *, release=None, level=1):
        return {"suite": "toy", "models": {"toy-model": {"level": level, "n": len(files)}}}

    entry.score = score
    entry.format_table = lambda result: f"toy: {json.dumps(result['models'])}"
    entry.n_scored = lambda result: len(result["models"])
    entry.models = lambda result: sorted(result["models"])
    entry.tables = lambda result: [
        Table(
            "Toy levels",
            ("Model", "Level"),
            [[m, str(b["level"])] for m, b in result["models"].items()],
        )
    ]
    entry.figures = lambda result: {}
    return entry


@pytest.fixture
def toy(monkeypatch):
    """The suite ``toy`` registered as a new suite would be: its modules and one registry line."""
    options = types.ModuleType("medvigil.suites.toy.options")
    options.SCORE = (
        Option(("--toy-level",), "level", {"type": int, "default": 1, "help": "the toy's level"}),
    )
    modules = {
        "medvigil.suites.toy": types.ModuleType("medvigil.suites.toy"),
        "medvigil.suites.toy.entry": _toy_entry(),
        "medvigil.suites.toy.options": options,
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    suites = dict(registry.SUITES)
    suites["toy"] = registry.Suite("toy", "Toy: a seventh suite", "unused")
    monkeypatch.setattr(registry, "SUITES", suites)
    return suites["toy"]


def test_a_new_suite_is_scored_and_reported_from_its_declarations(toy, tmp_path, capsys):
    inputs = tmp_path / "out.txt"
    inputs.write_text("anything the toy reads\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    shown = capsys.readouterr().out
    assert "toy options:" in shown and "--toy-level" in shown and "the toy's level" in shown
    scores = tmp_path / "toy.json"
    assert (
        main(["score", "--suite", "toy", str(inputs), "--toy-level", "3", "--json", str(scores)])
        == 0
    )
    assert json.loads(scores.read_text())["models"] == {"toy-model": {"level": 3, "n": 1}}
    assert main(["report", str(scores), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Toy: a seventh suite" in report and "| toy-model | 3 |" in report
    assert "Also scored: toy." in report
    saved = json.loads((tmp_path / "report" / "toy.json").read_text(encoding="utf-8"))
    assert saved["models"] == {"toy-model": {"level": 3, "n": 1}}


def test_other_suites_do_not_take_a_new_suites_option(toy, tmp_path):
    """``--toy-level`` is the toy's: ``--suite toy`` gets it, the toy gets none of the others'."""
    from medvigil.cli import build_parser
    from medvigil.commands.arg_types import suite_options

    parser = build_parser(["score"])
    args = parser.parse_args(["score", "--suite", "toy", "x", "--toy-level", "2"])
    assert suite_options(args, "score") == {"level": 2}
    args = parser.parse_args(["score", "--suite", "cbd", "x", "--toy-level", "2"])
    assert "level" not in suite_options(args, "score")


def test_a_new_suites_record_check_is_found_by_the_reader(monkeypatch):
    monkeypatch.setattr(record_checks, "CHECKS", dict(record_checks.CHECKS))

    @record_checks.extra_check("toy")
    def check(extra):
        return [] if extra.get("level", 0) >= 0 else [("level", "must be >= 0")]

    problems = record_checks.extras_problems(
        [{"suite": "toy", "extra": {"level": 1}}, {"suite": "toy", "extra": {"level": -1}}],
        "toy.jsonl",
        [1, 2],
    )
    assert [(p.row, p.field) for p in problems] == [(2, "extra.level")]
    with pytest.raises(ValueError, match="a second extra check"):
        record_checks.extra_check("toy")(lambda extra: [])
