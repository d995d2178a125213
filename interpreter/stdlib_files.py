"""Where the Scheme standard library is: the resource package ``interpreter.stdlib``.

The files live in the checkout's top-level ``stdlib/`` folder; pyproject maps that folder to
``interpreter.stdlib``, so wheels, sdists and editable installs all carry it, and it is read
with :mod:`importlib.resources` wherever the package is installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .errors import SchemeError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

PACKAGE = "interpreter.stdlib"
#: Where the files are in a source checkout run without installing (``python repl.py`` with only the
#: dependencies installed): there is no ``interpreter.stdlib`` package then.
CHECKOUT = Path(__file__).resolve().parent.parent / "stdlib"
#: Where an installed wheel or sdist puts the package ``interpreter.stdlib``: a folder beside this file.
BESIDE = Path(__file__).resolve().parent / "stdlib"


def stdlib_root() -> Traversable:
    """The folder holding the ``.scm`` files; a clear SchemeError when the install lacks it.

    A folder on disk is looked for first (installed, or a checkout), so a start needs no
    ``importlib.resources`` (1.2 ms after a start); other installs (a zip) are found through it."""
    for folder in (BESIDE, CHECKOUT):
        if folder.joinpath("prelude.scm").is_file():
            return folder
    from importlib import resources  # reason: start-up laziness, 1.2-1.8 ms a start; only a zip install needs it

    try:
        root: Traversable = resources.files(PACKAGE)
    except ModuleNotFoundError:
        if not CHECKOUT.joinpath("prelude.scm").is_file():
            raise missing(f"no package {PACKAGE}") from None
        root = CHECKOUT
    if not root.joinpath("prelude.scm").is_file():
        raise missing(f"no prelude.scm in {root}")
    return root


def startup_files() -> list[Traversable]:
    """The files loaded when an interpreter starts: every ``.scm`` at the top, by name."""
    return sorted((item for item in stdlib_root().iterdir() if item.name.endswith(".scm")), key=lambda f: f.name)


def read_stdlib(name: str) -> str:
    """The text of a standard library file, by its path inside ``stdlib/`` (``lazy/test.scm``)."""
    target = stdlib_root().joinpath(*name.split("/"))
    if not target.is_file():
        raise missing(f"no {name} in {stdlib_root()}")
    return target.read_text(encoding="utf-8")


def missing(detail: str) -> SchemeError:
    return SchemeError(
        f"the Scheme standard library is missing ({detail}): reinstall taskscheme, or start with --no-stdlib",
        kind="file-error",
    )
