"""Shared pytest fixtures."""

import os
from collections import Counter

import pytest

# `make test` (-n 2 --dist loadfile) hands whole modules to the two workers, the next to whichever
# is free. xdist's own order (modules with the most tests first) sent the few-test lmms-eval
# modules last, and one worker ran them alone at the end. Here the modules go heaviest first: these
# (the slowest measured with --durations, slowest first), then the other modules with a slow test,
# then the rest; the small modules at the end even out the two workers. Order only, never what runs.
HEAVIEST = (
    "test_stock_adapters.py",
    "test_real_adapters.py",
    "test_resume.py",
    "test_lmms_eval_runs.py",
    "test_demo.py",
    "test_pressure.py",
)


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the order set below
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items):
    """A test using a fixture its module lists in ``SLOW_FIXTURES`` (one that drives lmms-eval,
    builds a dataset or a wheel) is marked ``slow``: ``pytest -m "not slow"`` is the daily run.
    Then the modules are ordered heaviest first (``HEAVIEST``)."""
    for item in items:
        slow = getattr(getattr(item, "module", None), "SLOW_FIXTURES", ())
        if slow and not slow.isdisjoint(item.fixturenames):
            item.add_marker(pytest.mark.slow)
    size = Counter(item.path for item in items)
    with_slow = {item.path for item in items if item.get_closest_marker("slow")}

    def rank(item):
        if item.path.name in HEAVIEST:
            return (0, HEAVIEST.index(item.path.name))
        return (1 if item.path in with_slow else 2, -size[item.path])

    items.sort(key=rank)  # stable: a module's tests keep their order


@pytest.fixture(scope="session")
def synthetic_release(tmp_path_factory):
    """Path to a 40-case synthetic release (seed 0), written once per test session: under
    pytest-xdist by the first worker that asks, into the session's common temporary folder, and
    read by the other (a lock keeps it from reading a release still being written).

    The withheld CXR source files of the release are written to the sibling folder
    ``<release>/../credentialed`` (paths as in ``reconstruction/cxr_pointers.csv``).
    Treat both folders as read-only.
    """
    from filelock import FileLock

    from medvigil.suites.medvigil.synthetic import generate_release

    if os.environ.get("PYTEST_XDIST_WORKER"):  # the workers' basetemps share this parent
        base = tmp_path_factory.getbasetemp().parent / "synthetic_release"
    else:
        base = tmp_path_factory.mktemp("synthetic_release")
    root = base / "release"
    with FileLock(str(base) + ".lock"):
        if not root.is_dir():  # written whole or not at all (a staging folder renamed)
            base.mkdir(exist_ok=True)
            generate_release(root, cases=40, seed=0, credentialed_out=base / "credentialed")
    return root
