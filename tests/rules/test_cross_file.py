"""Callers in other files of the parameter a safe fix rests on (issue 13's caller rule, across files).

``def launch(config): ... get_ppo_ray_runtime_env()`` gets a safe fix passing ``config``
when this file's callers pass a config; but ``launch`` may be called from another file of
the project with a plain dict (or ``Worker`` constructed there with a section of the
config), and verl 0.9.1's real function raises on a dict (``OmegaConf.select``). Each case
below is a two-file package; the whole tree goes through the real CLI (``ppo-migrate
apply`` in a subprocess), and every package's ``main`` module runs against the wheel's
function before and after: the crashing ones are left as they were (an unsafe fix, named
with the caller's file and line), the controls get their safe fix and hand the config on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import warm_python
from cli_helpers import declare_verl, run_cli
from verl_wheels import VERL_STUBS, wheel_tree

#: one worker runs these (pytest-xdist): the module's project is built and run once
pytestmark = pytest.mark.xdist_group("cross-file")

HEAD = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\nfrom omegaconf import OmegaConf\n"
CFG = {"actor_rollout_ref": {"actor": {"strategy": "megatron"}}, "trainer": {"device": "cuda"}}

LAUNCH = """
    def launch(config):
        return get_ppo_ray_runtime_env()
    """
WORKER = """
    class Worker:
        def __init__(self, config):
            self.config = config

        def env(self):
            return get_ppo_ray_runtime_env()
    """

RUNNER = """
    class Runner:
        def run(self, config):
            return get_ppo_ray_runtime_env()
    """
STATIC = """
    class Runner:
        @staticmethod
        def run(config):
            return get_ppo_ray_runtime_env()
    """
GLOBAL = """
    config = OmegaConf.create({"trainer": {"device": "cuda"}})

    def go():
        return get_ppo_ray_runtime_env()
    """
DATACLASS = """
    import dataclasses

    @dataclasses.dataclass
    class T:
        config: object

        def env(self):
            return get_ppo_ray_runtime_env()
    """

DECORATED = """
    from .deco import with_cfg

    @with_cfg
    def launch(config):
        return get_ppo_ray_runtime_env()
    """

#: name -> the package's other modules (``__init__.py``, ``mid.py``)
EXTRA = {
    "a-decorator-of-another-file": {
        "deco.py": "import functools\n\n\ndef with_cfg(f):\n    return functools.partial(f, {'num_gpus': 8})\n"
    },
    "a-passing-decorator-of-another-file": {
        "deco.py": (
            "import functools\n\n\ndef with_cfg(f):\n    @functools.wraps(f)\n"
            "    def inner(*args, **kwargs):\n        return f(*args, **kwargs)\n    return inner\n"
        )
    },
    "a-re-export-under-another-name": {"__init__.py": "from .launch import launch as start\n"},
    "a-star-re-export": {"__init__.py": "from .launch import *\n"},
    "a-re-export-chain": {"__init__.py": "from .mid import launch as start\n", "mid.py": "from .launch import launch\n"},
    "a-parameter-handed-on-in-a-third-file": {
        "mid.py": "from .launch import launch\n\n\ndef go(c):\n    return launch(c)\n"
    },
    "a-re-exported-function-given-a-config": {"__init__.py": "from .launch import launch as start\n"},
}

#: name -> (the defining module's body, the calling module's body: it binds RESULT, and
#: where the unsafe fix's reason is: a line of ``main.py``, whose first line is ``CFG = ...``,
#: or ``"<file>:<line>"``)
CRASHED = {
    "a-dict-by-position": (LAUNCH, """
        from .launch import launch
        RESULT = launch({"num_gpus": 8})
        """, 3),
    "a-dict-by-keyword": (LAUNCH, """
        from .launch import launch
        RESULT = launch(config={"num_gpus": 8})
        """, 3),
    "an-import-alias": (LAUNCH, """
        from .launch import launch as go
        RESULT = go({"num_gpus": 8})
        """, 3),
    "through-the-module": (LAUNCH, """
        from . import launch as mod
        RESULT = mod.launch({"num_gpus": 8})
        """, 3),
    "unpacked-arguments": (LAUNCH, """
        from .launch import launch
        ARGS = ({"num_gpus": 8},)
        RESULT = launch(*ARGS)
        """, 4),
    "handed-on-as-a-value": (LAUNCH, """
        from .launch import launch
        run = launch
        RESULT = run({"num_gpus": 8})
        """, 3),
    "a-class-given-a-dict": (WORKER, """
        from .launch import Worker
        RESULT = Worker({"num_gpus": 8}).env()
        """, 3),
    "a-class-given-a-section": (WORKER, """
        from omegaconf import OmegaConf
        from .launch import Worker
        config = OmegaConf.create({"actor_rollout_ref": {"rollout": {"name": "x"}}})
        RESULT = Worker(config.actor_rollout_ref.rollout.name).env()
        """, 5),
    "a-class-wrapped-for-ray": (WORKER, """
        from .launch import Worker
        def remote(cls):
            return cls
        RESULT = remote(Worker)({"num_gpus": 8}).env()
        """, 5),
    "a-subclass-elsewhere": (WORKER, """
        from .launch import Worker
        class Sub(Worker):
            def __init__(self):
                super().__init__({"num_gpus": 8})
        RESULT = Sub().env()
        """, 3),
    "a-re-export-under-another-name": (LAUNCH, """
        from . import start
        RESULT = start({"num_gpus": 8})
        """, 3),
    "a-star-re-export": (WORKER, """
        from . import Worker
        RESULT = Worker({"num_gpus": 8}).env()
        """, 3),
    "a-re-export-chain": (LAUNCH, """
        from . import start
        RESULT = start({"num_gpus": 8})
        """, 3),
    "a-name-computed-at-run-time": (LAUNCH, """
        import importlib
        lib = importlib.import_module("case_a_name_computed_at_run_time.launch")
        RESULT = getattr(lib, "la" + "unch")({"num_gpus": 8})
        """, 4),
    "a-parameter-handed-on-in-a-third-file": (LAUNCH, """
        from .mid import go
        RESULT = go({"num_gpus": 8})
        """, 3),
    "a-method-called-elsewhere": (RUNNER, """
        from .launch import Runner
        RESULT = Runner().run({"num_gpus": 8})
        """, 3),
    "a-static-method-called-elsewhere": (STATIC, """
        from .launch import Runner
        RESULT = Runner.run({"num_gpus": 8})
        """, 3),
    "a-module-global-patched": (GLOBAL, """
        from . import launch as lib
        lib.config = {"num_gpus": 8}
        RESULT = lib.go()
        """, 3),
    "self-config-written-elsewhere": (WORKER, """
        from omegaconf import OmegaConf
        from .launch import Worker
        w = Worker(OmegaConf.create(CFG))
        w.config = {"num_gpus": 8}
        RESULT = w.env()
        """, 5),
    "a-dataclass-given-a-dict": (DATACLASS, """
        from .launch import T
        RESULT = T({"num_gpus": 8}).env()
        """, 3),
    "a-call-by-name": (LAUNCH, """
        from . import launch as mod
        RESULT = getattr(mod, "launch")({"num_gpus": 8})
        """, 3),
    "through-import-module": (LAUNCH, """
        import importlib
        RESULT = importlib.import_module("case_through_import_module.launch").launch({"num_gpus": 8})
        """, 3),
    "a-decorator-of-another-file": (DECORATED, """
        from .launch import launch
        RESULT = launch()
        """, "deco.py:4"),
    "a-subclass-without-init-given-a-dict": (WORKER, """
        from .launch import Worker
        class Sub(Worker):
            pass
        RESULT = Sub({"num_gpus": 8}).env()
        """, 5),
    "a-subclass-passing-its-parameter-on": (WORKER, """
        from .launch import Worker
        class Sub(Worker):
            def __init__(self, cfg):
                super().__init__(cfg)
        RESULT = Sub({"num_gpus": 8}).env()
        """, 3),  # main.py's own analysis judges `cfg` by Sub's call there: a dict
    "a-subclass-passing-a-dict-explicitly": (WORKER, """
        from .launch import Worker
        class Sub(Worker):
            def __init__(self):
                Worker.__init__(self, {"num_gpus": 8})
        RESULT = Sub().env()
        """, 3),
}

#: name -> (defining body, calling body, the expression the safe fix passes)
KEPT = {
    "a-config-parameter-elsewhere": (LAUNCH, """
        from omegaconf import OmegaConf
        from .launch import launch
        def main(config):
            return launch(config)
        RESULT = main(OmegaConf.create(CFG))
        """, "config"),
    "a-loaded-config-elsewhere": (WORKER, """
        from omegaconf import OmegaConf
        from .launch import Worker
        RESULT = Worker(OmegaConf.create(CFG)).env()
        """, "self.config"),
    "only-an-annotation-and-isinstance": (WORKER, """
        from omegaconf import OmegaConf
        from .launch import Worker
        def check(w: Worker) -> bool:
            return isinstance(w, Worker)
        w = Worker(OmegaConf.create(CFG))
        assert check(w)
        RESULT = w.env()
        """, "self.config"),
    "a-subclass-given-a-config": (WORKER, """
        from omegaconf import OmegaConf
        from .launch import Worker
        class Sub(Worker):
            def __init__(self, cfg, name="sub"):
                super().__init__(cfg)
                self.name = name
        class Leaf(Sub):
            pass
        RESULT = Leaf(OmegaConf.create(CFG)).env()
        """, "self.config"),
    "a-method-given-a-config": (RUNNER, """
        from omegaconf import OmegaConf
        from .launch import Runner
        RESULT = Runner().run(OmegaConf.create(CFG))
        """, "config"),
    "a-re-exported-function-given-a-config": (LAUNCH, """
        from omegaconf import OmegaConf
        from . import start
        RESULT = start(OmegaConf.create(CFG))
        """, "config"),
    "a-subclass-setting-self-config-from-its-own-parameter": (WORKER, """
        from omegaconf import OmegaConf
        from .launch import Worker
        class Sub(Worker):
            def __init__(self, cfg):
                self.config = cfg
        RESULT = Sub(OmegaConf.create(CFG)).env()
        """, "self.config"),
    "a-passing-decorator-of-another-file": (DECORATED, """
        from omegaconf import OmegaConf
        from .launch import launch
        RESULT = launch(OmegaConf.create(CFG))
        """, "config"),
    "another-function-of-that-name": (LAUNCH, """
        from omegaconf import OmegaConf
        from . import launch as mod
        def launch(config):
            return config
        launch({"num_gpus": 8})
        RESULT = mod.launch(OmegaConf.create(CFG))
        """, "config"),
}

#: One interpreter for several trees: argv = wheel, JSON ``[[tree, names, out], ...]``.
#: verl's stubs and the modules its ``constants_ppo`` imports (torch, Ray: ~4 s of CPU an
#: interpreter) are set up once; each tree runs in a child forked from that state, so no
#: tree sees another's modules (the trees hold packages of the same names), and writes
#: ``{package: outcome}`` to its ``out``.
_RUNNER = r"""
import importlib, json, os, sys, traceback, types
wheel, trees = sys.argv[1], json.loads(sys.argv[2])
sys.path[:0] = [wheel]
""" + VERL_STUBS + r"""
for heavy in ("torch", "ray._private.runtime_env.constants", "omegaconf"):
    importlib.import_module(heavy)
