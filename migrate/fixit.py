"""Fixit 2 integration: ``ppo_migrate.fixit:ConfiglessRuntimeEnvCall``.

Enable it with::

    [tool.fixit]
    enable = ["ppo_migrate.fixit:ConfiglessRuntimeEnvCall"]

The rule lives in :mod:`ppo_migrate.adapters.fixit_rule`; this module only re-exports
it under the documented name. (Imports are absolute in Python 3, so the
``import fixit`` inside the rule module finds the real Fixit package, not
this module.) Importing it requires Fixit (``pip install 'ppo-migrate[fixit]'``).
"""

from __future__ import annotations

from ppo_migrate.adapters.fixit_rule import ConfiglessRuntimeEnvCall

__all__ = ["ConfiglessRuntimeEnvCall"]
