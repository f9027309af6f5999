"""``python -m ppo_migrate``: the same as the ``ppo-migrate`` command."""

from ppo_migrate.cli import main

if __name__ == "__main__":
    main()
