"""Compatibility shims are left alone and reported only with ``show_shims`` (PPO004)."""

from __future__ import annotations


import pytest

from ppo_migrate.codemod import process_text
from ppo_migrate.settings_model import Settings

#: verl 0.9.1 decides the callee (issue 26: where nothing declares verl every fix is unsafe)
DECIDED = Settings(verl_version="0.9.1", verl_version_from_cli=True)

HEAD = "import inspect\nfrom inspect import signature\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\n"

SHIMS = {
    "signature-parameters-else": "def f(config):\n    if inspect.signature(g).parameters:\n        e = g(config)\n    else:\n        e = g()\n",
    "not-signature-parameters": "def f(config):\n    if not signature(g).parameters:\n        e = g()\n",
    "len-parameters-eq-0": "def f(config):\n    if len(inspect.signature(g).parameters) == 0:\n        e = g()\n",
    "config-not-in-parameters": "def f(config):\n    if 'config' not in inspect.signature(g).parameters:\n        e = g()\n",
    "co_argcount": "def f(config):\n    if g.__code__.co_argcount == 0:\n        e = g()\n",
    "elif-branch": "def f(config):\n    if inspect.signature(g).parameters:\n        e = g(config)\n    elif True:\n        e = g()\n",
    "conditional-expression": "def f(config):\n    e = g(config) if inspect.signature(g).parameters else g()\n",
    "except-typeerror": "def f(config):\n    try:\n        e = g(config)\n    except TypeError:\n        e = g()\n",
    "except-tuple-with-typeerror": "def f(config):\n    try:\n        e = g(config=config)\n    except (ValueError, TypeError):\n        e = g(None)\n",
    # trial 26f (h8_version_gated_compat_branch): the code chooses by verl's release
    "metadata-version-else": "from importlib.metadata import version\n\ndef f(config):\n"
    "    if tuple(map(int, version('verl').split('.')[:2])) >= (0, 9):\n        e = g(config)\n    else:\n        e = g()\n",
    "dunder-version-startswith": "import verl\n\ndef f(config):\n"
    "    if verl.__version__.startswith('0.8'):\n        e = g()\n    else:\n        e = g(config)\n",
    "hasattr-feature": "from verl.trainer import constants_ppo as cp\n\ndef f(config):\n"
    "    e = g(config) if hasattr(cp, '_uses_megatron') else g()\n",
    "early-return": "import verl\n\ndef f(config):\n"
    "    if verl.__version__ >= '0.9':\n        return g(config)\n    return g()\n",
    "helper-function": "import verl\n\ndef _new():\n    return getattr(verl, '__version__', '0.8') >= '0.9'\n\n"
    "def f(config):\n    if _new():\n        e = g(config)\n    else:\n        e = g()\n",
}


@pytest.mark.parametrize("name", sorted(SHIMS))
def test_shim_is_left_alone_and_hidden(name: str) -> None:
    src = HEAD + SHIMS[name]
    result = process_text(src, "m.py", DECIDED, fix=True)
    assert result.new_text is None
    assert result.diagnostics == ()


@pytest.mark.parametrize("name", sorted(SHIMS))
def test_shim_is_listed_with_show_shims(name: str) -> None:
    src = HEAD + SHIMS[name]
    settings = DECIDED.replace(show_shims=True)
    result = process_text(src, "m.py", settings, fix=False)
    codes = [d.code for d in result.diagnostics]
    assert codes == ["PPO004"]
    assert all(d.informational for d in result.diagnostics)


