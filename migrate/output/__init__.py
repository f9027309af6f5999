"""One emitter per output format.

Every emitter has the signature ``emit(diagnostics, stream, *, root)``:

* ``diagnostics``: ``Sequence[Diagnostic]``, already sorted by path, line, column;
* ``stream``: a text stream to write to;
* ``root``: ``pathlib.Path`` that repository-relative paths are relative to
  (the project root, or the working directory).

Modules are imported only when their format is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from ppo_migrate.diagnostics import Diagnostic

FORMATS = ("full", "concise", "json", "github", "sarif", "junit")
#: The formats written for a person: the findings, then ``concise``'s summary lines.
TEXT_FORMATS = ("full", "concise")

Emitter = Callable[..., None]


def get_emitter(name: str) -> Emitter:
    """The ``emit`` function of format ``name``.

    Raises:
        ValueError: ``name`` is not one of :data:`FORMATS`.
    """
    if name not in FORMATS:
        raise ValueError(f"unknown output format {name!r}; choose from {', '.join(FORMATS)}")
    module = importlib.import_module(f"ppo_migrate.output.{name}_format")
    return module.emit


def emit(
    name: str,
    diagnostics: Sequence[Diagnostic],
    stream: TextIO,
    *,
    root: Path,
    show_notices: bool = True,
) -> None:
    """Write ``diagnostics`` to ``stream`` in format ``name``.

    ``show_notices`` matters to ``full`` and ``concise`` only, which list notices (PPO005)
    only when it is true; every other format always carries them.
    """
    if name in TEXT_FORMATS:
        get_emitter(name)(diagnostics, stream, root=root, show_notices=show_notices)
    else:
        get_emitter(name)(diagnostics, stream, root=root)