for tree, names, result in trees:
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            sys.path[:0] = [tree]
            out = {}
            for name in names:
                try:
                    env = importlib.import_module(name + ".main").RESULT
                    out[name] = ["ok", env["env_vars"].get("CUDA_DEVICE_MAX_CONNECTIONS")]
                except Exception as e:
                    out[name] = [type(e).__name__, str(e)[:200]]
            with open(result, "w") as f:
                json.dump(out, f)
            code = 0
        except BaseException:
            traceback.print_exc()
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(code)
    status = os.waitpid(pid, 0)[1]
    assert os.waitstatus_to_exitcode(status) == 0, (tree, status)
"""

#: what a caller passing a plain dict is told (verl 0.9's function raises on one)
PLAIN_DICT = (
    "a plain dict: verl 0.9's `get_ppo_ray_runtime_env` reads its config with "
    "`OmegaConf.select`, which raises `AttributeError` on a plain dict: it needs an "
    "OmegaConf `DictConfig`"
)


def _package(name: str) -> str:
    return "case_" + name.replace("-", "_")


def _write(root: Path, cases: dict) -> None:
    for name, (definer, caller, _) in cases.items():
        pkg = root / _package(name)
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "launch.py").write_text(HEAD + textwrap.dedent(definer))
        (pkg / "main.py").write_text(f"CFG = {CFG!r}\n" + textwrap.dedent(caller).lstrip("\n"))
        for file, text in EXTRA.get(name, {}).items():
            (pkg / file).write_text(text)


def _run(wheel: Path, trees: list[tuple[Path, list[str]]]) -> list[dict[str, list]]:
    """Import each ``<package>.main`` of each tree on the wheel's function, one tree at a
    time in a fresh copy of one interpreter: ``[{package: ["ok", CUDA_DEVICE_MAX_CONNECTIONS]
    or [exception type, message]}]``, in the order of ``trees``."""
    env = {k: v for k, v in os.environ.items() if k != "CUDA_DEVICE_MAX_CONNECTIONS"}
    jobs = [[str(tree), names, str(tree) + ".ran.json"] for tree, names in trees]
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(wheel), json.dumps(jobs)],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(Path(result).read_text()) for _, _, result in jobs]


def _cli(*args: str, cwd: Path):
    """``ppo-migrate ARGS --verl-version 0.9.1 --no-progress .`` in ``cwd`` (in this process)."""
    return run_cli(*args, "--verl-version", "0.9.1", "--no-progress", ".", cwd=cwd)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every case in one tree: checked (JSON), then applied by the CLI; each package's
    ``main`` run on verl 0.9.1's wheel before and after."""
    wheel = wheel_tree("0.9.1", tmp_path_factory)
    base = tmp_path_factory.mktemp("cross-file")
    before, after = base / "before", base / "after"
    _write(before, {**CRASHED, **KEPT})
    shutil.copytree(before, after)
    checked = _cli("check", "--output-format", "json", cwd=after)
    assert checked.returncode == 1, checked.stderr
    applied = _cli("apply", cwd=after)
    assert applied.returncode == 1, applied.stderr  # the unsafe fixes remain
    names = [_package(n) for n in {**CRASHED, **KEPT}]
    # every crashed case rewritten by name (the parameter passed on, as the per-file
    # analysis alone would): run with the two trees above, in one interpreter
    by_name = base / "by-name"
    by_name_names = []
    for name in sorted(CRASHED):
        pkg = _package(name)
        shutil.copytree(before / pkg, by_name / pkg)
        src = (by_name / pkg / "launch.py").read_text()
        arg = "self.config" if "def env(self)" in src else "config"
        (by_name / pkg / "launch.py").write_text(
            src.replace("get_ppo_ray_runtime_env()", f"get_ppo_ray_runtime_env({arg})")
        )
        by_name_names.append(pkg)
    ran_before, ran_after, ran_by_name = _run(
        wheel, [(before, names), (after, names), (by_name, by_name_names)]
    )
    return {
        "before": before, "after": after, "applied": applied,
        "check": {Path(d["filename"]).parent.name: d for d in json.loads(checked.stdout)},
        "ran before": ran_before, "ran after": ran_after, "ran by name": ran_by_name,
    }


