"""Doctests in the repository's documentation files: test code the replacement table reads.

Trial 26d (issue 26, family 4): ``tests/test_docs.py`` runs
``doctest.testfile("../docs/usage.rst")``, a Makefile runs ``python -m doctest
docs/usage.md``, tox runs ``pytest --doctest-glob="*.md" README.md``; the example
``>>> launcher.get_ppo_ray_runtime_env = lambda: {...}`` replaces the runtime function with a
zero-argument fake, and the rewritten call then fails the doctest. Which files a test loads
as doctests cannot be told from pytest's options alone (``doctest.testfile``,
``doctest.DocFileSuite``, ``python -m doctest``, a runner's ``--doctest-glob`` on its
command line), so the rule is conservative and needs no reading of those: **every
documentation file of the repository** (:data:`DOC_SUFFIXES`) that holds a doctest example
(``>>>``) and spells a name the table looks for is read as test code, as the files of
pytest's ``--doctest-glob`` are (:func:`ppo_migrate.rules.patches.doctest_globs`).

A false positive costs a safe fix turned unsafe, and only where a documentation example
*replaces* the function (a call in an example is no replacement); a miss costs a failing
test. Bounds: the files are the run's one walk of the repository
(:func:`ppo_migrate.project.tree.repository_listing`: ignored folders and test data are not
in it), each read once through the run's snapshot, and a file larger than
:data:`MAX_DOC_BYTES` (a data set named ``*.txt``) is not read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ppo_migrate.project.repository import files_holding

#: The suffixes of documentation files whose doctest examples are read (reStructuredText,
#: Markdown, plain text, and doctest's own ``.doctest``), lower-cased.
DOC_SUFFIXES: tuple[str, ...] = (".rst", ".rest", ".md", ".markdown", ".txt", ".doctest")
#: A documentation file larger than this (bytes) is data, not read.
MAX_DOC_BYTES = 2_000_000


def is_doc_file(name: str) -> bool:
    """Whether a file named ``name`` is a documentation file (:data:`DOC_SUFFIXES`)."""
    return name.lower().endswith(DOC_SUFFIXES)


def doc_doctest_files(
    candidates: Sequence[str], words: Sequence[bytes], read: Callable[[str], bytes]
) -> list[tuple[str, bytes]]:
    """The repository's documentation files holding a doctest example that spells one of
    ``words``, with their bytes.

    Args:
        candidates: the files naming the runtime function (the prefilter's); the repository
            is the one the look-out for doubles walks
            (:func:`ppo_migrate.project.repository.files_holding`), as for pytest's
            ``--doctest-glob`` files.
        words: the names the replacement table looks for (encoded).
        read: the run's reader (:meth:`ppo_migrate.project.snapshot.Snapshot.read_bytes`).

    Returns:
        ``(display path, bytes)`` for each documentation file (:func:`is_doc_file`) of the
        repository's listing holding ``>>>`` and one of ``words``, in the listing's order;
        the path relative to the working directory when below it. A file that cannot be
        read or is larger than :data:`MAX_DOC_BYTES` is left out. Never raises ``OSError``.
    """
    return [
        (shown, data)
        for _, shown, data in files_holding(candidates, is_doc_file, words, MAX_DOC_BYTES, read)
        if b">>>" in data
    ]
