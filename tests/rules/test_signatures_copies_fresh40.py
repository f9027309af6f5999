"""Fresh user 40: copies of verl that a plain ``apply`` overlooked (BREAKs 2, 3 and 4).

* B2: ``app/verl/`` (no config) in a package folder counts when an in-tree copy decided
  too: the script ``app/train.py`` imports ``lib/x.py`` with ``app/`` first on ``sys.path``.
* B3: a renamed copy (``work/rlcore/``) in a folder git ignores is recognised by content.
* B4: an in-tree copy that takes a config beside a pinned release that takes none is a
  PPO005 naming both, whatever the calling module's import root.

Each project is *run* before and after a plain ``apply``: it runs the same both times.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cli_helpers import run_cli

OLD = "def get_ppo_ray_runtime_env():\n    return {'copy': 'no config'}\n"
NEW = "def get_ppo_ray_runtime_env(config=None):\n    return {'copy': repr(config)}\n"
RELEASE_08 = "def get_ppo_ray_runtime_env():\n    return {'release': '0.8'}\n"
CALLER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def make_env(config):\n    return get_ppo_ray_runtime_env()\n"
)
MAIN = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    return get_ppo_ray_runtime_env()\n\n\n"
    "print(main(OmegaConf.create({'actor_rollout_ref': {}})))\n"
)


def _copy(folder: str, body: str) -> dict[str, str]:
    return {f"{folder}/__init__.py": "", f"{folder}/trainer/__init__.py": "", f"{folder}/trainer/constants_ppo.py": body}


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(root: Path, command: str, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONSAFEPATH", None)
    env.pop("PYTHONPATH", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO00" in line]


def _runs_the_same_after_apply(root: Path, command: str, caller: str, expected: str, site: Path | None = None) -> None:
    proc = _run(root, command, site)
    assert (proc.returncode, proc.stdout.strip()) == (0, expected), proc.stderr
    text = (root / caller).read_text()
    run_cli("apply", ".", cwd=root)
    assert (root / caller).read_text() == text
    proc = _run(root, command, site)
    assert (proc.returncode, proc.stdout.strip()) == (0, expected), proc.stderr


def test_b2_a_package_folder_copy_counts_when_an_in_tree_copy_decided(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        **_copy("verl", NEW), "app/__init__.py": "", **_copy("app/verl", OLD), "lib/__init__.py": "",
        "lib/x.py": CALLER,
        "app/train.py": (
            "from omegaconf import OmegaConf\nfrom lib.x import make_env\n\n"
            "if __name__ == '__main__':\n    print(make_env(OmegaConf.create({'actor_rollout_ref': {}})))\n"
        ),
        "run.sh": "PYTHONPATH=. python app/train.py\n",
    })
    assert _concise(root) == [
        "lib/x.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; pass "
        "`config` (unsafe fix: `app/verl/trainer/constants_ppo.py:1` defines `get_ppo_ray_runtime_env()` "
        "without a config parameter (pre verl PR #6976): `app/verl/` is a package `verl` inside the "
        "package folder `app/`, besides the verl that `verl/trainer/constants_ppo.py:1` names; a file of "
        "`app/` run as a script puts `app/` first on sys.path, and then `app/verl/` is the verl of every "
        "module that process imports: passing the config raises TypeError; update or remove that copy, "
        "or run with --use-ppo-runtime)"
    ]
    _runs_the_same_after_apply(root, "sh run.sh", "lib/x.py", "{'copy': 'no config'}")


def test_b2_a_package_folder_copy_taking_a_config_keeps_the_safe_fix(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        **_copy("verl", NEW), "app/__init__.py": "", **_copy("app/verl", NEW), "lib/__init__.py": "",
        "lib/x.py": CALLER,
    })
    assert _concise(root) == [
        "lib/x.py:5:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]


def test_b3_a_renamed_copy_in_a_folder_git_ignores_makes_the_fix_unsafe(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9"]\n',
        ".gitignore": "work/\n", **_copy("work/rlcore", OLD), "app/train.py": MAIN,
        "run.sh": "ln -sfn work/rlcore verl\nPYTHONPATH=. python app/train.py\nstatus=$?\nrm verl\nexit $status\n",
    })
    assert _concise(root) == [
        "app/train.py:6:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; pass "
        "`config` (unsafe fix: `work/rlcore/trainer/constants_ppo.py:1` defines `get_ppo_ray_runtime_env()` "
        "without a config parameter (pre verl PR #6976): `work/rlcore/` (in `work/`, which git ignores) "
        "holds a copy of verl under another name (its `trainer/constants_ppo.py` binds "
        "`get_ppo_ray_runtime_env`), besides the verl that `pyproject.toml:4 verl>=0.9` names; if anything "
        "makes it `verl` when the project runs (a symbolic link or a copy named `verl` made by a launch "
        "script, a Makefile or the launcher, then sys.path or PYTHONPATH), passing the config raises "
        "TypeError; update or remove that copy, or run with --use-ppo-runtime)"
    ]
    _runs_the_same_after_apply(root, "sh run.sh", "app/train.py", "{'copy': 'no config'}")


def test_b3_a_renamed_copy_taking_a_config_in_an_ignored_folder_keeps_the_safe_fix(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9"]\n',
        ".gitignore": "work/\n", **_copy("work/deep/rlcore", NEW), "app/train.py": MAIN,
    })
    assert _concise(root) == [
        "app/train.py:6:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]


def test_b4_a_copy_beside_the_caller_and_an_older_pin_disagree(tmp_path: Path) -> None:
    """``main.py`` beside ``verl/`` (taking a config), ``verl==0.8.0`` pinned, and the
    project's launcher ``PYTHONSAFEPATH=1 python main.py``: the pinned release runs."""
    root = _write(tmp_path / "proj", {
        **_copy("verl", NEW), "requirements.txt": "verl==0.8.0\n", "main.py": MAIN,
        "run.sh": "PYTHONSAFEPATH=1 python main.py\n",
    })
    site = _write(tmp_path / "site", _copy("verl", RELEASE_08))
    assert _concise(root) == [
        "main.py:6:12: PPO005 `get_ppo_ray_runtime_env()` left as it is: the in-tree copy "
        "`verl/trainer/constants_ppo.py:1` takes a config, but `requirements.txt:1 verl==0.8.0` declares "
        "a verl release whose `get_ppo_ray_runtime_env()` takes none; which of them runs depends on "
        "sys.path when the trainer starts; require verl>=0.9.0 where the release is declared (or install "
        "the copy), set verl-version (or --verl-version) to the verl that runs, or run with --use-ppo-runtime"
    ]
    _runs_the_same_after_apply(root, "sh run.sh", "main.py", "{'release': '0.8'}", site)


