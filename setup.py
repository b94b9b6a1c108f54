"""Metadata and packages are in setup.cfg; this file only declares the optional compiled parts.

``medvigil.files._record_cut`` is the line loop of :func:`medvigil.files.jsonl_bulk.record_block`
in C; ``medvigil.scoring._mt_draws`` draws CPython's ``random.choice`` stream for the
harness-compatible bootstrap. Both are optional: without a C compiler the install goes on and
the same work runs in Python and numpy (the reference the tests hold the compiled parts to).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("medvigil.files._record_cut", ["medvigil/files/_record_cut.c"], optional=True),
    Extension("medvigil.scoring._mt_draws", ["medvigil/scoring/_mt_draws.c"], optional=True),
])