NOT_SHIMS = {
    # the configless call sits on the branch taken when the function HAS parameters
    "wrong-branch": "def f(config):\n    if inspect.signature(g).parameters:\n        e = g()\n",
    # a test that says nothing about the runtime function's signature
    "unrelated-if": "def f(config, flag):\n    if flag:\n        e = g()\n",
    # the signature of some other function
    "other-signature": "def f(config):\n    if not inspect.signature(print).parameters:\n        e = g()\n",
    # except TypeError whose try does not pass a config
    "except-without-config-try": "def f(config):\n    try:\n        e = g()\n    except TypeError:\n        e = g()\n",
    "except-valueerror": "def f(config):\n    try:\n        e = g(config)\n    except ValueError:\n        e = g()\n",
    # a test of something else, though its other branch passes a config
    "flag-with-config-branch": "def f(config, flag):\n    if flag:\n        e = g(config)\n    else:\n        e = g()\n",
}


def test_a_version_test_without_a_config_branch_is_no_shim_but_its_fix_is_unsafe() -> None:
    # not a choice between the two forms (the other branch passes no config), but a branch
    # chosen by verl's version: its fix is unsafe (``version-gated``), not made by ``apply``
    src = HEAD + (
        "import verl\n\ndef f(config):\n"
        "    if verl.__version__ >= '0.9':\n        e = g()\n    else:\n        e = None\n"
    )
    result = process_text(src, "m.py", DECIDED, fix=True)
    (d,) = result.diagnostics
    assert (d.code, d.fix.applicability, d.reason.kind) == ("PPO001", "unsafe", "version-gated")
    assert result.new_text is None


@pytest.mark.parametrize("name", sorted(NOT_SHIMS))
def test_not_a_shim_is_fixed(name: str) -> None:
    src = HEAD + NOT_SHIMS[name]
    result = process_text(src, "m.py", DECIDED, fix=True)
    assert result.new_text is not None
    assert "g(config)" in result.new_text.split("def f", 1)[1]
    assert result.new_text.count("g()") < src.count("g()")


# --------------------------------------------------------------------------------------------
# issue 12: the forms real public code uses -- the signature stored in local variables first


LOCAL_SHIMS = {
    "stored-signature-len": (
        "def f(config):\n    signature = inspect.signature(g)\n"
        "    if len(signature.parameters) == 0:\n        return g()\n    return g(config)\n"
    ),
    "stored-parameters-not": (
        "def f(config):\n    params = inspect.signature(g).parameters\n"
        "    if not params:\n        return g()\n    return g(config)\n"
    ),
    "config-in-stored-parameters": (
        "def f(config):\n    params = signature(g).parameters\n"
        "    if 'config' in params:\n        return g(config)\n    else:\n        return g()\n"
    ),
    "stored-co_argcount": (
        "def f(config):\n    n = g.__code__.co_argcount\n    if n == 0:\n        return g()\n    return g(config)\n"
    ),
    "stored-code-object": (
        "def f(config):\n    code = g.__code__\n    if code.co_argcount:\n        return g(config)\n    return g()\n"
    ),
    "getfullargspec-args": (
        "def f(config):\n    args = inspect.getfullargspec(g).args\n"
        "    if not args:\n        return g()\n    return g(config)\n"
    ),
    "getfullargspec-len": (
        "def f(config):\n    spec = inspect.getfullargspec(g)\n"
        "    if len(spec.args) == 0:\n        return g()\n    return g(config)\n"
    ),
    "parameters-keys-list": (
        "def f(config):\n    names = list(inspect.signature(g).parameters.keys())\n"
        "    return g(config) if names else g()\n"
    ),
    "module-level-flag": (
        "TAKES_CONFIG = len(inspect.signature(g).parameters) > 0\n\n"
        "def f(config):\n    if TAKES_CONFIG:\n        return g(config)\n    return g()\n"
    ),
}

