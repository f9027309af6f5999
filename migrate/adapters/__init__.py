"""Thin adapters exposing the analysis core through other frameworks.

* :mod:`.codemod`: the LibCST codemod command ``PassConfigCommand`` (public path
  ``ppo_migrate.codemod.PassConfigCommand``).
* :mod:`.fixit_rule`: the Fixit 2 rule ``ConfiglessRuntimeEnvCall`` (public path
  ``ppo_migrate.fixit:ConfiglessRuntimeEnvCall``).
"""