@pytest.mark.parametrize("name", sorted(CRASHED))
def test_a_caller_elsewhere_passing_no_config_leaves_the_file_running(project: dict, name: str) -> None:
    pkg = _package(name)
    launch = f"{pkg}/launch.py"
    assert (project["after"] / launch).read_bytes() == (project["before"] / launch).read_bytes()
    assert project["ran before"][pkg] == ["ok", None]
    assert project["ran after"][pkg] == ["ok", None]
    finding = project["check"][pkg]
    assert finding["code"] == "PPO001"
    assert finding["fix"]["applicability"] == "unsafe"
    where = CRASHED[name][2]
    where = f"main.py:{where}" if isinstance(where, int) else where
    assert f"(unsafe fix: {pkg}/{where} " in finding["message"], finding["message"]


@pytest.fixture(scope="module")
def ran_by_name(project: dict) -> dict[str, list]:
    """Every crashed case rewritten by name (the parameter passed on, as the per-file
    analysis alone would), run on verl 0.9.1's wheel: package -> outcome (run with the
    project's trees, :func:`project`)."""
    return project["ran by name"]


@pytest.mark.parametrize("name", sorted(CRASHED))
def test_the_name_based_rewrite_would_crash_or_change_the_run(
    project: dict, ran_by_name: dict[str, list], name: str
) -> None:
    """The oracle: passing the parameter on, as the per-file analysis alone would, either
    raises on verl's real function or hands it a section (no Megatron strategy there)."""
    pkg = _package(name)
    outcome = ran_by_name[pkg]
    assert outcome != project["ran before"][pkg] or outcome[0] != "ok", outcome


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_config_from_every_caller_elsewhere_keeps_the_safe_fix(project: dict, name: str) -> None:
    pkg = _package(name)
    expected = KEPT[name][2]
    src = (project["before"] / pkg / "launch.py").read_text()
    assert (project["after"] / pkg / "launch.py").read_text() == src.replace(
        "get_ppo_ray_runtime_env()", f"get_ppo_ray_runtime_env({expected})"
    )
    assert project["check"][pkg]["fix"]["applicability"] == "safe"
    assert project["ran before"][pkg] == ["ok", None]
    assert project["ran after"][pkg] == ["ok", "1"]  # the config reached verl's function


def test_apply_names_each_file_once_and_unsafe_fixes_still_apply(project: dict, tmp_path: Path) -> None:
    out = project["applied"].stdout + project["applied"].stderr
    for name in KEPT:
        assert out.count(f"Rewrote {_package(name)}/launch.py") == 1, out
    for name in CRASHED:
        assert f"Rewrote {_package(name)}/launch.py" not in out
    tree = tmp_path / "unsafe"
    shutil.copytree(project["before"], tree)
    proc = _cli("apply", "--unsafe-fixes", cwd=tree)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in CRASHED:
        assert "get_ppo_ray_runtime_env(" in (tree / _package(name) / "launch.py").read_text()
        assert "get_ppo_ray_runtime_env()" not in (tree / _package(name) / "launch.py").read_text()


