"""The house rules of issue #28, checked on the source tree (no imports of the package needed).

- no native code, no memory-mapped reads, no allocator or garbage-collector tuning;
- at most 2 broad ``except Exception`` in the package;
- at most 1 import running back up the house: a shared room importing a suite, or the core importing
  ``reconstruct/`` or the lmms-eval task pack ``tasks/`` (``medvigil.tasks``: a face above the core;
  the core reads it as data, :mod:`medvigil.task_pack`). The layer on top -- the CLI, its commands,
  the demo pipeline and the lmms-eval plugin models that re-export the pack's model classes --
  may import anything.

Size is judged by function and module length as ``ruff format`` lays the code out, not by a line
cap.

- no import circle among the package's modules, imports inside functions included.
"""

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "medvigil"
ON_TOP = (
    "medvigil/cli.py",
    "medvigil/__main__.py",
    "medvigil/pipeline.py",
    "medvigil/commands/",
    "medvigil/models/",
)
FACES_ABOVE = ("medvigil.reconstruct", "medvigil.tasks")  # the core imports neither


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The parsed source of ``path``, read once for all the checks (none changes it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _imported_modules(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports, lazy imports inside functions included."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (
                package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            )
            module = ".".join([*base, node.module] if node.module else base)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_no_native_code_in_the_repository():
    native = [
        _rel(p)
        for ext in ("*.c", "*.h", "*.pyx", "*.cpp", "*.so")
        for p in ROOT.glob(f"**/{ext}")
        if not {".venv", "build", ".git"} & set(p.relative_to(ROOT).parts)
    ]
    assert native == []


def test_no_mmap_and_no_memory_tuning():
    found = []
    for path in _sources():
        modules = _imported_modules(path)
        text = path.read_text(encoding="utf-8")
        if "mmap" in modules or "ctypes" in modules:
            found.append(f"{_rel(path)}: imports mmap/ctypes")
        for call in (
            "gc.disable",
            "gc.freeze",
            "gc.set_threshold",
            "mallopt",
            "malloc_trim",
            "json.scanner",  # CPython's private decoder: readers decode with json's public API
        ):
            if call in text:
                found.append(f"{_rel(path)}: {call}")
    assert found == []


def _is_broad(handler: ast.ExceptHandler) -> bool:
    """A bare ``except:`` or ``except Exception``; ``except BaseException`` only when it does not
    end by re-raising (cleanup-then-raise, e.g. closing a descriptor, switches no path)."""
    if handler.type is None:
        return True
    name = handler.type.id if isinstance(handler.type, ast.Name) else None
    if name == "Exception":
        return True
    return name == "BaseException" and not isinstance(handler.body[-1], ast.Raise)


def test_at_most_two_broad_excepts():
    broad = [
        f"{_rel(path)}:{node.lineno}"
        for path in _sources()
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ExceptHandler) and _is_broad(node)
    ]
    assert len(broad) <= 2, broad


