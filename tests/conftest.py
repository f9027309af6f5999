"""Suite-wide collection order: the long tests first.

Under pytest-xdist (``-n auto``, the default) each worker takes the next test as it finishes
one; a long test met last leaves one core working alone at the end. Tests marked ``slow``
(the pre-commit hooks, the Action, the whole corpora and grids) are therefore run first,
the others in their usual order.
"""

from __future__ import annotations


def pytest_collection_modifyitems(session, config, items) -> None:
    """Move the ``slow`` tests to the front, keeping the order within each part."""
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("slow") is None)