LOCAL_NOT_SHIMS = {
    # rebound: its value at the test cannot be read
    "rebound-variable": (
        "def f(config, other):\n    params = inspect.signature(g).parameters\n    params = other\n"
        "    if not params:\n        return g()\n    return g(config)\n"
    ),
    # a parameter of the same name: not the stored signature
    "parameter-shadows": (
        "def f(config, params):\n    if not params:\n        return g()\n    return g(config)\n"
    ),
    # the stored signature of another function
    "other-function": (
        "def f(config):\n    params = inspect.signature(print).parameters\n"
        "    if not params:\n        return g()\n    return g(config)\n"
    ),
    # the configless call on the branch taken when the function HAS parameters
    "wrong-branch": (
        "def f(config):\n    params = inspect.signature(g).parameters\n"
        "    if params:\n        return g()\n    return g(config)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(LOCAL_SHIMS))
def test_local_variable_shims_are_left_alone_and_listed(name: str) -> None:
    src = HEAD + LOCAL_SHIMS[name]
    assert process_text(src, "m.py", DECIDED, fix=True).new_text is None
    shown = process_text(src, "m.py", DECIDED.replace(show_shims=True), fix=False)
    assert [d.code for d in shown.diagnostics] == ["PPO004"], shown.diagnostics


@pytest.mark.parametrize("name", sorted(LOCAL_SHIMS))
def test_local_variable_shims_run_against_both_signatures(name: str) -> None:
    """The oracle: each shim runs unchanged against verl before and after PR #6976."""
    src = LOCAL_SHIMS[name]
    for definition in ("def g():\n    return 'old'\n", "def g(config=None):\n    return ('new', config)\n"):
        namespace: dict = {}
        exec("import inspect\nfrom inspect import signature\n" + definition + src, namespace)
        assert namespace["f"]({"trainer": {}}) in ("old", ("new", {"trainer": {}}))


@pytest.mark.parametrize("name", sorted(LOCAL_NOT_SHIMS))
def test_what_only_looks_like_a_local_shim_is_not_one(name: str) -> None:
    src = HEAD + LOCAL_NOT_SHIMS[name]
    result = process_text(src, "m.py", DECIDED.replace(show_shims=True), fix=False)
    assert "PPO004" not in [d.code for d in result.diagnostics]


def test_a_version_gated_old_branch_runs_after_both_applies(tmp_path) -> None:
    """Trial 26f (``h8_version_gated_compat_branch``): ``pyproject.toml`` says ``verl>=0.9.0``
    and the code chooses the call's form by the release it finds; on a verl 0.8 cluster the
    configless branch runs. Both applies leave it, and the launcher still runs there."""
    from cli_helpers import VERL_08, launcher_project, launcher_ran, run_cli

    launcher = (
        "from importlib.metadata import PackageNotFoundError, version\n"
        "from omegaconf import OmegaConf\n"
        "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
        "def _verl_09():\n"
        "    try:\n"
        "        return tuple(int(p) for p in version('verl').split('.')[:2]) >= (0, 9)\n"
        "    except PackageNotFoundError:\n"
        "        import verl\n"
        "        return getattr(verl, '__version__', '0.8') >= '0.9'\n\n\n"
        "def launch(config):\n"
        "    if _verl_09():\n"
        "        return get_ppo_ray_runtime_env(config)\n"
        "    return get_ppo_ray_runtime_env()\n\n\n"
        "if __name__ == '__main__':\n"
        "    print('ran', launch(OmegaConf.create({'trainer': 2})))\n"
    )
    pyproject = '[project]\nname = "proj"\nversion = "0.1.0"\ndependencies = ["verl>=0.9.0"]\n'
    root, site = launcher_project(tmp_path, {"pyproject.toml": pyproject}, VERL_08)
    (root / "train.py").write_text(launcher)
    assert launcher_ran(root, site) == "ran None"
    proc = run_cli("check", "--output-format", "json", "--exit-zero", "--show-shims", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    import json

    (found,) = json.loads(proc.stdout)
    assert (found["code"], found["location"]["row"]) == ("PPO004", 17)
    assert "a test of verl's release chooses" in found["message"]
    for extra in ((), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stderr
        assert (root / "train.py").read_text() == launcher
        assert launcher_ran(root, site) == "ran None"