def test_b4_python_pkg_main_runs_the_pinned_release(tmp_path: Path) -> None:
    """``python pkg/main.py`` puts ``pkg/``, not the root, first on ``sys.path``."""
    root = _write(tmp_path / "proj", {
        **_copy("verl", NEW), "requirements.txt": "verl==0.8.0\n", "pkg/__init__.py": "",
        "pkg/main.py": MAIN,
    })
    site = _write(tmp_path / "site", _copy("verl", RELEASE_08))
    assert [line.split(": ")[1].split(" ")[0] for line in _concise(root)] == ["PPO005"]
    _runs_the_same_after_apply(root, "python pkg/main.py", "pkg/main.py", "{'release': '0.8'}", site)


def test_b4_a_call_inside_the_copy_is_the_copy_s(tmp_path: Path) -> None:
    """verl's own modules import their own copy: the pin does not decide for them."""
    root = _write(tmp_path / "proj", {
        **_copy("verl", NEW), "requirements.txt": "verl==0.8.0\n",
        "verl/trainer/main_ppo.py": CALLER,
    })
    assert _concise(root) == [
        "verl/trainer/main_ppo.py:5:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config "
        "in scope; pass `config`"
    ]


def test_b4_a_copy_beside_the_caller_and_no_pin_decides(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {**_copy("verl", NEW), "main.py": MAIN})
    assert _concise(root) == [
        "main.py:6:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]
    proc = _run(root, "python main.py")
    assert (proc.returncode, proc.stdout.strip()) == (0, "{'copy': 'None'}"), proc.stderr
    run_cli("apply", ".", cwd=root)
    proc = _run(root, "python main.py")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith("{'copy': \"{'actor_rollout_ref'"), proc.stdout
