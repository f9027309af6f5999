"""``python -m ppo_migrate``: the same as the ``ppo-migrate`` command."""

import os
import sys


def _drop_working_directory_from_path() -> None:
    """Never import modules from the tree being analysed.

    ``python -m`` puts the working directory first on ``sys.path``; run inside the
    tree to migrate, an ``ast.py`` or ``tokenize.py`` there would be imported
    (and run) in place of the standard library's when the CLI imports it. Only
    ``os`` and ``sys`` (already loaded by the interpreter) are imported before this.
    """
    cwd = os.getcwd()
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if package_parent == cwd:  # a source checkout run in place: keep it importable
        return
    # only the entry ``-m`` added: the same folder later on the path (``site-packages``
    # itself as the working directory, a ``PYTHONPATH`` entry) stays, or the CLI's own
    # dependencies would no longer import
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == cwd:
        del sys.path[0]


_drop_working_directory_from_path()

from ppo_migrate.cli.entry import main  # noqa: E402

if __name__ == "__main__":
    main()
