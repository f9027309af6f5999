"""Trial 26d (family 6, "check mentions 0 of 1 calls"): a *forwarding function*
``def ray_env(*args, **kwargs): return get_ppo_ray_runtime_env(*args, **kwargs)`` and a
configless ``ray_env()`` in the same module or in another one. The call of the forwarder is
a configless call of the runtime function (:func:`ppo_migrate.rules.targets.forwarded_callee`):
it is found and fixed as ``ray_env(config)``, and the rewritten code runs; a test double of
the forwarder or of the function makes the fix unsafe; what does not forward every argument
is left alone. Every case is executed before and after a plain ``apply``.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import pytest
import warm_python
from cli_helpers import run_cli, verl_stub
from ppo_migrate.rules.targets import forwarded_callee

FORWARDER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "\n\n"
    "def ray_env(*args, **kwargs):\n"
    '    """Ray\'s runtime_env, however verl builds it."""\n'
    "    return get_ppo_ray_runtime_env(*args, **kwargs)\n"
)
TRAIN = (
    "from omegaconf import OmegaConf\n"
    "from pkg.env import ray_env\n"
    "\n\n"
    "def main(config):\n"
    "    return ray_env()\n"
    "\n\n"
    "if __name__ == '__main__':\n"
    "    print('ran', main(OmegaConf.create({'trainer': 1})))\n"
)
SAME_FILE = FORWARDER + TRAIN.replace("from pkg.env import ray_env\n", "").replace(
    "from omegaconf import OmegaConf\n", ""
).replace("if __name__", "from omegaconf import OmegaConf  # noqa: E402\n\nif __name__")


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in {"requirements.txt": "verl>=0.9\n", "pkg/__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _ran(root: Path, stub: Path, *command: str) -> str:
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{stub}", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = warm_python.run([sys.executable, *command], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def _found(root: Path) -> list[tuple]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return sorted(
        (f["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], f["code"], f["location"]["row"],
         (f["fix"] or {}).get("applicability"))
        for f in json.loads(proc.stdout)
    )


@pytest.mark.parametrize(
    ("files", "entry", "caller"),
    [
        ({"pkg/env.py": FORWARDER, "train.py": TRAIN}, "train.py", "train.py"),
        ({"pkg/env.py": SAME_FILE}, "pkg/env.py", "pkg/env.py"),
    ],
    ids=["another-module", "same-module"],
)
def test_a_configless_call_of_a_forwarder_is_found_fixed_and_runs(
    tmp_path: Path, files: dict[str, str], entry: str, caller: str
) -> None:
    root = _project(tmp_path / "proj", files)
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub, entry) == "ran None"  # verl 0.9's stub returns the config it gets
    assert _found(root) == [(caller, "PPO001", 10 if caller == "pkg/env.py" else 6, "safe")]
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert "    return ray_env(config)\n" in (root / caller).read_text()
    assert "get_ppo_ray_runtime_env(*args, **kwargs)" in (root / "pkg/env.py").read_text()
    assert _ran(root, stub, entry) == "ran {'trainer': 1}"


