"""Benchmark items 9 and 10 (issue 26): a module's names skip work whose answer cheap facts
already decide, and answer exactly as the full work does."""

from __future__ import annotations

from pathlib import Path

import pytest
from ppo_migrate.project import modules
from ppo_migrate.project.snapshot import run_scope


def test_namespace_prefixes_are_worked_out_once_a_folder_in_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ns" / "pkg").mkdir(parents=True)
    (tmp_path / "ns" / "pkg" / "__init__.py").write_text("")
    a, b = tmp_path / "ns" / "pkg" / "a.py", tmp_path / "ns" / "pkg" / "b.py"
    outside = modules.namespace_prefixes(a)
    assert outside[:2] == ["ns", f"{tmp_path.name}.ns"]
    assert modules.module_names(b, tmp_path) == ("pkg.b", "ns.pkg.b")
    asked: list[object] = []
    package = modules.module_package

    def counting(path):
        asked.append(path)
        return package(path)

    monkeypatch.setattr(modules, "module_package", counting)
    with run_scope():
        first = modules.namespace_prefixes(a)
        first.append("changed by its caller")
        assert modules.namespace_prefixes(b) == outside  # the same folder: the same answer
        assert modules.module_names(b, tmp_path) == ("pkg.b", "ns.pkg.b")
        assert modules.module_names(a, tmp_path) == ("pkg.a", "ns.pkg.a")
    # the folders climbed once: ``namespace_prefixes`` and the depth below the root, a
    # folder each, and ``module_name``'s own package of each file
    assert len(asked) == 4
