"""Every shell snippet and code example in README.md and docs/ runs (issue 28).

The fenced blocks are collected from the Markdown and run in a temporary copy of the
repository's ``fixtures/``, ``tests/data/`` and ``docs/``, with this worktree's
``ppo-migrate`` first on ``PATH``:

- ``console``: each ``$ `` line is a command (run with bash, standard error merged into
  standard output, as a terminal shows it); the lines up to the next command are output
  that must appear among the lines it prints. ``$ echo $?`` shows the previous
  command's exit code; a command not followed by one must exit 0.
- ``sh``: each line is a command that must exit 0. Commands that install with
  ``pip install`` are not run: the part after the installs runs, and the test command
  (``python -m pytest``) must be the one ``.ci/run`` runs.
- ``python``: run with this interpreter; when the prose right after the block says
  ``prints`` and shows a ``text`` block, that is its exact output. A block calling
  ``ray.init`` runs against ``docs_stub_ray`` (a stub ``ray`` module: the examples do not
  start a Ray cluster); nothing else is stubbed.
- ``diff``: a hunk of the difference between two files of the sandbox, named in its
  ``---``/``+++`` lines.
- ``text``, ``toml``, ``yaml``: not run here (``toml`` and ``yaml`` blocks are run by the
  tests named next to them: docs/settings.md's by its own console block,
  tests/integration/test_precommit_hooks.py, tests/integration/test_action.py). Keep ``text`` blocks few.
- Rule pages (docs/rules/): each Python example (split into files at ``# file: PATH``
  lines) is linted with ``ppo-migrate check``, which must report exactly the codes its
  comments mark, on those lines.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import run_cli

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
RUN = {"console", "sh", "python", "diff"}
NOT_RUN = {"text", "toml", "yaml"}

STUB_RAY = '''"""docs_stub_ray: a stub ``ray`` for the documentation examples (no Ray cluster in the
test). ``init`` checks that it was given a runtime_env dict and prints nothing."""

def init(*args, runtime_env=None, **kwargs):
    assert runtime_env is None or isinstance(runtime_env, dict), runtime_env
    return None

def is_initialized():
    return False
'''


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _blocks() -> list[tuple[str, int, str, str, str]]:
    """``(page, line, language, body, text after the block)`` of every fenced block."""
    out = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((page.relative_to(REPO).as_posix(), line, m.group(1), m.group(2), text[m.end():]))
    return out


BLOCKS = _blocks()


def _id(block) -> str:
    return f"{block[0]}:{block[1]}:{block[2]}"


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A temporary copy of fixtures/, tests/data/ and docs/ to run a block in."""
    root = tmp_path / "repo"
    shutil.copytree(REPO / "fixtures", root / "fixtures")
    shutil.copytree(REPO / "tests" / "data", root / "tests" / "data")
    shutil.copytree(REPO / "docs", root / "docs")
    return root


def _env(extra_path: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"CI", "PYTHONPATH"}}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(NO_COLOR="1", PYTHONIOENCODING="utf-8", GIT_CONFIG_NOSYSTEM="1")
    if extra_path is not None:
        env["PYTHONPATH"] = str(extra_path)
    return env


def _run_shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300
    )


#: Shell syntax beyond words and quotes: a step with any of it runs in bash.
_SHELL_SYNTAX = re.compile(r"[|<>;&$`*?(){}\\]")


