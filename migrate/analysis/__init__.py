"""The analysis core: pure functions over Python's ``ast`` and ``symtable``.

No LibCST here: scopes, definite assignment, target calls, the callee's signature
in effect and the config to pass are decided on Python's own compiler, and the
LibCST adapters (codemod command, Fixit rule, structural edits) call into it.
"""