def test_diff_shows_a_held_back_file_once(project: dict) -> None:
    proc = _cli("apply", "--diff", cwd=project["before"])
    assert proc.returncode == 1, proc.stderr
    for name in KEPT:
        assert proc.stdout.count(f"+++ b/{_package(name)}/launch.py") == 1, proc.stdout
    for name in CRASHED:
        assert f"{_package(name)}/launch.py" not in proc.stdout


def _judge(tmp_path: Path, definer: str, caller: str, init: str = "") -> str | None:
    """judge_callers's verdict on ``pkg/launch.py``'s one origin, ``pkg/main.py`` calling."""
    from ppo_migrate.rules.cross_file import judge_callers
    from ppo_migrate.edits.text_edits import process_text
    from ppo_migrate.settings_model import Settings

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    declare_verl(tmp_path)  # issue 26: the tree declares the verl it runs
    (pkg / "__init__.py").write_text(init)
    launch, main = pkg / "launch.py", pkg / "main.py"
    launch.write_text(HEAD + textwrap.dedent(definer))
    main.write_text(textwrap.dedent(caller))
    settings = Settings(verl_version="0.9.1")
    (finding,) = process_text(launch.read_text(), str(launch), settings, fix=False).diagnostics
    (origin,) = finding.fix.origins
    return judge_callers([origin], [str(launch), str(main), str(pkg / "__init__.py")], settings)[origin]


@pytest.mark.parametrize(
    ("caller", "verdict"),
    [
        ("from pkg.launch import Worker\nw = Worker.remote({'a': 1})\n", "main.py:2 passes `{'a': 1}`"),
        ("from pkg.launch import Worker\ndef main(config):\n    return Worker.remote(config)\n", None),
        ("from pkg.launch import Worker\nw = Worker.options(num_gpus=1).remote({})\n", "main.py:2 passes `{}`"),
        ("from pkg.launch import Worker\ndef f(config):\n    return Worker.options(num_gpus=1).remote(config)\n", None),
        ("from unittest import mock\nfrom pkg.launch import Worker\nwith mock.patch.object(Worker, 'env'):\n    pass\n", None),
        ("from pkg.launch import Worker\ndef test(monkeypatch):\n    monkeypatch.setattr(Worker, 'env', print)\n", None),
        ("from pkg.launch import Worker\ndef test(monkeypatch):\n    monkeypatch.setattr(Worker, '__init__', print)\n",
         "main.py:3 hands `Worker`"),
        ("from pkg.launch import Worker\nclass Sub(Worker):\n    pass\nassert issubclass(Sub, Worker)\n", None),
        ("from pkg.launch import Worker\nassert not isinstance(1, (Worker, str))\n", None),
        (("from omegaconf import OmegaConf\nfrom pkg.launch import Worker\nBASE = OmegaConf.create({'data': {}})\n"
          "Worker(BASE.copy())\nWorker(OmegaConf.from_dotlist(['trainer.n=1']))\n"), None),
        # issue 27, trial 27: a maker whose content is read and has no verl section, or is unread
        ("from omegaconf import OmegaConf\nfrom pkg.launch import Worker\nWorker(OmegaConf.from_dotlist(['a=1']))\n",
         "main.py:3 passes `OmegaConf.from_dotlist(['a=1'])`"),
        ("from omegaconf import OmegaConf\nfrom pkg.launch import Worker\nWorker(OmegaConf.from_cli())\n",
         "main.py:3 passes `OmegaConf.from_cli()`"),
        ("from omegaconf import OmegaConf\nfrom pkg.launch import Worker\nWorker(OmegaConf.load('a.yaml'))\n",
         "main.py:3 passes `OmegaConf.load('a.yaml')`"),
        (("from omegaconf import OmegaConf\nfrom pkg.launch import Worker\nCFG = OmegaConf.create({'trainer': {}})\n"
          "def trainer(config):\n    return Worker(config)\ntrainer(CFG)\n"), None),
        ("import ray\nfrom pkg.launch import Worker\nW = ray.remote(Worker)\n", "main.py:3 hands `Worker`"),
        ("from pkg.launch import Worker\nclass Sub(Worker):\n    config = None\n", None),
        ("from pkg.launch import Worker\nclass Sub(Worker):\n    def env(self):\n        self.config = {}\n",
         "main.py:4 sets `self.config` in subclass `Sub`"),  # the rebinding's line (trial 27, r12)
        ("from pkg.launch import Worker\nclass Sub(Worker):\n    def __init__(self):\n        pass\n",
         "main.py:2 subclass `Sub` has an `__init__` that does not call the base's"),
        ("from pkg.launch import Worker\ndef f():\n    class Sub(Worker):\n        pass\n",
         "main.py:3 subclasses `Sub` inside a function"),
        ("from pkg.launch import Worker\ndef f(w: Worker) -> Worker:\n    assert isinstance(w, Worker)\n    return w\n", None),
        ("from pkg.launch import Worker\ntry:\n    pass\nexcept Worker:\n    pass\nx = type(1) is Worker\n", None),
        ("from pkg import launch\nlaunch.Worker(**{'config': {}})\n", "main.py:2 passes unpacked arguments"),
        ("Worker = dict\nWorker(config={})\n", None),  # another Worker: not the one judged
    ],
)
def test_judge_callers_verdicts(tmp_path: Path, caller: str, verdict: str | None) -> None:
    got = _judge(tmp_path, WORKER, caller)
    if verdict is None:
        assert got is None
    else:
        assert got is not None and verdict in got, got


def test_a_caller_in_a_file_outside_the_run_is_not_judged(tmp_path: Path) -> None:
    """Only the run's files count: the same project checked with the caller's file left out
    keeps the safe fix (what ``pre-commit`` passes is the staged files alone)."""
    from ppo_migrate.rules.cross_file import judge_callers
    from ppo_migrate.diagnostics import CallerOrigin
    from ppo_migrate.settings_model import Settings

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "launch.py").write_text(HEAD + textwrap.dedent(LAUNCH))
    (pkg / "main.py").write_text("from pkg.launch import launch\nlaunch({})\n")
    origin = CallerOrigin(str(pkg / "launch.py"), "launch", 0, "config")
    settings = Settings()
    assert judge_callers([origin], [str(pkg / "launch.py")], settings) == {origin: None}
    both = judge_callers([origin], [str(pkg / "launch.py"), str(pkg / "main.py")], settings)
    assert both[origin] is not None and both[origin].endswith("main.py:2 passes `{}`, " + PLAIN_DICT)


