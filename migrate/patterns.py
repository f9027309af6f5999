"""Regular expressions compiled on their first use, not when their module is imported.

A module-level ``re.compile`` runs at every start of the command whether or not the run
ever reads what the pattern is for: a plain ``check`` imports the readers of Dockerfiles,
shell scripts, requirement files and CI configs, and ~60 of their patterns (~10 ms of a
start, benchmark items 9 and 10) matched nothing in a run that met none of those files.
:func:`lazy_pattern` keeps the pattern's text and compiles it when an attribute of it is
first asked for (``search``, ``finditer``, ``pattern``, ...); the answers are
``re``'s own from then on.
"""

from __future__ import annotations

import re
from typing import Any

#: the attributes of a compiled pattern kept on the instance once it is compiled, so that
#: later look-ups find them directly (no :meth:`LazyPattern.__getattr__` call)
_KEPT = (
    "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split",
    "pattern", "flags", "groups", "groupindex", "scanner",
)


class LazyPattern:
    """A :class:`re.Pattern` made when first used: every attribute is the compiled
    pattern's (``re.compile(pattern, flags)``, compiled once).

    Not a :class:`re.Pattern` itself: it is for the module-level constants of this
    package whose uses are attribute look-ups (``_X.search(...)``), never for a pattern
    handed to ``re``'s functions (``re.sub(_X, ...)``) or checked with ``isinstance``.

    Args:
        pattern: the regular expression (``str`` or ``bytes``).
        flags: ``re``'s flags.

    Raises:
        re.error: at the first use, when the expression is invalid (as ``re.compile``
            raises it at import otherwise).
    """

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._source = (pattern, flags)

    @property
    def compiled(self) -> re.Pattern:
        """The compiled pattern (compiling it if it was not yet)."""
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(*self._source)
            for name in _KEPT:
                self.__dict__[name] = getattr(compiled, name)
            self.__dict__["_compiled"] = compiled
        return compiled

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_source", "_compiled"):
            raise AttributeError(name)
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_pattern(pattern: str | bytes, flags: int = 0) -> LazyPattern:
    """``re.compile(pattern, flags)``, made when first used (:class:`LazyPattern`).

    Args:
        pattern: the regular expression (``str`` or ``bytes``).
        flags: ``re``'s flags (``re.MULTILINE | re.IGNORECASE``, ...).
    """
    return LazyPattern(pattern, flags)


__all__ = ["LazyPattern", "lazy_pattern"]
