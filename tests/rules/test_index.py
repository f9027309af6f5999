"""rules/index.py: ``self.config`` assigned in a base class of another file, run before
and after ``apply`` (issue 13, "Not seen")."""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest
from ppo_migrate.rules.check import ModuleAnalysis
from ppo_migrate.rules.index import ClassIndex
from ppo_migrate.edits.text_edits import process_text
from ppo_migrate.project.references import module_file, package_root
from ppo_migrate.settings_model import Settings

SETTINGS = Settings(targets=("envmod.get_env",))
BASE = (
    "class TrainerBase:\n"
    "    def __init__(self, config):\n"
    "        self.config = config\n"
)
LAUNCH = (
    "from envmod import get_env\n"
    "from .base import TrainerBase\n"
    "import tpkg.base as b\n"
    "class Launcher(TrainerBase):\n"
    "    def start(self):\n"
    "        return get_env()\n"
    "class Other(b.TrainerBase):\n"
    "    def start(self):\n"
    "        return get_env(None)\n"
)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    pkg = tmp_path / "tpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "launch.py").write_text(LAUNCH)
    # its definition in the tree: a target outside verl is decided by it (fresh user 44, B1)
    (tmp_path / "envmod").mkdir()
    (tmp_path / "envmod" / "__init__.py").write_text("def get_env(config=None):\n    return {}\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "t"\nversion = "0"\n')  # the root
    envmod = types.ModuleType("envmod")
    envmod.seen = []  # type: ignore[attr-defined]
    envmod.get_env = lambda config=None: envmod.seen.append(config) or {}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "envmod", envmod)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("tpkg", "tpkg.base", "tpkg.launch"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path, envmod


def _run(envmod) -> list:
    for name in ("tpkg", "tpkg.base", "tpkg.launch"):
        sys.modules.pop(name, None)
    launch = importlib.import_module("tpkg.launch")
    envmod.seen.clear()
    launch.Launcher({"trainer": 1}).start()
    launch.Other({"trainer": 2}).start()
    return list(envmod.seen)


def test_self_config_from_a_base_class_in_another_file(tree) -> None:
    root, envmod = tree
    path = root / "tpkg" / "launch.py"
    assert _run(envmod) == [None, None]
    result = process_text(LAUNCH, str(path), SETTINGS, fix=True)
    assert result.diagnostics == () and result.fixed == 2
    assert result.new_text == LAUNCH.replace("get_env()", "get_env(self.config)").replace(
        "get_env(None)", "get_env(self.config)"
    )
    path.write_text(result.new_text)
    assert _run(envmod) == [{"trainer": 1}, {"trainer": 2}]


def test_a_base_class_the_project_does_not_hold_gives_no_self_attribute(tree) -> None:
    root, _ = tree
    text = LAUNCH.replace("from .base import TrainerBase", "from elsewhere import TrainerBase")
    text = text.replace("import tpkg.base as b", "import elsewhere as b")
    result = process_text(text, str(root / "tpkg" / "launch.py"), SETTINGS, fix=True)
    assert [d.code for d in result.diagnostics] == ["PPO002", "PPO002"]


def test_a_config_section_assigned_in_the_other_file_is_evidence_against(tree) -> None:
    root, _ = tree
    (root / "tpkg" / "base.py").write_text(BASE.replace("= config", "= config.actor_rollout_ref"))
    result = process_text(LAUNCH, str(root / "tpkg" / "launch.py"), SETTINGS, fix=True)
    assert [d.code for d in result.diagnostics] == ["PPO002", "PPO002"]


def test_module_files_and_package_roots(tmp_path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "__init__.py").write_text("")
    (tmp_path / "a" / "b" / "__init__.py").write_text("")
    (tmp_path / "a" / "c.py").write_text("class K: pass\nclass K2: pass\n")
    assert module_file(tmp_path, "a.c") == tmp_path / "a" / "c.py"
    assert module_file(tmp_path, "a.b") == tmp_path / "a" / "b" / "__init__.py"
    assert module_file(tmp_path, "a.missing") is None
    assert package_root(str(tmp_path / "a" / "b" / "m.py"), ("a", "b")) == tmp_path
    assert package_root("-", ()) is None
    index = ClassIndex(tmp_path, Settings(), ModuleAnalysis)
    analysis, cls = index.find_class("a.c.K2")
    assert cls.name == "K2" and analysis.path == str(tmp_path / "a" / "c.py")
    assert index.find_class("a.c.Missing") is None
    assert ClassIndex(None, Settings(), ModuleAnalysis).find_class("a.c.K") is None


def test_a_base_class_module_parsed_for_another_file_is_not_parsed_again(
    tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check --jobs 1``: launch.py's ``self.config`` is looked up in base.py (parsed by the
    class index); base.py, a candidate too, reuses that parse for its own analysis. Both
    fixes rest on ``TrainerBase.__init__``'s parameter, so the callers in other files are
    judged after the per-file phase: a_launch.py, which subclasses it, is judged again for
    that (``Launcher``'s calls would pass the config), on the parse the run's snapshot kept
    (issue 26: each file parsed once a run); base.py is not (its own calls were judged
    with it)."""
    import ppo_migrate.rules.check as check_module
    import ppo_migrate.rules.module as module_module
    from click.testing import CliRunner
    from ppo_migrate.cli.app import cli

    root, _ = tree
    base = root / "tpkg" / "base.py"
    base.write_text("from envmod import get_env\n" + BASE + "    def env(self):\n        return get_env()\n")
    (root / "tpkg" / "a_launch.py").write_text(LAUNCH)  # analysed before base.py (path order)
    (root / "tpkg" / "launch.py").unlink()
    (root / "pyproject.toml").write_text('[tool.ppo-migrate]\ntargets = ["envmod.get_env"]\n')
    parsed: list[str] = []
    real_parse = module_module.parse

    def logged_parse(text: str, path: str, *args, **kwargs):
        parsed.append(Path(path).name)
        return real_parse(text, path, *args, **kwargs)

    # the core's own parse and the run's snapshot's (issue 26: a file's parse is made there)
    monkeypatch.setattr(check_module, "parse", logged_parse)
    monkeypatch.setattr(module_module, "parse", logged_parse)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["check", "--jobs", "1", "--output-format", "concise", "tpkg"])
    assert sorted(parsed) == ["a_launch.py", "base.py"], result.output
    lines = sorted(x.split(" ")[0] + " " + x.split(" ")[1] for x in result.output.splitlines() if ": PPO" in x)
    # each call is fixed with self.config, the subclass's through the base of the other file
    assert lines == [
        "tpkg/a_launch.py:6:16: PPO001", "tpkg/a_launch.py:9:16: PPO001", "tpkg/base.py:6:16: PPO001"
    ], result.output
    assert result.output.count("pass `self.config`") == 3


def test_each_judgement_keeps_its_own_analysis_of_the_other_file(tree) -> None:
    """The differential test judges a tree with and without issue 27's evidence in one
    process (``Settings.follow_values``): the base class's file is analysed once for each,
    not handed from one judgement to the other. Its ``self.config`` is a logging config
    made with ``OmegaConf.create``: evidence against it (PPO002, no fix: the attribute is
    judged by its value as a local is, since the makers merge) when values are followed, a
    config trusted by its name (a safe fix) when they are not."""
    root, _ = tree
    (root / "tpkg" / "base.py").write_text(
        "from omegaconf import OmegaConf\n\n"
        "class TrainerBase:\n"
        "    def __init__(self):\n"
        '        self.config = OmegaConf.create({"level": "INFO"})\n'
    )
    path = str(root / "tpkg" / "launch.py")
    for follow, expected in ((True, ("PPO002", None)), (False, ("PPO001", "safe")), (True, ("PPO002", None))):
        settings = SETTINGS.replace(follow_values=follow)
        found = process_text(LAUNCH, path, settings, fix=False).diagnostics
        assert [(d.code, d.fix.applicability if d.fix else None) for d in found] == [expected] * 2, follow
