"""PPO902 syntax-error: the file names the runtime function but cannot be parsed.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO902.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule
from ppo_migrate.rules.codes.texts import SAFETY_NONE_FILE

RULE = Rule(
    "PPO902",
    "syntax-error",
    "the file names the runtime function but cannot be parsed",
    "A file that names the runtime function could not be parsed as Python 3, so "
    "its calls could not be checked: the running Python's parser or compiler "
    "rejects it (a file using syntax newer than that Python too: run ppo-migrate "
    "with the project's Python), it is larger than 1 MiB, or it nests deeper than "
    "500 levels. A Jupyter notebook (`*.ipynb`) that is not valid JSON, has no "
    "`cells` list or a cell source that is neither a string nor a list of strings "
    "is reported the same way (`not a readable notebook: ...`), as is a code cell "
    "that does not parse (at its cell: `train.ipynb:cell 2:1:5`). So is a "
    "`pyproject.toml` that names the function and that `tomllib` rejects (`not valid "
    "TOML: ...`, at the line and column of the parser's message; a UTF-8 byte order mark "
    "included), or a `setup.cfg` that "
    "`configparser` rejects as setuptools reads it (`not valid setup.cfg: ...`; strict: "
    "a section or option written twice, or an interpolation that fails): the "
    "entry points it declares cannot be read (PPO006). When the file names the function "
    "only in a comment or under a key that declares no entry point (`description`), the "
    "message says so instead. An entry point whose value spells the function but is no "
    "`module:attribute` reference (in `setup.cfg`, `verl.trainer.constants_ppo:"
    "get_ppo_ray_runtime_env  # noqa: PPO006`, whose comment is part of the value) is "
    "reported too (`not a valid entry point value`): setuptools and pip refuse the package "
    "when they write its metadata, so the lint does not pass it. So is a `setup.cfg` "
    "starting with a UTF-8 byte order mark (setuptools reads it as UTF-8 and finds no "
    "section header), and a file of entry points setuptools refuses (`not a valid entry "
    "points file`: not UTF-8, or an option written twice where `[tool.setuptools.dynamic]` "
    "names it), reported where the packaging file names it.",
    "Fix the syntax error, or exclude the file.",
    "",
    fix_safety=SAFETY_NONE_FILE,
)
