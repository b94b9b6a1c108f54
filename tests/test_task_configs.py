"""Task YAMLs are exactly what their generator writes, and lmms-eval indexes them."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERATORS = sorted((ROOT / "tasks").glob("*/_generate_configs.py"))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"gen_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda p: p.parent.name)
def test_committed_yaml_matches_generator(generator):
    module = _load(generator)
    for name, text in module.files().items():
        path = generator.parent / name
        assert path.is_file(), f"{path} missing: run python {generator.relative_to(ROOT)}"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python {generator.relative_to(ROOT)}"
        )


def test_lmms_eval_indexes_every_task():
    tasks_mod = pytest.importorskip("lmms_eval.tasks")
    manager = tasks_mod.TaskManager(
        "ERROR", include_path=str(ROOT / "tasks"), include_defaults=False
    )
    names = set(manager.all_tasks)
    for yaml in (ROOT / "tasks").glob("*/*.yaml"):
        text = yaml.read_text()
        for line in text.splitlines():
            if line.startswith(("task: ", "group: ")):
                assert line.split(": ", 1)[1] in names, (
                    f"{yaml.name}: {line} not indexed by lmms-eval"
                )


def _task_files(folder: Path) -> list[Path]:
    return sorted([*folder.glob("*.yaml"), *folder.glob("_default_template_yaml")])


@pytest.mark.parametrize(
    "folder", sorted(p.parent for p in (ROOT / "tasks").glob("*/utils.py")), ids=lambda p: p.name
)
def test_every_yaml_function_is_a_literal_def(folder):
    """Grepping a YAML's ``!function utils.X`` finds ``def X`` in the folder's utils.py (no
    generated names)."""
    source = (folder / "utils.py").read_text(encoding="utf-8")
    defined = set(re.findall(r"^def (\w+)\(", source, flags=re.M))
    named = {
        name
        for path in _task_files(folder)
        for name in re.findall(r"!function utils\.(\w+)", path.read_text(encoding="utf-8"))
    }
    assert named, f"{folder}: no !function names found"
    assert sorted(named - defined) == [], f"{folder}/utils.py lacks a def for these YAML functions"
    assert "globals()" not in source


def test_one_metric_direction_rule():
    """Every generator writes ``higher_is_better`` through task_yaml.metric_list only, whose rule
    reads None (no direction) as true, like True; only False is written as false."""
    task_yaml = _load(ROOT / "tasks" / "task_yaml.py")
    assert [task_yaml.higher_is_better(d) for d in (True, None, False)] == [True, True, False]
    with pytest.raises(ValueError):
        task_yaml.higher_is_better("lower")
    for generator in GENERATORS:
        source = generator.read_text(encoding="utf-8")
        assert "higher_is_better" not in source and "task_yaml.metric_list(" in source, generator
    block = task_yaml.metric_list("agg_", {"up": True, "none": None, "down": False})
    # then the per-doc score (lmms-eval's mean: what its paired --baseline test compares)
    assert re.findall(r"higher_is_better: (\w+)", block) == ["true", "true", "false", "true"]
    assert re.findall(r"metric: (\w+)\n    aggregation: (\S+)", block)[-1] == ("score", "mean")


def test_every_task_clusters_by_case_and_reports_the_per_doc_score():
    """lmms-eval's clustered standard errors: every task sets cluster_key: case_id (through the
    template every suite includes) and lists the per-doc ``score`` metric."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    for folder in sorted(p for p in (ROOT / "tasks").iterdir() if p.is_dir()):
        templates = [folder / "_default_template_yaml", *folder.glob("cbd_binary.yaml")]
        for template in filter(Path.exists, templates):
            config = yaml.load(template.read_text(encoding="utf-8"), Loader=Loader)
            assert config["cluster_key"] == "case_id", template
        for path in folder.glob("*.yaml"):
            config = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}
            names = [m["metric"] for m in config.get("metric_list") or []]
            assert not names or names[-1] == "score", path
