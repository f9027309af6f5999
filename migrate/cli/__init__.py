"""The command line: click's commands (:mod:`.app`), the plain lane without click
(:mod:`.entry`, :mod:`.commands`, :mod:`.console`), settings loading, progress, the
per-file runner and its pool, the caller phase and ``ppo-migrate env``: everything that
reads the command line, settings or the terminal. The judging modules never import it
(``pyproject.toml``'s import-linter contracts)."""
