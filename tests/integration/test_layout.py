"""The suite mirrors the package (issue 28): a test file outside ``tests/integration/`` is
named after the module it tests, ``tests/<folder>/test_<module>[_<part>].py`` for
``migrate/<folder>/<module>.py`` (``tests/runtime/`` for ``runtime/``), so that the tests of
a module are found by its name and a module's tests move with it."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _modules() -> set[tuple[str, str]]:
    """``(folder under tests/, module name)`` for every module of the two packages."""
    found = set()
    for package, prefix in (("migrate", ""), ("runtime", "runtime")):
        for path in (REPO / package).rglob("*.py"):
            folder = "/".join(path.relative_to(REPO / package).parts[:-1])
            found.add(("/".join(p for p in (prefix, folder) if p), path.stem))
    return found


def _mirrors_none(tests: list[Path]) -> list[str]:
    """The files of ``tests`` (paths under ``tests/``) that mirror no module."""
    modules = _modules()
    stray = []
    for test in tests:
        relative = test.relative_to(REPO / "tests")
        folder = "/".join(relative.parts[:-1])
        if folder.split("/")[0] == "integration":
            continue
        name = relative.stem[len("test_"):]
        if not any(f == folder and (name == m or name.startswith(m + "_")) for f, m in modules):
            stray.append(str(relative))
    return stray


def test_every_test_file_outside_integration_mirrors_a_module() -> None:
    assert _mirrors_none(sorted((REPO / "tests").rglob("test_*.py"))) == []


def test_the_rule_tells_a_stray_file_apart() -> None:
    """The check can fail: a file named after no module, or after a module of another
    folder, is reported; a suffixed part and an integration test are not."""
    tests = REPO / "tests"
    assert _mirrors_none([
        tests / "rules" / "test_no_such_module.py",
        tests / "output" / "test_check.py",  # check.py is in rules/, not output/
        tests / "rules" / "test_check_safe_fixes.py",
        tests / "runtime" / "test_env_ray_cluster.py",
        tests / "integration" / "test_anything.py",
    ]) == ["rules/test_no_such_module.py", "output/test_check.py"]


def test_no_unused_import_or_redefinition_in_the_package() -> None:
    """Merges of parallel work left unused imports behind (``re`` in cli/runner.py, ``os``
    in rules/stars.py): ruff's pyflakes rules keep the package clean of them."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F401,F811,F841",
         "--output-format", "concise", "migrate", "runtime"],
        cwd=root, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