def test_a_star_re_export_that_never_spells_the_name_is_followed(tmp_path: Path) -> None:
    """``pkg/__init__.py`` says ``from .launch import *``: ``from pkg import Worker`` in
    another file reaches the class though the package's file never spells its name."""
    verdict = _judge(tmp_path, WORKER, "from pkg import Worker\nWorker({'a': 1}).env()\n", "from .launch import *\n")
    assert verdict is not None and verdict.endswith("main.py:2 passes `{'a': 1}`, " + PLAIN_DICT)


def _verdict(tmp_path: Path, files: dict[str, str], home: str, qualname: str, kind: str = "call"):
    """Write ``files`` under ``tmp_path`` and judge the origin ``qualname`` (parameter
    ``config`` at position 0) of ``home`` against all of them."""
    from ppo_migrate.rules.cross_file import judge_callers
    from ppo_migrate.diagnostics import CallerOrigin
    from ppo_migrate.settings_model import Settings

    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    origin = CallerOrigin(str(tmp_path / home), qualname, 0, "config", kind)
    return judge_callers([origin], [str(tmp_path / rel) for rel in files], Settings())[origin]


def _expect(verdict: str | None, expected: str | None) -> None:
    """No verdict when ``expected`` is ``None``, else one holding ``expected``."""
    if expected is None:
        assert verdict is None
    else:
        assert verdict is not None and expected in verdict, verdict


def test_a_re_export_from_a_module_that_is_not_a_parent_is_followed(tmp_path: Path) -> None:
    """``mypkg/api.py`` re-exports ``pkg.sub.lib.start`` under the same name; ``from mypkg.api
    import start`` in a third file names none of ``pkg``, ``sub``, ``lib``: the file was never
    read and the dict it passes never seen (the fix stayed safe and the rewrite crashed
    verl 0.9.1's function). The re-exporting module is now wanted the next round."""
    files = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/lib.py": HEAD + "\n\ndef start(config):\n    return get_ppo_ray_runtime_env()\n",
        "mypkg/__init__.py": "",
        "mypkg/api.py": "from pkg.sub.lib import start\n",
        "caller.py": "from mypkg.api import start\nstart({'num_gpus': 8})\n",
    }
    verdict = _verdict(tmp_path, files, "pkg/sub/lib.py", "start")
    assert verdict is not None
    assert verdict.endswith("caller.py:2 passes `{'num_gpus': 8}`, " + PLAIN_DICT)
    # the chain alone, without the caller: nothing argues against the fix
    del files["caller.py"]
    assert _verdict(tmp_path, files, "pkg/sub/lib.py", "start") is None


