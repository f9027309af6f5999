"""PPO901 unreadable-file: the file cannot be read or decoded.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO901.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule
from ppo_migrate.rules.codes.texts import SAFETY_NONE_FILE

RULE = Rule(
    "PPO901",
    "unreadable-file",
    "the file cannot be read or decoded",
    "The file could not be read (permissions, not a regular file, a broken "
    "symlink) or its bytes are not valid in its declared encoding. It was not "
    "checked, so it may still hold configless calls.",
    "Fix the file's permissions or encoding, or exclude it.",
    "",
    fix_safety=SAFETY_NONE_FILE,
)
