"""What is installed in the interpreter running the tool: the collect layer's questions to
:mod:`importlib` (issue 26: the judging modules do no I/O; finding a distribution's
metadata or a package's folders on ``sys.path`` reads the disk).

Nothing here imports the package asked about: :func:`installed_metadata` reads the
distribution's metadata (:func:`importlib.metadata.distribution`), :func:`package_locations`
locates the package (:func:`importlib.util.find_spec` of a top-level name executes nothing).
Asked each time (not cached): ``sys.path`` may change between runs in one process (tests).

:mod:`importlib.metadata` is imported by the first question that needs it: it costs ~20 ms
(``email``, ``zipfile``, ``csv``), and a run whose project declares its verl never asks
(benchmark items 9 and 10).
"""

from __future__ import annotations


def installed_metadata(name: str) -> tuple[str, str] | None:
    """The installed distribution ``name``'s version (as its metadata spells it, ``""`` when
    it has none) and its metadata folder (the ``.dist-info``/``.egg-info``), or ``None`` when
    :func:`importlib.metadata.distribution` finds none on ``sys.path``.

    Args:
        name: the distribution's name, e.g. ``"verl"``.
    """
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    raw = dist.version or ""
    # PathDistribution (the finder's own class) keeps its metadata directory in ``_path``.
    location = getattr(dist, "_path", None)
    path = str(location) if location is not None else str(dist.locate_file(""))
    return raw, path


def package_locations(name: str) -> list[str]:
    """The folders the top-level package ``name`` is imported from
    (``find_spec(name).submodule_search_locations``), ``[]`` when it is not installed or is a
    module (nothing is imported: the spec of a top-level name runs no code).

    Args:
        name: a top-level package, e.g. ``"verl"``.
    """
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    return list(spec.submodule_search_locations or []) if spec else []


__all__ = ["installed_metadata", "package_locations"]