def test_a_module_loaded_by_a_name_built_at_run_time_is_still_read(tmp_path: Path) -> None:
    """``importlib.import_module("pkg.sub." + name).start(d)`` names the package, not the
    module: a file that loads modules by name is read whenever it names a package above the
    function's (the narrower look of this stop must not lose it)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/lib.py": HEAD + "\n\ndef start(config):\n    return get_ppo_ray_runtime_env()\n",
        "loader.py": (
            "import importlib\n\n\ndef go(name):\n"
            "    mod = importlib.import_module('pkg.sub.' + name)\n"
            "    return mod.start({'num_gpus': 8})\n"
        ),
    }
    verdict = _verdict(tmp_path, files, "pkg/sub/lib.py", "start")
    assert verdict is not None and "loader.py:6" in verdict, verdict


def test_a_star_re_export_from_a_module_that_is_not_a_parent_is_followed(tmp_path: Path) -> None:
    """``mypkg/api.py: from pkg.sub.lib import *``, then ``from mypkg.api import start``."""
    files = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/lib.py": HEAD + "\n\ndef start(config):\n    return get_ppo_ray_runtime_env()\n",
        "mypkg/__init__.py": "",
        "mypkg/api.py": "from pkg.sub.lib import *\n",
        "caller.py": "from mypkg.api import start\nstart({'num_gpus': 8})\n",
    }
    verdict = _verdict(tmp_path, files, "pkg/sub/lib.py", "start")
    assert verdict is not None
    assert verdict.endswith("caller.py:2 passes `{'num_gpus': 8}`, " + PLAIN_DICT)


@pytest.mark.parametrize("imported", ["launch as start", "launch"])
def test_a_re_export_beside_a_fallback_of_the_same_name_is_followed(
    tmp_path: Path, imported: str
) -> None:
    """``pkg/__init__.py``: ``try: from .fast import launch as start`` / ``except ImportError:
    def start(config): ...`` (a fallback that is itself a fix's origin). The callers of
    ``pkg.start`` are judged for both: c12c7df skipped the re-export because ``pkg.start``
    was wanted already (a fresh tester's differential hunt; the same-name form was missed
    before that too)."""
    from ppo_migrate.rules.cross_file import judge_callers
    from ppo_migrate.diagnostics import CallerOrigin
    from ppo_migrate.settings_model import Settings

    name = imported.split()[-1]
    files = {
        "pkg/fast.py": HEAD + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "pkg/__init__.py": (
            HEAD + f"try:\n    from .fast import {imported}\nexcept ImportError:\n"
            f"    def {name}(config):\n        return get_ppo_ray_runtime_env()\n"
        ),
        "app/__init__.py": "",
        "app/cli.py": f"from pkg import {name}\n\n\ndef main():\n    {name}({{'num_gpus': 8}})\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    fast = CallerOrigin(str(tmp_path / "pkg/fast.py"), "launch", 0, "config")
    fallback = CallerOrigin(str(tmp_path / "pkg/__init__.py"), name, 0, "config")
    verdicts = judge_callers([fast, fallback], [str(tmp_path / rel) for rel in files], Settings())
    for origin in (fast, fallback):
        assert verdicts[origin] is not None, origin
        assert verdicts[origin].endswith("cli.py:5 passes `{'num_gpus': 8}`, " + PLAIN_DICT)


RUNNER = HEAD + "\n\nclass Runner:\n    def run(self, config):\n        return get_ppo_ray_runtime_env()\n"


@pytest.mark.parametrize(
    ("subclasses", "caller", "expected"),
    [
        # a subclass without its own run: its instances run Runner.run
        ("class Fast(Runner):\n    pass\n", "Fast().run({'num_gpus': 8})", "caller.py:3 passes"),
        # through two subclasses
        (
            "class Fast(Runner):\n    pass\n\n\nclass Faster(Fast):\n    pass\n",
            "Faster().run({'num_gpus': 8})",
            "caller.py:3 passes",
        ),
        # its own run hands its parameter to the base's: its calls decide
        (
            "class Fast(Runner):\n    def run(self, cfg):\n        return super().run(cfg)\n",
            "Fast().run({'num_gpus': 8})",
            "caller.py:3 passes",
        ),
        # its own run passes the base's a dict itself
        (
            "class Fast(Runner):\n    def run(self, cfg):\n        return Runner.run(self, {'a': 1})\n",
            "Fast().run(None)",
            "sub.py:",
        ),
        # its own run never reaches the base's: Fast().run(d) is not Runner.run
        (
            "class Fast(Runner):\n    def run(self, cfg):\n        return cfg\n",
            "Fast().run({'num_gpus': 8})",
            None,
        ),
    ],
)
def test_a_method_run_through_a_subclass_in_a_third_file_is_judged(
    tmp_path: Path, subclasses: str, caller: str, expected: str | None
) -> None:
    """``Runner.run(self, config)`` passes ``config``; ``sub.py`` subclasses ``Runner`` and
    ``caller.py`` names only the subclass (a fresh tester's ``Fast().run(d)``: left safe)."""
    last = subclasses.split("class ")[-1].split("(")[0]
    files = {
        "pkg/__init__.py": "",
        "pkg/runner.py": RUNNER,
        "pkg/sub.py": "from pkg.runner import Runner\n\n\n" + subclasses,
        "caller.py": f"from pkg.sub import {last}\n\n{caller}\n",
    }
    verdict = _verdict(tmp_path, files, "pkg/runner.py", "Runner.run", "method")
    _expect(verdict, expected)


@pytest.mark.parametrize("where", ["pkg/__init__.py", "mypkg/api.py"])
def test_a_module_re_exported_under_another_name_is_followed(tmp_path: Path, where: str) -> None:
    """``from pkg.sub import lib as engine`` in a package above or in another module, then
    ``engine.start(d)`` in a third file (a fresh tester's ``parent_modalias``: left safe)."""
    home = where.removesuffix(".py").replace("/__init__", "").replace("/", ".")
    files = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/lib.py": HEAD + "\n\ndef start(config):\n    return get_ppo_ray_runtime_env()\n",
        "mypkg/__init__.py": "",
        "mypkg/api.py": "",
        "caller.py": f"from {home} import engine\n\nengine.start({{'num_gpus': 8}})\n",
    }
    files[where] = "from pkg.sub import lib as engine\n"
    verdict = _verdict(tmp_path, files, "pkg/sub/lib.py", "start")
    assert verdict is not None and verdict.endswith(
        "caller.py:3 passes `{'num_gpus': 8}`, " + PLAIN_DICT
    ), verdict


@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        ("Sub().run(OmegaConf.load('ppo.yaml'))", None),  # a config, through the override
        ("Sub().run({'num_gpus': 8})", "caller.py:4 passes"),  # a dict, through the override
    ],
)
def test_an_override_handing_its_parameter_to_super_is_judged_by_its_callers(
    tmp_path: Path, caller: str, expected: str | None
) -> None:
    """``class Sub(Base): def run(self, config): return super().run(config)``: a fresh
    tester's false alarm ("sub.py passes `config`"): the override's callers decide."""
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": RUNNER.replace("Runner", "Base"),
        "pkg/sub.py": (
            "from pkg.base import Base\n\n\nclass Sub(Base):\n"
            "    def run(self, config):\n        print('sub')\n        return super().run(config)\n"
        ),
        "caller.py": f"from omegaconf import OmegaConf\nfrom pkg.sub import Sub\n\n{caller}\n",
        "ppo.yaml": "trainer: {}\n",  # what ``OmegaConf.load('ppo.yaml')`` reads (trial 27)
    }
    verdict = _verdict(tmp_path, files, "pkg/base.py", "Base.run", "method")
    _expect(verdict, expected)


@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        ("KwTrainer(OmegaConf.load('ppo.yaml'), tokenizer=None).env()", None),
        ("KwTrainer({'num_gpus': 8}, tokenizer=None).env()", "caller.py:4 passes"),
    ],
)
def test_a_subclass_handing_all_its_arguments_to_the_base_is_judged_by_its_callers(
    tmp_path: Path, caller: str, expected: str | None
) -> None:
    """``def __init__(self, *args, **kwargs): super().__init__(*args, **kwargs)``: a fresh
    tester's false alarm ("passes unpacked arguments"); the subclass's calls decide."""
    files = {
        "pkg/__init__.py": "",
        "pkg/trainer.py": HEAD + (
            "\n\nclass Trainer:\n    def __init__(self, config, tokenizer=None):\n"
            "        self.config = config\n\n    def env(self):\n"
            "        return get_ppo_ray_runtime_env()\n"
        ),
        "pkg/ext.py": (
            "from pkg.trainer import Trainer\n\n\nclass KwTrainer(Trainer):\n"
            "    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n"
        ),
        "caller.py": f"from omegaconf import OmegaConf\nfrom pkg.ext import KwTrainer\n\n{caller}\n",
        "ppo.yaml": "trainer: {}\n",  # what ``OmegaConf.load('ppo.yaml')`` reads (trial 27)
    }
    verdict = _verdict(tmp_path, files, "pkg/trainer.py", "Trainer", "init")
    _expect(verdict, expected)


