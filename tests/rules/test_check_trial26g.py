"""Trial 26g, WRONG messages and MISSED calls (the BREAKs are another branch's).

* W1: with no pin, a tracked copy of verl on no import root the tool knows (``libs/verl/``
  beside a Bazel ``BUILD``, ``tools/upstream/verl/``) was told "no in-tree copy"; the reason
  now names the copy (and, when it takes no config, its definition), as it does once a pin
  is added. The fix stays unsafe.
* W2: an ``environment.yml`` ``pip:`` entry ``-e ./.deps/rlcore`` installs a (git-ignored)
  folder holding a ``verl/`` package: the copy it installs decides, PPO005 naming the line
  and the copy when it takes no config, as the Pipfile and pixi forms do; an unsafe fix when
  it takes one (the line spells no verl).
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import run_cli


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _concise(root: Path) -> list[str]:
    proc = run_cli("check", "--output-format", "concise", "--show-notices", ".", cwd=root)
    return [line for line in proc.stdout.splitlines() if ": PPO00" in line]


TRAIN = (
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    return get_ppo_ray_runtime_env()\n"
)
OLD = "def get_ppo_ray_runtime_env():\n    return {}\n"
NEW = "def get_ppo_ray_runtime_env(config=None):\n    return {}\n"
CALL = (
    "train.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; "
    "pass `config` (unsafe fix: nothing says which verl runs ("
)
TAIL = (
    "no verl pin in a file ppo-migrate reads, no verl-version, no installed verl), so the config may "
    "not be accepted; "
)
DECLARE = (
    "declare the verl the project runs (e.g. `verl>=0.9` in requirements.txt or pyproject.toml), "
    "or pass --verl-version)"
)


def _copy(root: str, body: str) -> dict[str, str]:
    return {
        f"{root}/verl/__init__.py": "",
        f"{root}/verl/trainer/__init__.py": "",
        f"{root}/verl/trainer/constants_ppo.py": body,
    }


def test_a_stray_copy_taking_no_config_is_named_when_nothing_is_pinned(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        **_copy("libs", OLD),
        # no ``imports``: the workspace root is on the path, the copy is ``libs.verl`` (with
        # ``imports = ["."]`` it is the verl of the rule's targets: test_import_roots_bazel.py)
        "libs/BUILD.bazel": 'py_library(name = "verl", srcs = glob(["verl/**/*.py"]))\n',
        "train.py": TRAIN,
    })
    assert _concise(root) == [
        CALL + "`libs/verl/` is a copy on no import root ppo-migrate knows, " + TAIL
        + "`libs/verl/trainer/constants_ppo.py:1` defines `get_ppo_ray_runtime_env()` without a config "
        "parameter (pre verl PR #6976): if anything puts that copy on sys.path (a build rule's `imports`, "
        "pytest's pythonpath, sys.path.insert, a Dockerfile, a .pth file), passing the config raises "
        "TypeError; " + DECLARE
    ]
    before = (root / "train.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1
    assert (root / "train.py").read_text() == before


def test_a_stray_copy_taking_a_config_is_named_and_the_fix_stays_unsafe(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {**_copy("tools/upstream", NEW), "train.py": TRAIN})
    assert _concise(root) == [
        CALL + "`tools/upstream/verl/` is a copy on no import root ppo-migrate knows, whose "
        "`get_ppo_ray_runtime_env` takes a config, " + TAIL + DECLARE
    ]
    before = (root / "train.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1
    assert (root / "train.py").read_text() == before


def test_a_git_ignored_copy_is_named_with_its_folder(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {".gitignore": ".deps/\n", **_copy(".deps/rlcore", OLD), "train.py": TRAIN})
    (line,) = _concise(root)
    assert line.startswith(
        CALL + "`.deps/rlcore/verl/` (in `.deps`, which git ignores) is a copy on no import root "
        "ppo-migrate knows, " + TAIL + "`.deps/rlcore/verl/trainer/constants_ppo.py:1` defines "
    )


ENVIRONMENT = (
    "name: rl\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n      - omegaconf\n"
    "      - -e ./.deps/checkouts/lab/rlcore\n"
)


def test_an_environment_yml_editable_install_of_an_old_copy_is_a_notice_naming_it(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        ".gitignore": ".deps/\n",
        **_copy(".deps/checkouts/lab/rlcore", OLD),
        "environment.yml": ENVIRONMENT,
        "train.py": TRAIN,
    })
    assert _concise(root) == [
        "train.py:5:12: PPO005 `get_ppo_ray_runtime_env()` left as it is: `environment.yml:7 -e "
        "./.deps/checkouts/lab/rlcore` installs `.deps/checkouts/lab/rlcore/`, which holds a `verl/` "
        "package: `.deps/checkouts/lab/rlcore/verl/trainer/constants_ppo.py:1` defines "
        "`get_ppo_ray_runtime_env()` without a config parameter (pre verl PR #6976); update that copy, "
        "or run with --use-ppo-runtime"
    ]
    before = (root / "train.py").read_text()
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=root).returncode == 0  # a notice only
    assert (root / "train.py").read_text() == before


def test_an_environment_yml_editable_install_of_a_new_copy_stays_an_unsafe_fix(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        ".gitignore": ".deps/\n",
        **_copy(".deps/checkouts/lab/rlcore", NEW),
        "environment.yml": ENVIRONMENT,
        "train.py": TRAIN,
    })
    (line,) = _concise(root)
    assert line.startswith(
        "train.py:5:12: PPO001 `get_ppo_ray_runtime_env()` called without the config in scope; pass "
        "`config` (unsafe fix: `environment.yml:7 -e ./.deps/checkouts/lab/rlcore` installs "
        "`.deps/checkouts/lab/rlcore/`, which holds a `verl/` package, whose "
    )
    assert "the line does not name verl, so ppo-migrate cannot tell that this copy is the verl that runs" in line
    before = (root / "train.py").read_text()
    assert run_cli("apply", ".", cwd=root).returncode == 1
    assert (root / "train.py").read_text() == before


def test_a_requirements_editable_install_of_the_project_itself_is_no_verl(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        "requirements.txt": "-e .\n",
        **_copy("sub", NEW),
        "train.py": TRAIN,
    })
    (line,) = _concise(root)
    assert line.startswith(CALL + "`sub/verl/` is a copy on no import root ppo-migrate knows, whose ")


MATCH_CLASS = (
    "from verl.trainer import constants_ppo\n\n\n"
    "def main(config):\n"
    "    match constants_ppo:\n"
    "        case object(get_ppo_ray_runtime_env=make_env) | object(other=make_env):\n"
    "            return make_env()\n"
)


def test_a_class_pattern_keyword_capture_is_the_attribute(tmp_path: Path) -> None:
    """Trial 26g, M1: ``case object(get_ppo_ray_runtime_env=make_env)`` binds ``make_env`` to
    the subject's attribute, as ``make_env = constants_ppo.get_ppo_ray_runtime_env`` would."""
    root = _write(tmp_path / "proj", {
        **_copy(".", NEW),
        "train.py": MATCH_CLASS.replace(" | object(other=make_env)", ""),
    })
    assert _concise(root) == [
        "train.py:7:20: PPO001 [*] `make_env()` called without the config in scope; pass `config`"
    ]
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert (root / "train.py").read_text() == MATCH_CLASS.replace(" | object(other=make_env)", "").replace(
        "make_env()", "make_env(config)")


