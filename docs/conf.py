"""Sphinx configuration: the documentation site built from the code (`make docs`).

Sphinx with autodoc, because the API reference must come from the docstrings the code
carries (one source), and myst-parser, because the guides (README, ARCHITECTURE,
RESULTS) are Markdown files that the repository renders too.  The docstrings are
plain text written for `help()`: they are shown verbatim (a literal block), so that
their A^T, 2^k and * never parse as markup."""
import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "glgpgpu"
author = "the glgpgpu developers"
extensions = ["sphinx.ext.autodoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "ARCHITECTURE.md"]      # shown through architecture.md
html_theme = "alabaster"
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing"]      # the guides link to files of the repository, not pages


def _verbatim(app, what, name, obj, options, lines):
    """A docstring as the literal block it was written as (plain text, not reStructuredText)."""
    if lines:
        body = ["    " + line if line.strip() else "" for line in lines]
        lines[:] = ["::", ""] + body + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _verbatim)
