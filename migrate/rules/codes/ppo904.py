"""PPO904 file-changed-during-run: the file changed on disk while it was being rewritten.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO904.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule
from ppo_migrate.rules.codes.texts import SAFETY_NONE_FILE

RULE = Rule(
    "PPO904",
    "file-changed-during-run",
    "the file changed on disk while it was being rewritten",
    "The file's size, modification time or content changed between reading and "
    "writing it; it was not overwritten so that no edit is lost. With "
    "--thread-config the edits of one run span files and are made all or nothing: "
    "when one file changed after the caller plan read it, or cannot be written, no "
    "file of the change is left rewritten.",
    "Run again once nothing else is writing the file.",
    "",
    fix_safety=SAFETY_NONE_FILE,
)
