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

- no import circle among the package's modules, imports inside functions included, except those
  still listed in :data:`KNOWN_CIRCLES` (an allowlist that only shrinks: a circle that is gone must
  leave it, a new one fails).
"""

from __future__ import annotations

import ast
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
# import circles other rooms still have (issue 43); remove an entry when its circle is opened
KNOWN_CIRCLES = {
    frozenset({"medvigil.suites.cbd.compare", "medvigil.suites.cbd.entry"}),
    frozenset({"medvigil.suites.medqdeg.compare", "medvigil.suites.medqdeg.entry"}),
    frozenset({"medvigil.suites.readiness.compare", "medvigil.suites.readiness.entry"}),
}


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _imported_modules(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports, lazy imports inside functions included."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
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


def test_no_new_import_circles_and_the_allowlist_shrinks():
    circles = _circles(_import_graph())
    new = sorted(sorted(c) for c in circles - KNOWN_CIRCLES)
    gone = sorted(sorted(c) for c in KNOWN_CIRCLES - circles)
    assert new == [], f"new import circles: {new}"
    assert gone == [], f"opened circles still allowlisted (remove them from KNOWN_CIRCLES): {gone}"


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
