"""The house rules of issue #28, checked on the source tree (no imports of the package needed).

- no native code, no memory-mapped reads, no allocator or garbage-collector tuning;
- at most 2 broad ``except Exception`` in the package;
- at most 1 import running back up the house: a shared room importing a suite, or the core importing
  ``reconstruct/`` or the lmms-eval task pack ``tasks/`` (``medvigil.tasks``: a face above the core;
  the core reads it as data, :mod:`medvigil.task_pack`). The layer on top -- the CLI, its commands,
  the demo pipeline and the lmms-eval plugin models that re-export the pack's model classes --
  may import anything.

Size is judged by function and module length as ``ruff format`` lays the code out, not by a line cap.
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
        for call in ("gc.disable", "gc.freeze", "mallopt", "malloc_trim"):
            if call in text:
                found.append(f"{_rel(path)}: {call}")
    assert found == []


def _is_broad(handler: ast.ExceptHandler) -> bool:
    """A bare ``except:`` or ``except Exception``; ``except BaseException`` only when it does not end by
    re-raising (cleanup-then-raise, e.g. closing a descriptor, switches no path)."""
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
