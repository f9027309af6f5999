"""The project's facade: each name comes from the backend module chosen at run time."""

import importlib

BACKEND = "legacy"


def __getattr__(name):
    return getattr(importlib.import_module(f"._impl_{BACKEND}", __name__), name)