def _run_step(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """One console step: a plain ``ppo-migrate ARGS`` (words and quotes only) runs in this
    process (``run_cli``: what the console script prints, issue 28), anything else in bash
    (README.md's main command, in ``test_sh_block``, runs the console script itself)."""
    words = shlex.split(command)
    if words and words[0] == "ppo-migrate" and not _SHELL_SYNTAX.search(command):
        done = run_cli(*words[1:], cwd=cwd, environ=_env())
        return subprocess.CompletedProcess(words, done.returncode, done.stdout, done.stderr)
    return _run_shell(command, cwd)


def _console_steps(body: str) -> list[tuple[str, list[str]]]:
    """``[(command, output lines shown)]`` of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"output before the first command: {line!r}"
            steps[-1][1].append(line)
    return steps


def test_every_block_is_run_or_explicitly_not_run() -> None:
    """A fence without a language, or in one this test does not know, fails: what is not
    run must say so (``text``)."""
    languages = {b[2] for b in BLOCKS}
    assert languages <= RUN | NOT_RUN, languages - RUN - NOT_RUN
    not_run = [_id(b) for b in BLOCKS if b[2] == "text" and not _is_expected_output(b)]
    assert len(not_run) <= 4, not_run  # the layout, and a few commands shown for reading
    assert len([b for b in BLOCKS if b[2] in RUN]) >= 30


def test_readme_is_a_door() -> None:
    """The README stays short (issue 28: at most ~120 lines) and links the docs."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 120
    for page in ("docs/apply.md", "docs/ci.md", "docs/runtime.md", "docs/rules.md", "docs/callee.md",
                 "docs/threading.md", "docs/settings.md", "docs/check.md"):
        assert f"]({page}" in text, page
        assert (REPO / page).is_file(), page


def _is_expected_output(block) -> bool:
    """A ``text`` block that is the output of the ``python`` block before it."""
    page, line, _, _, _ = block
    before = [b for b in BLOCKS if b[0] == page and b[1] < line]
    return bool(before) and before[-1][2] == "python" and _expected_output(before[-1]) is not None


def _expected_output(block) -> str | None:
    m = re.match(r"\s*prints\s*\n\s*```text\n(.*?)^```", block[4], re.S | re.M)
    return m.group(1) if m else None


def test_the_setup_commands_are_the_ones_ci_runs() -> None:
    """The README's two set-up commands, byte for byte; the test command is the one
    ``.ci/run`` runs."""
    sh = [b[3] for b in BLOCKS if b[0] == "README.md" and b[2] == "sh"]
    assert sh == [
        "pip install . && ppo-migrate apply --diff --exit-zero fixtures/legacy\n",
        "pip install torch==2.13.0 && pip install -e '.[test]' && python -m pytest\n",
    ]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert sh[1].rstrip("\n") in ci


@pytest.mark.parametrize("block", [b for b in BLOCKS if b[2] == "sh"], ids=_id)
def test_sh_block(block, sandbox: Path) -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for line in block[3].splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("&&")]
        rest = [p for p in parts if not p.startswith("pip install")]
        if rest == ["python -m pytest"]:
            assert line in ci, line  # not run here: it is the suite itself
            continue
        proc = _run_shell(" && ".join(rest), sandbox)
        assert proc.returncode == 0, (line, proc.stdout, proc.stderr)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b[2] == "console"], ids=_id)
def test_console_block(block, sandbox: Path) -> None:
    steps = _console_steps(block[3])
    rc = None
    for i, (command, shown) in enumerate(steps):
        if command == "echo $?":
            assert shown == [str(rc)], (command, shown, rc)
            continue
        proc = _run_step(command, sandbox)
        rc = proc.returncode
        printed = (proc.stdout + proc.stderr).replace(str(sandbox) + os.sep, "")
        lines = [line.rstrip() for line in printed.splitlines()]
        followed_by_rc = i + 1 < len(steps) and steps[i + 1][0] == "echo $?"
        if not followed_by_rc:
            assert rc == 0, (command, printed)
        for line in shown:
            if line.strip():
                assert line.rstrip() in lines, (command, line, printed)


def _python_runs(block, sandbox: Path) -> subprocess.CompletedProcess[str]:
    stub = None
    if "ray.init(" in block[3]:
        stub = sandbox.parent / "docs_stub_ray"
        stub.mkdir(exist_ok=True)
        (stub / "ray.py").write_text(STUB_RAY, encoding="utf-8")
    return warm_python.run(
        [sys.executable, "-c", block[3]], cwd=sandbox, env=_env(stub),
        capture_output=True, text=True, timeout=300,
    )