@pytest.mark.parametrize("replaced", ["ray_env", "get_ppo_ray_runtime_env"])
def test_a_double_of_the_forwarder_or_of_the_function_makes_the_fix_unsafe(tmp_path: Path, replaced: str) -> None:
    """A test replacing either with a zero-argument fake would fail on ``ray_env(config)``:
    the fix is unsafe, and a plain ``apply`` leaves the code (and the test) running."""
    test = (
        "from pkg import env\n\n\n"
        "def test_main(monkeypatch):\n"
        f"    monkeypatch.setattr(env, {replaced!r}, lambda: {{'env_vars': {{}}}})\n"
        "    assert env.main({'trainer': 1}) == {'env_vars': {}}\n"
    )
    root = _project(tmp_path / "proj", {"pkg/env.py": SAME_FILE, "tests/test_env.py": test})
    stub = verl_stub(tmp_path / "stub")
    _ran(root, stub, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    assert _found(root) == [("pkg/env.py", "PPO001", 10, "unsafe")]
    before = (root / "pkg/env.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1  # a finding remains
    assert (root / "pkg/env.py").read_text() == before
    _ran(root, stub, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")


@pytest.mark.parametrize(
    ("source", "forwards"),
    [
        ("def f(*a, **k):\n    return g(*a, **k)\n", True),
        ("def f(*a):\n    g(*a)\n", True),
        ("def f(*a, **k):\n    '''doc'''\n    return m.g(*a, **k)\n", True),
        ("def f(**k):\n    return g(**k)\n", False),  # ``f(config)`` would raise: no positional
        ("def f(x, *a):\n    return g(*a)\n", False),  # ``config`` would land in ``x``
        ("def f(*a, **k):\n    return g(*a)\n", False),  # keywords dropped
        ("def f(*a, **k):\n    return g(1, *a, **k)\n", False),  # another argument first
        ("def f(*a):\n    x = 1\n    return g(*a)\n", False),  # does more than forward
        ("@cache\ndef f(*a):\n    return g(*a)\n", False),  # a decorator may change the call
        ("def f(*a):\n    return h(*a)(1)\n", False),  # the callee is no dotted name
    ],
)
def test_what_counts_as_forwarding(source: str, forwards: bool) -> None:
    found = forwarded_callee(ast.parse(source).body[0])
    assert (ast.unparse(found) if found is not None else None) == (
        ("m.g" if "m.g" in source else "g") if forwards else None
    )


def test_a_method_that_forwards_is_not_followed(tmp_path: Path) -> None:
    """In a class body ``def make(*args)`` receives the instance first: ``obj.make(config)``
    would pass it on as the config. Such a method is no forwarder; nothing is reported or
    rewritten."""
    source = FORWARDER.replace("def ray_env", "class Env:\n    def ray_env").replace(
        '    """Ray', '        """Ray').replace("    return get_", "        return get_")
    source += "\n\ndef main(config):\n    return Env().ray_env()\n"
    root = _project(tmp_path / "proj", {"pkg/env.py": source})
    assert _found(root) == []


#: trial 26e (family 6, M2): the forwarder as a lambda bound to a name
LAMBDA_FORWARDER = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "\n"
    "ray_env = lambda *a, **k: get_ppo_ray_runtime_env(*a, **k)  # noqa: E731\n"
)
LAMBDA_SAME_FILE = SAME_FILE.replace(FORWARDER, LAMBDA_FORWARDER)


@pytest.mark.parametrize("thread", [False, True], ids=["apply", "apply-thread-config"])
@pytest.mark.parametrize(
    ("files", "entry", "caller", "row"),
    [
        ({"pkg/env.py": LAMBDA_FORWARDER, "train.py": TRAIN}, "train.py", "train.py", 6),
        ({"pkg/env.py": LAMBDA_SAME_FILE}, "pkg/env.py", "pkg/env.py", 7),
    ],
    ids=["another-module", "same-module"],
)
def test_a_configless_call_of_a_lambda_forwarder_is_found_fixed_and_runs(
    tmp_path: Path, files: dict[str, str], entry: str, caller: str, row: int, thread: bool
) -> None:
    root = _project(tmp_path / "proj", files)
    stub = verl_stub(tmp_path / "stub")
    assert _ran(root, stub, entry) == "ran None"
    assert _found(root) == [(caller, "PPO001", row, "safe")]
    options = ("--thread-config",) if thread else ()
    assert run_cli("apply", *options, ".", cwd=root).returncode == 0
    assert "    return ray_env(config)\n" in (root / caller).read_text()
    assert "get_ppo_ray_runtime_env(*a, **k)" in (root / "pkg/env.py").read_text()
    assert _ran(root, stub, entry) == "ran {'trainer': 1}"


@pytest.mark.parametrize(
    ("source", "forwards"),
    [
        ("f = lambda *a, **k: g(*a, **k)\n", True),
        ("f = lambda *a: m.g(*a)\n", True),
        ("f = lambda **k: g(**k)\n", False),  # ``f(config)`` would raise
        ("f = lambda x, *a: g(*a)\n", False),  # ``config`` would land in ``x``
        ("f = lambda *a, **k: g(*a)\n", False),  # keywords dropped
        ("f = lambda *a: g(1, *a)\n", False),  # another argument first
        ("f = lambda *a: h(*a)(1)\n", False),  # the callee is no dotted name
    ],
)
def test_what_counts_as_a_forwarding_lambda(source: str, forwards: bool) -> None:
    found = forwarded_callee(ast.parse(source).body[0].value)
    assert (ast.unparse(found) if found is not None else None) == (
        ("m.g" if "m.g" in source else "g") if forwards else None
    )


@pytest.mark.parametrize(
    ("forwarder", "found"),
    [
        ("ray_env = lambda **k: get_ppo_ray_runtime_env(**k)  # noqa: E731\n", []),
        # the lambda's own configless call: an entry point with no config (as before)
        ("ray_env = lambda *a: get_ppo_ray_runtime_env()  # noqa: E731\n", [("pkg/env.py", "PPO002", 3, None)]),
        ("class Env:\n    ray_env = lambda *a: get_ppo_ray_runtime_env(*a)  # noqa: E731\n\n\n"
         "ray_env = Env().ray_env\n", []),
    ],
    ids=["keywords-only", "drops-arguments", "class-attribute"],
)
def test_a_lambda_that_does_not_forward_every_argument_is_left_alone(
    tmp_path: Path, forwarder: str, found: list[tuple]
) -> None:
    """``ray_env(config)`` would raise (or pass the instance as the config): the call of
    ``ray_env()`` is not reported, nothing is rewritten, and the project still runs after
    ``apply``."""
    source = LAMBDA_SAME_FILE.replace(LAMBDA_FORWARDER.split("\n", 2)[2], forwarder)
    root = _project(tmp_path / "proj", {"pkg/env.py": source})
    stub = verl_stub(tmp_path / "stub")
    _ran(root, stub, "pkg/env.py")
    assert _found(root) == found
    run_cli("apply", ".", cwd=root)
    assert (root / "pkg/env.py").read_text() == source
    _ran(root, stub, "pkg/env.py")
