"""The one compiled part of candlewick: candlewick/_rows.c (unstack's row views made in
C). Everything else is in pyproject.toml. The extension is optional: where no C
compiler is found the build goes on without it and candlewick makes those views in
Python (candlewick/_core.py, row_views)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("candlewick._rows", ["candlewick/_rows.c"], optional=True)])