@pytest.mark.parametrize(
    "block", [b for b in BLOCKS if b[2] == "python" and not b[0].startswith("docs/rules/")], ids=_id
)
def test_python_block(block, sandbox: Path) -> None:
    proc = _python_runs(block, sandbox)
    assert proc.returncode == 0, proc.stderr
    expected = _expected_output(block)
    if expected is not None:
        assert proc.stderr + proc.stdout == expected


def _example_files(body: str) -> dict[str, str]:
    """A rule example's files: ``# file: PATH`` lines start one (else ``example.py``)."""
    files: dict[str, str] = {}
    current = "example.py"
    for line in body.splitlines(keepends=True):
        m = re.match(r"# file: (\S+)", line)
        if m:
            current = m.group(1)
            continue
        files[current] = files.get(current, "") + line
    return files


@pytest.mark.parametrize(
    "block", [b for b in BLOCKS if b[2] == "python" and b[0].startswith("docs/rules/")], ids=_id
)
def test_rule_example_is_reported_as_marked(block, tmp_path: Path) -> None:
    """A rule page's example is linted: ``check`` reports exactly the codes its comments
    mark (``# PPO001``), on those lines, and nothing on the lines marked ``fixed``."""
    import json

    files = _example_files(block[3])
    (tmp_path / "pyproject.toml").write_text("[tool.ppo-migrate]\n", encoding="utf-8")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        for package in Path(name).parents:  # a vendored copy is a package
            if package != Path(".") and not (tmp_path / package / "__init__.py").exists():
                (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    proc = run_cli("check", "--output-format", "json", "--show-shims", "--show-notices",
                   "--exit-zero", ".", cwd=tmp_path, environ=_env())
    assert proc.returncode == 0, proc.stderr
    got = sorted(
        (Path(d["filename"]).relative_to(tmp_path).as_posix(), d["location"]["row"], d["code"])
        for d in json.loads(proc.stdout)
    )
    marked = sorted(
        (name, row, code)
        for name, text in files.items()
        for row, line in enumerate(text.splitlines(), 1)
        for code in re.findall(r"# (PPO\d{3})", line)
    )
    assert marked, "the example marks the line the rule reports"
    assert got == marked
    assert any(block[0].endswith(f"/{code}.md") for _, _, code in marked)  # its own rule


@pytest.mark.parametrize("block", [b for b in BLOCKS if b[2] == "diff"], ids=_id)
def test_diff_block(block, sandbox: Path) -> None:
    old = re.search(r"^--- a/(\S+)", block[3], re.M).group(1)
    new = re.search(r"^\+\+\+ b/(\S+)", block[3], re.M).group(1)
    proc = subprocess.run(["diff", "-u", old, new], cwd=sandbox, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    real = proc.stdout.splitlines()
    hunk = block[3].split("\n@@", 1)[1].splitlines()[1:]
    body = "\n".join(real[real.index(next(h for h in real if h.startswith("@@"))) + 1:])
    assert "\n".join(hunk) in body
    # and apply makes exactly that change
    run = _run_shell(f"ppo-migrate apply --output-format concise {Path(old).parents[2]} >/dev/null; diff -q {old} {new}", sandbox)
    assert run.returncode == 0, run.stdout + run.stderr


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower-case; letters, digits, ``-``, ``_`` and
    spaces kept; spaces become ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_relative_links_and_anchors_resolve() -> None:
    """Every relative link of README.md and docs/ names an existing file, and an anchor
    into a Markdown page names one of its headings."""
    broken = []
    for page in _pages():
        text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", page.read_text(encoding="utf-8")))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append((page.name, target))
                continue
            if fragment and file.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", FENCE.sub("", file.read_text(encoding="utf-8")), re.M)
                if fragment not in {_anchor(h) for h in headings}:
                    broken.append((page.name, target))
    assert broken == []
