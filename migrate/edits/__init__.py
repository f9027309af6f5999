"""The edits: what the analysis core decided, written into the user's files.

* :mod:`.text_edits`: one file's findings and fixes, spliced into the original text
  (no LibCST): what ``check`` and ``apply`` run per file.
* :mod:`.cst_calls`: the same call edit as a LibCST edit, and the guards for handing a
  text to LibCST (for the adapters and the structural edits below).
* :mod:`.thread_config`: ``apply --thread-config``'s parameters and keywords (LibCST).
* :mod:`.imports` and :mod:`.import_sections`: ``apply --use-ppo-runtime``'s import move
  (LibCST), placed as isort/ruff sort imports.
* :mod:`.noqa`: ``--add-noqa``.

No module here decides a scope or a binding: each asks :mod:`ppo_migrate.rules`.
"""
