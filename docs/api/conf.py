"""Sphinx configuration of candlewick's API reference (built by .ci/docs.sh)."""

import pathlib
import sys

# the checkout's package, also when it is not installed
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import candlewick  # noqa: E402

project = "candlewick"
version = release = candlewick.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# the namespace re-exports objects defined in its submodules: document them where imported
autodoc_default_options = {"members": True, "imported-members": True}
html_theme = "alabaster"
exclude_patterns = ["_build"]
