"""Python that no ``.py`` file holds (:mod:`ppo_migrate.rules.embedded_python`): the shell
heredocs Python reads its program from (trial 26f, g4_heredoc_python_smoke)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from ppo_migrate.project.snapshot import current
from ppo_migrate.rules.embedded_python import _heredocs, embedded_python

WORDS = [b"get_ppo_ray_runtime_env"]
FAKE = "launcher.get_ppo_ray_runtime_env = lambda: {}"


def _read(text: str) -> list[tuple[int, str | None, str | None, list[int]]]:
    """``(line, problem, code, statement lines)`` of each heredoc of ``text``."""
    return [
        (e.line, e.problem, ast.unparse(e.tree) if e.tree is not None else None,
         [s.lineno for s in e.tree.body] if e.tree is not None else [])
        for e in _heredocs("f.sh", text, WORDS)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # ``python - <<'EOF'``: quoted, read as written; each statement at its line
        (f"#!/bin/bash\nset -e\npython - <<'EOF'\nimport launcher\n{FAKE}\nEOF\n",
         [(4, None, f"import launcher\n{FAKE}", [4, 5])]),
        # ``python3 <<PY`` unquoted: the shell's ``\$`` escape undone
        (f'python3 <<PY\nhome = "\\$HOME"\n{FAKE}\nPY\n', [(2, None, f"home = '$HOME'\n{FAKE}", [2, 3])]),
        # ``<<-`` in a block: tabs stripped, options and the script's arguments before it
        (f'if true; then\n\tpython -u - arg "$@" <<-EOF\n\t{FAKE}\n\tEOF\nfi\n', [(3, None, FAKE, [3])]),
        # a variable interpreter, ``"$PY"``, and a versioned path
        (f'"$PY" - <<"END"\n{FAKE}\nEND\n', [(2, None, FAKE, [2])]),
        (f"/usr/bin/python3.11 <<EOF\n{FAKE}\nEOF\n", [(2, None, FAKE, [2])]),
        # piped: ``cat <<'EOF' | python3 -``
        (f"cat <<'EOF' | python3 -\n{FAKE}\nEOF\n", [(2, None, FAKE, [2])]),
        # a workflow's ``run: |`` block: the delimiter indented, the block's indentation removed
        (f"      - run: |\n          python - <<'EOF'\n          {FAKE}\n          EOF\n",
         [(3, None, FAKE, [3])]),
        # two heredocs, the second alone spelling the name
        (f"python - <<A\nprint(1)\nA\npython - <<B\n{FAKE}\nB\n", [(5, None, FAKE, [5])]),
        # code that does not parse: given with the reason, at the line spelling the name
        (f"python - <<EOF\nx = $(date)\n{FAKE}\nEOF\n", [(3, "invalid syntax (line 1)", None, [])]),
    ],
)
def test_a_heredoc_python_reads_is_embedded_python(text: str, expected: list) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # the heredoc is the script's data, not the program
        f"python train.py <<EOF\n{FAKE}\nEOF\n",
        f"python -m app.cli <<EOF\n{FAKE}\nEOF\n",
        # not Python's: a file written, another program fed
        f"cat <<EOF > fake.py\n{FAKE}\nEOF\n",
        f"cat <<'EOF' | bash\n{FAKE}\nEOF\n",
        # Python's, but spelling no name looked for
        "python - <<EOF\nprint('smoke')\nEOF\n",
    ],
)
def test_other_heredocs_are_no_embedded_python(text: str) -> None:
    assert _read(text) == []


def test_heredocs_of_the_repository_s_command_files_are_read(tmp_path: Path, monkeypatch) -> None:
    """:func:`embedded_python` reads the heredocs of a shell script, a Dockerfile's ``RUN``
    and a workflow, besides their ``python -c`` strings."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    files = {
        "app/launcher.py": "def launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "scripts/smoke.sh": f"#!/bin/bash\npython - <<'EOF'\nimport launcher\n{FAKE}\nEOF\n",
        "Dockerfile": f"FROM python:3.11\nRUN python3 <<EOF\nimport launcher\n{FAKE}\nEOF\n",
        ".github/workflows/ci.yml": "jobs:\n  smoke:\n    steps:\n      - run: |\n"
        f"          python - <<'EOF'\n          import launcher\n          {FAKE}\n          EOF\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = embedded_python(["app/launcher.py"], WORDS, current().read_bytes)
    assert sorted((e.path, e.line, e.form, [s.lineno for s in e.tree.body]) for e in found) == [
        (".github/workflows/ci.yml", 6, "a python heredoc", [6, 7]),
        ("Dockerfile", 3, "a python heredoc", [3, 4]),
        ("scripts/smoke.sh", 3, "a python heredoc", [3, 4]),
    ]
