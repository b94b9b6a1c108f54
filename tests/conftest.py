"""Shared pytest fixtures."""

import pytest


def pytest_collection_modifyitems(items):
    """A test using a fixture its module lists in ``SLOW_FIXTURES`` (one that drives lmms-eval,
    builds a dataset or a wheel) is marked ``slow``: ``pytest -m "not slow"`` is the daily run."""
    for item in items:
        slow = getattr(getattr(item, "module", None), "SLOW_FIXTURES", ())
        if slow and not slow.isdisjoint(item.fixturenames):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def synthetic_release(tmp_path_factory):
    """Path to a 40-case synthetic release (seed 0), written once per test session.

    The withheld CXR source files of the release are written to the sibling folder
    ``<release>/../credentialed`` (paths as in ``reconstruction/cxr_pointers.csv``).
    Treat both folders as read-only.
    """
    from medvigil.suites.medvigil.synthetic import generate_release

    base = tmp_path_factory.mktemp("synthetic_release")
    root = base / "release"
    generate_release(root, cases=40, seed=0, credentialed_out=base / "credentialed")
    return root