def test_the_gate_reads_a_file_for_a_name_only_beside_that_name_s_module(
    tmp_path: Path, monkeypatch
) -> None:
    """Two origins, ``pkg.lib.launch`` and ``tools.util.prepare``: a file spelling ``launch``
    and ``util`` (not ``lib``) can reach neither and is not parsed (a verl tree beside a
    fork: 188 files parsed for names paired with the wrong module; 89 now). A file naming
    ``launch`` with ``lib``, and one in Latin-1 (PEP 263) naming a non-ASCII function, are."""
    from ppo_migrate.rules import cross_file
    from ppo_migrate.rules.cross_file import judge_callers
    from ppo_migrate.diagnostics import CallerOrigin
    from ppo_migrate.settings_model import Settings

    files = {
        "pkg/__init__.py": "",
        "pkg/lib.py": HEAD + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n",
        "tools/__init__.py": "",
        "tools/util.py": HEAD + "\n\ndef pr\u00e9pare(config):\n    return get_ppo_ray_runtime_env()\n",
        "unrelated.py": "def launch(x):\n    return x.util\n",
        "caller.py": "from pkg.lib import launch\n\nlaunch({'num_gpus': 8})\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    latin = tmp_path / "latin.py"
    latin.write_bytes(
        "# -*- coding: latin-1 -*-\nfrom tools.util import pr\u00e9pare\n\npr\u00e9pare([1])\n".encode("latin-1")
    )
    parsed: list[str] = []
    real = cross_file._analysis

    def counted(path, data, settings):
        parsed.append(Path(path).name)
        return real(path, data, settings)

    monkeypatch.setattr(cross_file, "_analysis", counted)
    launch = CallerOrigin(str(tmp_path / "pkg/lib.py"), "launch", 0, "config")
    prepare = CallerOrigin(str(tmp_path / "tools/util.py"), "pr\u00e9pare", 0, "config")
    paths = [str(tmp_path / rel) for rel in files] + [str(latin)]
    verdicts = judge_callers([launch, prepare], paths, Settings())
    assert verdicts[launch] is not None and verdicts[launch].endswith(
        "caller.py:3 passes `{'num_gpus': 8}`, " + PLAIN_DICT
    ), verdicts
    assert verdicts[prepare] is not None and verdicts[prepare].endswith(
        "latin.py:4 passes `[1]`, which may not be a training config"
    ), verdicts
    assert sorted(parsed) == ["caller.py", "latin.py"]


_STRICT_VERL = (
    "def get_ppo_ray_runtime_env(config=None):\n"
    "    if config is not None and 'trainer' not in config:\n"
    "        raise TypeError(f'not a config: {config!r}')\n"
    "    return {}\n"
)
_NS_LIB = (
    HEAD + "\n\ndef launch(config):\n    return get_ppo_ray_runtime_env()\n\n\n"
    "def main():\n    return launch(OmegaConf.create({'trainer': {}}))\n"
)


@pytest.mark.parametrize(
    ("caller", "text", "run"),
    [
        ("caller.py", "from ns.lib import launch\n\nlaunch({'a': 1})\n", "caller.py"),
        ("caller.py", "from ns import lib\n\nlib.launch({'a': 1})\n", "caller.py"),
        ("ns/caller.py", "from .lib import launch\n\nlaunch({'a': 1})\n", "-m ns.caller"),
        ("ns/sub/deep.py", "from ..lib import launch\n\nlaunch({'a': 1})\n", "-m ns.sub.deep"),
        ("top.py", "import proj.ns.lib\n\nproj.ns.lib.launch({'a': 1})\n", "top.py"),
    ],
)
def test_a_caller_through_a_namespace_package_is_judged(
    tmp_path: Path, caller: str, text: str, run: str
) -> None:
    """A fresh tester: ``ns/lib.py`` in a folder without ``__init__.py`` is ``lib`` to the
    analysis, and its callers spelling ``ns.lib`` (absolute or relative, as Python's
    namespace packages allow) were not seen: ``apply`` made the safe fix and the caller
    passing a dict crashed. Each caller is run before and after ``apply``."""
    root = tmp_path / "w" / "proj" if caller == "top.py" else tmp_path / "w"
    outer = tmp_path / "w"
    stub = tmp_path / "stub"
    for rel, body in {"verl/__init__.py": "", "verl/trainer/__init__.py": "",
                      "verl/trainer/constants_ppo.py": _STRICT_VERL}.items():
        (stub / rel).parent.mkdir(parents=True, exist_ok=True)
        (stub / rel).write_text(body)
    (root / "ns").mkdir(parents=True)
    (root / "ns" / "lib.py").write_text(_NS_LIB)
    (outer / caller).parent.mkdir(parents=True, exist_ok=True)
    (outer / caller).write_text(text)
    (outer / "pyproject.toml").write_text('[project]\nname = "w"\nversion = "0"\ndependencies = ["verl==0.9.1"]\n')
    env = {**os.environ, "PYTHONPATH": f"{stub}{os.pathsep}{outer}"}

    def ran() -> subprocess.CompletedProcess:
        return warm_python.run(
            [sys.executable, *run.split()], cwd=outer, env=env, capture_output=True, text=True, timeout=60
        )

    assert ran().returncode == 0, ran().stderr
    checked = run_cli("check", "--no-progress", ".", cwd=outer)
    assert f"(unsafe fix: {caller}:3 passes `{{'a': 1}}`, {PLAIN_DICT})" in checked.stdout, checked.stdout
    applied = run_cli("apply", "--no-progress", ".", cwd=outer)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    lib = root / "ns" / "lib.py"
    assert lib.read_text() == _NS_LIB
    assert ran().returncode == 0
    # the oracle: the rewrite a name-based judgement would make crashes that caller
    lib.write_text(_NS_LIB.replace("get_ppo_ray_runtime_env()", "get_ppo_ray_runtime_env(config)"))
    crashed = ran()
    assert crashed.returncode == 1 and "TypeError: not a config: {'a': 1}" in crashed.stderr


def test_a_caller_importing_the_module_through_sys_path_is_judged(tmp_path: Path) -> None:
    """A fresh tester: ``sys.path.insert(0, "pkg"); from lib import launch`` reaches
    ``pkg/lib.py`` as ``lib``; its dict argument made no verdict and the safe fix crashed it."""
    from ppo_migrate.rules.cross_file import judge_callers
    from ppo_migrate.diagnostics import CallerOrigin
    from ppo_migrate.settings_model import Settings

    files = {
        "pkg/__init__.py": "",
        "pkg/lib.py": _NS_LIB,
        "caller.py": "import sys\nsys.path.insert(0, 'pkg')\nfrom lib import launch\n\nlaunch({'a': 1})\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    origin = CallerOrigin(str(tmp_path / "pkg/lib.py"), "launch", 0, "config")
    verdict = judge_callers([origin], [str(tmp_path / rel) for rel in files], Settings())[origin]
    assert verdict is not None and verdict.endswith(
        "caller.py:5 passes `{'a': 1}`, " + PLAIN_DICT
    ), verdict


@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        ("import pkg.lib\nvars(pkg.lib)['launch']({'a': 1})\n", "caller.py:2 fetches `launch` by name (`vars(...)[...]`)"),
        ("import pkg.lib\npkg.lib.__dict__['launch']({'a': 1})\n", "caller.py:2 fetches `launch` by name (`__dict__[...]`)"),
        ("from pkg import lib\nrun = lib.__dict__['launch']\n", "caller.py:2 fetches `launch` by name (`__dict__[...]`)"),
        ("import pkg.lib\nx = {'launch': 1}['launch']\n", None),  # a dict's key: no namespace
        ("import pkg.lib\nvars(pkg.lib).get('other')\n", None),
    ],
)
def test_a_function_fetched_from_its_module_s_namespace_by_name_is_judged(
    tmp_path: Path, caller: str, expected: str | None
) -> None:
    """A fresh tester: ``vars(pkg.lib)['launch']({'a': 1})`` kept the safe fix, which then
    crashed that call (``getattr(pkg.lib, 'launch')`` was judged already)."""
    files = {"pkg/__init__.py": "", "pkg/lib.py": _NS_LIB, "caller.py": caller}
    _expect(_verdict(tmp_path, files, "pkg/lib.py", "launch"), expected)


