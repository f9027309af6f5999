"""PPO903 unresolvable-relative-import: a relative import climbs past the top-level package.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO903.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule
from ppo_migrate.rules.codes.texts import SAFETY_NONE_FILE

RULE = Rule(
    "PPO903",
    "unresolvable-relative-import",
    "a relative import climbs past the top-level package",
    "A relative import in a file that names the runtime function climbs above the "
    "outermost directory holding __init__.py, so the module it names cannot be "
    "known and calls through it are not resolved.",
    "Fix the import or add the missing __init__.py files.",
    "",
    fix_safety=SAFETY_NONE_FILE,
)