def test_at_most_one_import_back_up_the_house():
    upward = []
    for path in _sources():
        rel = _rel(path)
        if rel.startswith(ON_TOP):
            continue
        for module in sorted(_imported_modules(path)):
            if module.startswith(FACES_ABOVE):
                upward.append(f"{rel} -> {module}")
            elif module.startswith("medvigil.suites") and not rel.startswith("medvigil/suites/"):
                upward.append(f"{rel} -> {module}")
    rooms = sorted({entry.split(" -> ")[0] for entry in upward})
    assert len(rooms) <= 1, upward


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from pkg import module`` names the module)."""
    modules = {_module_name(p): p for p in _sources()}
    graph = {}
    for name, path in modules.items():
        found = set()
        for imported in _imported_modules(path):
            while imported and imported not in modules:  # ``from m import function`` -> m
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                found.add(imported)
        graph[name] = found
    return graph


def _circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def test_circle_finder_sees_function_level_imports():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == {frozenset("abc")}
    assert _circles({"a": {"b"}, "b": set()}) == set()


def test_no_import_circles():
    circles = sorted(sorted(c) for c in _circles(_import_graph()))
    assert circles == [], f"import circles: {circles}"


def test_run_room_and_its_readers_import_no_circle():
    """records/, the task pack and the run room (issue 43): none is in any circle."""
    circles = _circles(_import_graph())
    rooms = ("medvigil.records", "medvigil.runs", "medvigil.task_pack")
    assert [sorted(c) for c in circles if any(m.startswith(rooms) for m in c)] == []
    graph = _import_graph()
    assert not any(m.startswith("medvigil.records") for m in graph["medvigil.task_pack"])
    assert not any(
        m == "medvigil.task_pack"
        for r, ms in graph.items()
        if r.startswith("medvigil.records")
        for m in ms
    )


def test_the_suite_registry_is_the_one_list_of_suites():
    """A suite is declared once in the registry; the record schema's ``suite`` enum (the list the
    record table checks) names the same suites, and ``compare=True`` exactly where the entry has
    ``compare``."""
    from medvigil.schemas import load_schema
    from medvigil.suites import registry

    enum = load_schema("probe_record")["properties"]["suite"]["enum"]
    assert list(registry.SUITES) == enum
    for name, suite in registry.SUITES.items():
        assert suite.compare == hasattr(suite.entry, "compare"), name


SHARED_EXEMPT = ON_TOP + ("medvigil/suites/",)  # the rooms that may name suites
# lines of shared rooms where a suite's name means something else, with why
NAME_ALLOWED = {
    (
        "medvigil/data_location.py",
        'return Path(env.get(HOME_VAR) or Path.home() / ".cache" / "medvigil")',
    ): "the package's own cache folder (~/.cache/medvigil)",
    (
        "medvigil/data_location.py",
        'return medvigil_home(env) / "datasets" / "medvigil"',
    ): "the default build of the MedVIGIL release, the data MEDVIGIL_DATA names for every suite",
}


def _suite_names() -> set[str]:
    from medvigil.schemas import load_schema

    return set(load_schema("probe_record")["properties"]["suite"]["enum"])


def _suite_mentions(path: Path, suites: set[str]) -> list[tuple[int, str]]:
    """``(line, what)`` for each string constant equal to a suite's name and each import of a
    suite's package (``medvigil.suites.<suite>``) in ``path``."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Constant) and node.value in suites:
            found.append((node.lineno, f"the string {node.value!r}"))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [f"{node.module}.{a.name}" for a in node.names]
            )
            found += [
                (node.lineno, f"an import of {m}")
                for m in modules
                if m.split(".")[:2] == ["medvigil", "suites"]
                and len(m.split(".")) > 2
                and m.split(".")[2] in suites
            ]
    return found


def test_shared_rooms_name_no_suite():
    """Below the commands, no room names a suite (issue 43): neither a string equal to a
    registered suite's name (a key, a branch, a default) nor an import of a suite's package; what a
    shared room needs from a suite, the suite declares (registry, entry ``REPORT``, ``options.py``,
    ``demo.py``, ``record_check.py``). :data:`NAME_ALLOWED` lists the lines where the name means
    something else; each must still be there."""
    suites = _suite_names()
    named, allowed_seen = [], set()
    for path in _sources():
        rel = _rel(path)
        if rel.startswith(SHARED_EXEMPT):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for line, what in _suite_mentions(path, suites):
            key = (rel, lines[line - 1].strip())
            if key in NAME_ALLOWED:
                allowed_seen.add(key)
            else:
                named.append(f"{rel}:{line}: {what}")
    assert named == [], named
    assert allowed_seen == set(NAME_ALLOWED), set(NAME_ALLOWED) - allowed_seen


def test_suite_mention_finder(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(
        "import medvigil.suites.cbd.entry\n"
        "from medvigil.suites import registry, cbd\n"
        'x = {"cbd": 1}\n'
        'y = "cbd_mc"  # not a suite\'s name\n',
        encoding="utf-8",
    )
    assert sorted(_suite_mentions(path, {"cbd"})) == [
        (1, "an import of medvigil.suites.cbd.entry"),
        (2, "an import of medvigil.suites.cbd"),
        (3, "the string 'cbd'"),
    ]


MAX_FUNCTION_LINES = 60  # as ruff format lays the code out (issue 43)
MAX_MODULE_LINES = 500


def _function_lengths(tree: ast.Module) -> list[tuple[int, str, int]]:
    """``(first line, name, length)`` of every function, from its first decorator to its end."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.append((first, node.name, node.end_lineno - first + 1))
    return out


def test_no_function_over_60_lines_and_no_module_over_500():
    too_long = []
    for path in _sources():
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT)
        lines = source.count("\n")
        if lines > MAX_MODULE_LINES:
            too_long.append(f"{rel}: {lines} lines")
        for line, name, length in _function_lengths(_tree(path)):
            if length > MAX_FUNCTION_LINES:
                too_long.append(f"{rel}:{line} {name}: {length} lines")
    assert too_long == [], "\n".join(too_long)


def test_function_lengths_count_decorators():
    tree = ast.parse("@a\n@b\ndef f():\n    x = 1\n    return x\n\n\nasync def g():\n    pass\n")
    assert _function_lengths(tree) == [(1, "f", 5), (8, "g", 2)]