def test_a_class_pattern_capture_of_another_attribute_is_no_target(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {
        **_copy(".", NEW),
        "train.py": MATCH_CLASS.replace("get_ppo_ray_runtime_env=make_env", "other=make_env"),
    })
    assert _concise(root) == []
    assert run_cli("check", ".", cwd=root).stdout.strip().splitlines()[-1] == "All checks passed!"


def test_alternatives_capturing_different_attributes_are_ambiguous(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {**_copy(".", NEW), "train.py": MATCH_CLASS})
    assert _concise(root) == [
        "train.py:7:20: PPO003 `make_env()` may or may not be the runtime function: it is bound to "
        "verl.trainer.constants_ppo.get_ppo_ray_runtime_env or verl.trainer.constants_ppo.other; not rewritten"
    ]


TYPE_CHECKING_PKG = (
    "from typing import TYPE_CHECKING\n\n"
    "if TYPE_CHECKING:\n    from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    "else:\n    import importlib\n\n"
    "    get_ppo_ray_runtime_env = importlib.import_module(\"verl.trainer.constants_ppo\").get_ppo_ray_runtime_env\n"
)
LAZY_PKG = (
    "import importlib\n\n_LAZY = {\"get_ppo_ray_runtime_env\": \"verl.trainer.constants_ppo\", \"other\": \"json\"}\n\n\n"
    "def __getattr__(name):\n    if name in _LAZY:\n"
    "        return getattr(importlib.import_module(_LAZY[name]), name)\n    raise AttributeError(name)\n"
)


