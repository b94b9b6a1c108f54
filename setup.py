"""Metadata and packages are in setup.cfg; this file only declares the optional compiled part.

``medvigil.files._record_cut`` is the line loop of :func:`medvigil.files.jsonl_bulk.record_block`
in C. It is optional: without a C compiler the install goes on and the loop runs in Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("medvigil.files._record_cut", ["medvigil/files/_record_cut.c"], optional=True)])
