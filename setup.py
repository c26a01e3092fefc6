"""The optional compiled build (issue 20, "one fast path, one source").

``pip install .`` builds the pure-Python package and needs no compiler: this
file then adds nothing.  ``VERIFIED_MYPYC=1 pip install --no-build-isolation .``
(``make fast`` does it in ``.venv-fast``, with the pinned mypy) compiles the
modules listed under ``[tool.verified.mypyc]`` in pyproject.toml with mypyc,
from the very same source: the Python stays the specification, and
``make fast-agree`` checks both builds answer byte for byte alike.
"""

from __future__ import annotations

import os
import tomllib

from setuptools import setup


def _compiled() -> list:
    if os.environ.get("VERIFIED_MYPYC", "0") in ("", "0"):
        return []
    from mypyc.build import mypycify  # only the fast build needs mypy

    with open("pyproject.toml", "rb") as f:
        config = tomllib.load(f)["tool"]["verified"]["mypyc"]
    # follow-imports=silent: the modules left interpreted are type-checked
    # only as far as the compiled ones use them
    return mypycify(["--follow-imports=silent", *config["modules"]], opt_level="3")


setup(ext_modules=_compiled())