@pytest.mark.parametrize(
    ("caller_path", "caller"),
    [
        ("main.py", "from pkg.ns.lib import launch\n\nlaunch({'a': 1})\n"),
        ("pkg/other.py", "from .ns.lib import launch\n\nlaunch({'a': 1})\n"),
        ("main.py", "import a.b.lib as L\n\nL.launch({'a': 1})\n"),
    ],
)
def test_a_namespace_folder_inside_a_regular_package_is_judged(
    tmp_path: Path, caller_path: str, caller: str
) -> None:
    """A second fresh tester: ``pkg/ns/lib.py`` with ``pkg/__init__.py`` but no
    ``pkg/ns/__init__.py`` is ``pkg.ns.lib`` to Python; its callers were not seen."""
    lib = "a/b/lib.py" if "a.b" in caller else "pkg/ns/lib.py"
    files = {"pkg/__init__.py": "", "a/__init__.py": "", lib: _NS_LIB, caller_path: caller}
    _expect(
        _verdict(tmp_path, files, lib, "launch"),
        f"{caller_path}:3 passes `{{'a': 1}}`, {PLAIN_DICT}",
    )


@pytest.mark.parametrize(
    ("helper", "caller", "expected"),
    [
        ("import pkg.lib as L\n", "from helpers import L\n\nL.launch({'a': 1})\n", "main.py:3 passes"),
        ("import pkg.lib as L\n", "import helpers\n\nhelpers.L.launch({'a': 1})\n", "main.py:3 passes"),
        ("import pkg.lib\n", "import helpers\n\nhelpers.pkg.lib.launch({'a': 1})\n", "main.py:3 passes"),
        ("import pkg.lib as L\n", "from helpers import L\n\n\ndef go(config):\n    return L.launch(config)\n", None),
    ],
)
def test_a_module_imported_whole_by_another_module_is_followed(
    tmp_path: Path, helper: str, caller: str, expected: str | None
) -> None:
    """A second fresh tester: ``helpers.py`` says ``import pkg.lib as L`` and ``main.py``
    calls ``L.launch({...})`` through it; the safe fix crashed that call."""
    files = {"pkg/__init__.py": "", "pkg/lib.py": _NS_LIB, "helpers.py": helper, "main.py": caller}
    _expect(_verdict(tmp_path, files, "pkg/lib.py", "launch"), expected)


@pytest.mark.parametrize("padding", [0, 20_000])
def test_one_of_many_functions_re_exported_by_its_package_is_judged(
    tmp_path: Path, monkeypatch, padding: int
) -> None:
    """Twelve functions of ``pkg/lib.py`` judged at once (more names than
    ``spelling.MANY_NAMES``: the reference index meets them with each file's words, or with
    their regex in a file over ``spelling.WORDS_UP_TO`` bytes): ``pkg/__init__.py`` re-exports ``run_7``, which ``caller.py``
    calls with a dict through ``from pkg import run_7``; ``other.py`` spells ``run_7`` beside
    no module of it and is not parsed; every other function keeps its safe fix."""
    from ppo_migrate.rules import cross_file
    from ppo_migrate.rules.cross_file import judge_callers
    from ppo_migrate.diagnostics import CallerOrigin
    from ppo_migrate.settings_model import Settings

    pad = "# padding\n" * (padding // 10)
    files = {
        "pkg/__init__.py": "from .lib import run_7\n",
        "pkg/lib.py": HEAD + "".join(
            f"\n\ndef run_{k}(config):\n    return get_ppo_ray_runtime_env()\n" for k in range(12)
        ),
        "caller.py": pad + "from pkg import run_7\n\nrun_7({'num_gpus': 8})\n",
        "other.py": pad + "def run_7(x):\n    return x\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    parsed: list[str] = []
    real = cross_file._analysis

    def counted(path, data, settings):
        parsed.append(Path(path).name)
        return real(path, data, settings)

    monkeypatch.setattr(cross_file, "_analysis", counted)
    origins = [CallerOrigin(str(tmp_path / "pkg/lib.py"), f"run_{k}", 0, "config") for k in range(12)]
    verdicts = judge_callers(origins, [str(tmp_path / rel) for rel in files], Settings())
    line = padding // 10 + 3
    assert verdicts[origins[7]] is not None and verdicts[origins[7]].endswith(
        f"caller.py:{line} passes `{{'num_gpus': 8}}`, " + PLAIN_DICT
    ), verdicts[origins[7]]
    assert [k for k, o in enumerate(origins) if verdicts[o] is not None] == [7]
    assert sorted(parsed) == ["__init__.py", "caller.py"]
