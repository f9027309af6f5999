"""The rule codes, one module per rule (``ppo001.py`` ... ``ppo904.py``, as ruff keeps one file per
rule): each holds its :class:`~ppo_migrate.rules.codes.rule.Rule` record as ``RULE``.

:data:`RULES` maps each code to its record, in the order of the codes; the diagnostics name
their rule by its code (:attr:`ppo_migrate.diagnostics.Diagnostic.code`).
"""

from ppo_migrate.rules.codes import (
    ppo001, ppo002, ppo003, ppo004, ppo005, ppo006, ppo901, ppo902, ppo903, ppo904,
)
from ppo_migrate.rules.codes.rule import DOCS_URL, RULE_PAGES_URL, Rule

#: code -> its rule, in the order of the codes (``PPO001`` first)
RULES: dict[str, Rule] = {m.RULE.code: m.RULE for m in (ppo001, ppo002, ppo003, ppo004, ppo005, ppo006, ppo901, ppo902, ppo903, ppo904)}

__all__ = ["DOCS_URL", "RULES", "RULE_PAGES_URL", "Rule"]