def test_a_reexport_in_the_else_of_type_checking_is_followed(tmp_path: Path) -> None:
    """Trial 26g, M2: the ``else:`` binds ``import_module("...").get_...`` at run time."""
    train = "from pkg import get_ppo_ray_runtime_env\n\n\ndef main(config):\n    return get_ppo_ray_runtime_env()\n"
    root = _write(tmp_path / "proj", {**_copy(".", NEW), "pkg/__init__.py": TYPE_CHECKING_PKG, "train.py": train})
    assert _concise(root) == [
        "train.py:5:12: PPO001 [*] `get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert (root / "train.py").read_text() == train.replace("env()", "env(config)")


def test_a_lazy_import_table_served_by_a_module_getattr_is_a_reexport(tmp_path: Path) -> None:
    """Trial 26g, M3: ``_LAZY = {NAME: module}`` read by ``__getattr__`` re-exports NAME."""
    train = "import pkg\n\n\ndef main(config):\n    return pkg.get_ppo_ray_runtime_env()\n"
    root = _write(tmp_path / "proj", {**_copy(".", NEW), "pkg/__init__.py": LAZY_PKG, "train.py": train})
    assert _concise(root) == [
        "train.py:5:12: PPO001 [*] `pkg.get_ppo_ray_runtime_env()` called without the config in scope; pass `config`"
    ]
    assert run_cli("apply", ".", cwd=root).returncode == 0
    assert (root / "train.py").read_text() == train.replace("env()", "env(config)")


def test_a_lazy_table_hook_reads_only_its_table() -> None:
    import ast

    from ppo_migrate.rules.reexports import _lazy_table

    tree = ast.parse(LAZY_PKG)
    hook = tree.body[-1]
    resolve = {"importlib.import_module": "importlib.import_module"}.get
    assert _lazy_table(tree, hook, lambda node: resolve(ast.unparse(node))) == {
        "get_ppo_ray_runtime_env": "verl.trainer.constants_ppo", "other": "json",
    }
    other = ast.parse(LAZY_PKG.replace("getattr(importlib", "getattr(other_loader"))
    assert _lazy_table(other, other.body[-1], lambda node: resolve(ast.unparse(node))) == {}


def test_a_constraint_with_no_lower_bound_is_named_as_written(tmp_path: Path) -> None:
    """Trial 26g: ``-c`` constraints ``verl<0.9.0.dev0`` was told "may run verl 0.1"."""
    root = _write(tmp_path / "proj", {
        "requirements.txt": "-c constraints/production.txt\nverl\n",
        "constraints/production.txt": "verl<0.9.0.dev0\n",
        "train.py": TRAIN,
    })
    assert _concise(root) == [
        "train.py:5:12: PPO005 `get_ppo_ray_runtime_env()` left as it is: the project may run a verl "
        "release before 0.9.0 (`constraints/production.txt:1 verl<0.9.0.dev0` sets no lower bound), whose "
        "`get_ppo_ray_runtime_env()` takes no config (pre verl PR #6976); require verl>=0.9.0, or run with "
        "--use-ppo-runtime"
    ]


def test_a_lower_bound_keeps_its_release(tmp_path: Path) -> None:
    root = _write(tmp_path / "proj", {"requirements.txt": "verl>=0.8.0,<0.9.0\n", "train.py": TRAIN})
    assert _concise(root) == [
        "train.py:5:12: PPO005 `get_ppo_ray_runtime_env()` left as it is: the project may run verl 0.8.0 "
        "(`requirements.txt:1 verl>=0.8.0,<0.9.0`), whose `get_ppo_ray_runtime_env()` takes no config (pre "
        "verl PR #6976); require verl>=0.9.0, or run with --use-ppo-runtime"
    ]


def test_a_release_candidate_of_0_9_may_take_no_config(tmp_path: Path) -> None:
    """Trial 26g: ``verl==0.9.0rc1`` "takes no config" was a claim the tool cannot know."""
    root = _write(tmp_path / "proj", {"requirements.txt": "verl==0.9.0rc1\n", "train.py": TRAIN})
    assert _concise(root) == [
        "train.py:5:12: PPO005 `get_ppo_ray_runtime_env()` left as it is: the project runs verl 0.9.0rc1 "
        "(`requirements.txt:1 verl==0.9.0rc1`), a pre-release of 0.9.0 whose `get_ppo_ray_runtime_env()` "
        "may take no config (ppo-migrate cannot tell whether verl PR #6976 is in it); require verl>=0.9.0, "
        "or run with --use-ppo-runtime"
    ]


FIELD = (
    "{imports}\n\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "{decorator}class Hooks({base}):\n    make_env: {annotation} = get_ppo_ray_runtime_env\n\n\n"
    "def main(config):\n    return Hooks().make_env()\n"
)


def _field(tmp_path: Path, **parts: str) -> list[str]:
    root = _write(tmp_path / "proj", {**_copy(".", NEW), "train.py": FIELD.format(**parts)})
    return _concise(root)


def test_a_namedtuple_field_default_gets_no_self(tmp_path: Path) -> None:
    """Trial 26g: a NamedTuple field is a tuple item; ``Hooks().make_env()`` passes no ``self``."""
    assert _field(tmp_path, imports="from typing import Callable, NamedTuple", decorator="",
                  base="NamedTuple", annotation="Callable") == [
        "train.py:7:26: PPO006 `get_ppo_ray_runtime_env` is the default of a NamedTuple field (an instance's "
        "field holds the function itself: calls through it pass no `self`); the calls made through it cannot "
        "be checked: make sure each passes the config"
    ]


def test_a_dataclass_field_default_gets_no_self(tmp_path: Path) -> None:
    (line,) = _field(tmp_path, imports="import dataclasses\nfrom typing import Callable",
                     decorator="@dataclasses.dataclass(frozen=True)\n", base="", annotation="Callable")
    assert line.startswith("train.py:9:26: PPO006 `get_ppo_ray_runtime_env` is the default of a dataclass field (")


def test_a_classvar_of_a_dataclass_is_still_a_class_attribute(tmp_path: Path) -> None:
    (line,) = _field(tmp_path, imports="from dataclasses import dataclass\nfrom typing import Callable, ClassVar",
                     decorator="@dataclass\n", base="", annotation="ClassVar[Callable]")
    assert line.startswith(
        "train.py:9:36: PPO006 `get_ppo_ray_runtime_env` is stored as a class attribute (called as a method, it gets `self`)"
    )


YAML_DRIVER = (
    "from omegaconf import OmegaConf\n\nfrom verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n"
    "YAML = \"\"\"\nactor_rollout_ref:\n  actor:\n    strategy: ${oc.env:RL_ACTOR_STRATEGY}\ntrainer:\n  n_gpus_per_node: 1\n\"\"\"\n\n\n"
    "def main(config):\n    return get_ppo_ray_runtime_env()\n\n\n"
    "if __name__ == \"__main__\":\n    main(OmegaConf.create(YAML))\n"
)


def test_a_yaml_string_given_to_create_cannot_be_told(tmp_path: Path) -> None:
    """Trial 26g (k7): ``OmegaConf.create(YAML)``, ``YAML`` a module string, is YAML text the
    tool does not read: PPO002 stays (no fix), but says it cannot tell, not "is not"."""
    root = _write(tmp_path / "proj", {**_copy(".", NEW), "train.py": YAML_DRIVER})
    (line,) = _concise(root)
    assert line.startswith(
        "train.py:15:12: PPO002 `get_ppo_ray_runtime_env()` called without a config and no config it can read "
        "is in scope in `main` (a caller passes `OmegaConf.create(YAML)` for `config` (line 19), whose YAML "
        "text ppo-migrate does not read: it cannot tell whether it is a training config); this entry point "
        "must obtain the training config and pass it"
    )
    assert run_cli("apply", "--unsafe-fixes", ".", cwd=root).returncode == 1
    assert (root / "train.py").read_text() == YAML_DRIVER


def test_a_plain_string_passed_as_config_is_still_no_training_config(tmp_path: Path) -> None:
    driver = YAML_DRIVER.replace("main(OmegaConf.create(YAML))", "main(YAML)")
    root = _write(tmp_path / "proj", {**_copy(".", NEW), "train.py": driver})
    (line,) = _concise(root)
    assert "called without a config and no training config is in scope in `main`" in line


def test_an_inferred_editable_copy_never_overrides_a_pin(tmp_path: Path) -> None:
    """A pin of 0.8 refuses as before, whatever the ``-e`` folder's copy takes."""
    root = _write(tmp_path / "proj", {
        ".gitignore": ".deps/\n",
        **_copy(".deps/checkouts/lab/rlcore", NEW),
        "environment.yml": ENVIRONMENT,
        "requirements.txt": "verl>=0.8.0,<0.9.0\n",
        "train.py": TRAIN,
    })
    assert _concise(root) == [
        "train.py:5:12: PPO005 `get_ppo_ray_runtime_env()` left as it is: the project may run verl 0.8.0 "
        "(`requirements.txt:1 verl>=0.8.0,<0.9.0`), whose `get_ppo_ray_runtime_env()` takes no config (pre verl PR "
        "#6976); require verl>=0.9.0, or run with --use-ppo-runtime"
    ]
