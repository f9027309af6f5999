"""Issue 26, family 6 (trial 26b f6_class_attr_module, f6_self_module_attr): calls read
through an attribute a class body binds, once never found ("All checks passed!").

``cp = constants_ppo`` in ``class Env`` and then ``Env.cp.get_ppo_ray_runtime_env()``,
``self.cp.get_...()`` or ``cls.cp.get_...()``; ``make = staticmethod(get_...)`` and
``Env.make()``/``self.make()``; ``plain = get_...`` and ``Env.plain()``. Each is found and
judged as a direct call (PPO001, PPO005 with an old pin); the fix is safe only when nothing
may put another object in the attribute: an assignment of that attribute on anything, a
patcher naming it, a subclass binding it, a decorator, metaclass or base class the tool does
not follow, in the module or in another file of the project (a test's double). Every case
is *executed* before and after a plain ``apply`` (and ``apply --thread-config``), against
verl's 0.9 signature (``config=None``) or, where the project pins verl 0.8, the old
zero-argument one. Spellings left on purpose are tested last, with the reason.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
import warm_python
from cli_helpers import VERL_08, VERL_09, run_cli, verl_stub

HEAD = (
    "from omegaconf import OmegaConf\n"
    "from verl.trainer import constants_ppo\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
)
MAIN = "\n\nif __name__ == '__main__':\n    print('ran', main(OmegaConf.create({'trainer': 1})))\n"
NEW = "ran {'trainer': 1}"  # verl 0.9's stub returns the config it is given


def _project(root: Path, body: str, pin: str = "verl>=0.9", files: dict[str, str] | None = None) -> Path:
    (root / ".git").mkdir(parents=True)
    texts = {"requirements.txt": pin + "\n", "app.py": HEAD + textwrap.dedent(body) + MAIN, **(files or {})}
    for name, text in texts.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _ran(root: Path, stub: Path, *cmd: str) -> str:
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{stub}", "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, *(cmd or ("app.py",))]
    proc = warm_python.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1] if not cmd else "passed"


def _check(root: Path) -> list[tuple]:
    proc = run_cli("check", "--output-format", "json", "--exit-zero", "--show-notices", ".", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return [
        (f["filename"].replace(os.sep, "/").rsplit("/", 1)[-1], f["code"], f["location"]["row"],
         (f["fix"] or {}).get("applicability"), (f.get("reason") or {}).get("kind"),
         [(r["location"]["row"], r["message"]) for r in (f.get("reason") or {}).get("lines", ())])
        for f in json.loads(proc.stdout)
    ]


def _apply(root: Path, *extra: str) -> None:
    proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- found, and fixed: nothing may rebind the attribute -----------------------------------------
FOUND = {
    "class-module": ("""
        class Env:
            cp = constants_ppo


        def main(config):
            return Env.cp.get_ppo_ray_runtime_env()
        """, "    return Env.cp.get_ppo_ray_runtime_env(config)\n", 10),
    "self-module": ("""
        class Env:
            cp = constants_ppo

            def start(self, config):
                return self.cp.get_ppo_ray_runtime_env()


        def main(config):
            return Env().start(config)
        """, "        return self.cp.get_ppo_ray_runtime_env(config)\n", 9),
    "cls-module": ("""
        class Env:
            cp = constants_ppo

            @classmethod
            def start(cls, config):
                return cls.cp.get_ppo_ray_runtime_env()


        def main(config):
            return Env.start(config)
        """, "        return cls.cp.get_ppo_ray_runtime_env(config)\n", 10),
    "dotted-module": ("""
        import verl.trainer.constants_ppo


        class Env:
            cp = verl.trainer.constants_ppo


        def main(config):
            return Env.cp.get_ppo_ray_runtime_env()
        """, "    return Env.cp.get_ppo_ray_runtime_env(config)\n", 13),
    "class-staticmethod": ("""
        class Env:
            make = staticmethod(get_ppo_ray_runtime_env)


        def main(config):
            return Env.make()
        """, "    return Env.make(config)\n", 10),
    "self-staticmethod": ("""
        class Env:
            make = staticmethod(get_ppo_ray_runtime_env)

            def start(self, config):
                return self.make()


        def main(config):
            return Env().start(config)
        """, "        return self.make(config)\n", 9),
    "class-body-import": ("""
        class Env:
            from verl.trainer import constants_ppo as cp

            def start(self, config):
                return self.cp.get_ppo_ray_runtime_env()


        def main(config):
            return Env().start(config)
        """, "        return self.cp.get_ppo_ray_runtime_env(config)\n", 9),
    "class-plain-function": ("""
        class Env:
            plain = get_ppo_ray_runtime_env  # noqa: PPO006


        def main(config):
            return Env.plain()
        """, "    return Env.plain(config)\n", 10),
}


@pytest.mark.parametrize("case", sorted(FOUND))
def test_a_call_read_through_a_class_attribute_is_found_and_fixed(tmp_path: Path, case: str) -> None:
    body, fixed, line = FOUND[case]
    root = _project(tmp_path / "proj", body)
    stub = verl_stub(tmp_path / "stub", VERL_09)
    assert _ran(root, stub) == "ran None"
    assert [f[:4] for f in _check(root)] == [("app.py", "PPO001", line, "safe")]
    _apply(root)
    assert fixed in (root / "app.py").read_text()
    assert _ran(root, stub) == NEW


@pytest.mark.parametrize("case", sorted(FOUND))
def test_with_verl_0_8_pinned_the_call_is_a_notice_and_still_runs(tmp_path: Path, case: str) -> None:
    """The project pins verl 0.8, whose function takes no config: PPO005, naming the pin,
    and the call is left as it is by both applies."""
    body, _, line = FOUND[case]
    root = _project(tmp_path / "proj", body, pin="verl==0.8.0")
    stub = verl_stub(tmp_path / "stub", VERL_08)
    before = (root / "app.py").read_text()
    assert _ran(root, stub) == "ran None"
    found = _check(root)
    assert [f[:4] for f in found] == [("app.py", "PPO005", line, None)]
    assert found[0][4] == "pin" and found[0][5][0][0] == 1  # requirements.txt:1
    for extra in ((), ("--thread-config",)):
        _apply(root, *extra)
        assert (root / "app.py").read_text() == before
        assert _ran(root, stub) == "ran None"


def test_the_module_read_through_a_class_is_not_moved_by_use_ppo_runtime(tmp_path: Path) -> None:
    """``--use-ppo-runtime`` moves imports, not a module a class holds: PPO005 of
    ``Env.cp.get_...()`` (an in-tree verl 0.8 copy decides) does not advise it, while that
    of ``Env.make()`` (``staticmethod`` of an imported function, which the move moves) does."""
    copy = {"verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/trainer/constants_ppo.py": VERL_08}
    for name, case, ending in (("one", "class-module", "; update that copy"),
                               ("two", "class-staticmethod", "; update that copy, or run with --use-ppo-runtime")):
        root = _project(tmp_path / name, FOUND[case][0], pin="", files=copy)
        proc = run_cli("check", "--output-format", "json", "--exit-zero", "--show-notices", "app.py", cwd=root)
        (finding,) = json.loads(proc.stdout)
        assert finding["code"] == "PPO005" and finding["message"].endswith(ending), finding["message"]


# -- found, fix unsafe: something in the module may rebind the attribute -------------------------
FAKE = "FAKE = type('Fake', (), {'get_ppo_ray_runtime_env': staticmethod(lambda: {'fake': 1})})\n"
REBOUND = {
    # case: (body, the call's line, [(line, what)] the reason names)
    "instance-assignment": ("""
        class Env:
            cp = constants_ppo

            def __init__(self, cp=None):
                if cp is not None:
                    self.cp = cp

            def start(self, config):
                return self.cp.get_ppo_ray_runtime_env()


        def main(config):
            return Env(FAKE).start(config)
        """, 14, [(11, "assigns `self.cp`")]),
    "class-assignment": ("""
        class Env:
            cp = constants_ppo


        Env.cp = FAKE


        def main(config):
            return Env.cp.get_ppo_ray_runtime_env()
        """, 14, [(10, "assigns `Env.cp`")]),
    "setattr": ("""
        class Env:
            cp = constants_ppo


        setattr(Env, "cp", FAKE)


        def main(config):
            return Env.cp.get_ppo_ray_runtime_env()
        """, 14, [(10, "replaces `cp` with `setattr`")]),
    "subclass-override": ("""
        class Env:
            cp = constants_ppo

            def start(self, config):
                return self.cp.get_ppo_ray_runtime_env()


        class Fake(Env):
            cp = FAKE


        def main(config):
            return Fake().start(config)
        """, 10, [(14, "binds `cp` in class `Fake`, which may be a subclass")]),
    "dataclass-field": ("""
        import dataclasses


        @dataclasses.dataclass
        class Env:
            cp: object = constants_ppo

            def start(self, config):
                return self.cp.get_ppo_ray_runtime_env()


        def main(config):
            return Env(cp=FAKE).start(config)
        """, 14, [(9, "decorates class `Env` with `dataclasses.dataclass`, which may change or replace it")]),
}


@pytest.mark.parametrize("case", sorted(REBOUND))
def test_an_attribute_the_module_may_rebind_gets_an_unsafe_fix(tmp_path: Path, case: str) -> None:
    """The call reaches ``FAKE``'s zero-argument function when run: a fix there would raise
    ``TypeError``. The fix is unsafe, its reason (kind ``rebound``) names the line, and a
    plain ``apply`` leaves the code running as before."""
    body, line, places = REBOUND[case]
    root = _project(tmp_path / "proj", FAKE + textwrap.dedent(body))
    stub = verl_stub(tmp_path / "stub", VERL_09)
    before = (root / "app.py").read_text()
    assert _ran(root, stub) == "ran {'fake': 1}"
    found = _check(root)
    assert [f[:5] for f in found] == [("app.py", "PPO001", line, "unsafe", "rebound")]
    assert found[0][5] == places
    for extra in ((), ("--thread-config",)):
        _apply(root, *extra)
        assert (root / "app.py").read_text() == before
        assert _ran(root, stub) == "ran {'fake': 1}"


BASE = "class Base:\n    def __init__(self):\n        self.cp = FAKE\n"


def test_a_base_class_of_another_module_makes_the_fix_unsafe(tmp_path: Path) -> None:
    """``class Env(Base)`` with ``Base`` imported: its ``__init__`` sets ``self.cp`` (the
    tool does not follow a base's attributes), so the fix is unsafe, naming the base."""
    body = """
        from base import Base


        class Env(Base):
            cp = constants_ppo

            def start(self, config):
                return self.cp.get_ppo_ray_runtime_env()


        def main(config):
            return Env().start(config)
        """
    root = _project(tmp_path / "proj", body, files={"base.py": FAKE + BASE})
    stub = verl_stub(tmp_path / "stub", VERL_09)
    assert _ran(root, stub) == "ran {'fake': 1}"
    found = _check(root)
    # since trial 26i the doubles' table reads ``base.py``'s ``type(..., {"get_...": ...})``
    # first: the fake class itself, which the base's ``__init__`` puts on ``self.cp``
    assert [f[:5] for f in found] == [("app.py", "PPO001", 12, "unsafe", "patched")]
    assert found[0][5] == [(1, "replaces the runtime function, whose replacement may take no config")]
    _apply(root)
    assert _ran(root, stub) == "ran {'fake': 1}"


# -- found, fix unsafe: a test of the project replaces it ---------------------------------------
LAUNCHER = """
    class Launcher:
        cp = constants_ppo

        def __init__(self, config):
            self.config = config

        def env(self):
            return self.cp.get_ppo_ray_runtime_env()


    def main(config):
        return Launcher(config).env()
    """
TEST_HEAD = "from omegaconf import OmegaConf\nimport app\n\n\n"
#: a zero-argument double of verl's module (its own file: the look-out takes a test file
#: spelling the function's name in a string for a replacement of it)
FAKES = "class FAKE:\n    @staticmethod\n    def get_ppo_ray_runtime_env():\n        return {}\n"
DOUBLE_HEAD = TEST_HEAD.replace("import app\n", "import app\nfrom tests.fakes import FAKE\n")
DOUBLES = {
    "monkeypatch-instance": ((
        "def test_env(monkeypatch):\n"
        "    launcher = app.Launcher(OmegaConf.create({'trainer': 1}))\n"
        "    monkeypatch.setattr(launcher, 'cp', FAKE)\n"
        "    assert launcher.env() == {}\n"), 8),
    "instance-assignment": ((
        "def test_env():\n"
        "    launcher = app.Launcher(OmegaConf.create({'trainer': 1}))\n"
        "    launcher.cp = FAKE\n"
        "    assert launcher.env() == {}\n"), 8),
    "subclass": ((
        "class FakeLauncher(app.Launcher):\n"
        "    cp = FAKE\n\n\n"
        "def test_env():\n"
        "    assert FakeLauncher(OmegaConf.create({'trainer': 1})).env() == {}\n"), 7),
}


#: the launcher binding ``cp`` by an import in its class body
LAUNCHER_IMPORT = LAUNCHER.replace("cp = constants_ppo", "from verl.trainer import constants_ppo as cp")


@pytest.mark.parametrize("case", sorted(DOUBLES))
@pytest.mark.parametrize(("named", "launcher"), [(".", LAUNCHER), ("app.py", LAUNCHER), ("app.py", LAUNCHER_IMPORT)])
def test_a_test_double_put_in_the_attribute_makes_the_fix_unsafe(
    tmp_path: Path, case: str, named: str, launcher: str
) -> None:
    """``tests/test_app.py`` puts a zero-argument double in ``cp`` (on an instance, or in a
    subclass): the look-out of the run's other files finds it, also when the command line
    names ``app.py`` alone (a pre-commit hook), and the test still passes after ``apply``."""
    test, line = DOUBLES[case]
    root = _project(tmp_path / "proj", launcher, files={
        "tests/__init__.py": "", "tests/fakes.py": FAKES, "tests/test_app.py": DOUBLE_HEAD + test,
    })
    stub = verl_stub(tmp_path / "stub", VERL_09)
    pytest_cmd = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    assert _ran(root, stub, *pytest_cmd) == "passed"
    before = (root / "app.py").read_text()
    proc = run_cli("check", "--output-format", "json", "--exit-zero", named, cwd=root)
    (finding,) = json.loads(proc.stdout)
    assert (finding["code"], finding["location"]["row"], finding["fix"]["applicability"]) == ("PPO001", 12, "unsafe")
    assert [(r["filename"].replace(os.sep, "/").rsplit("proj/", 1)[-1], r["location"]["row"])
            for r in finding["reason"]["lines"]] == [("tests/test_app.py", line)]
    proc = run_cli("apply", "--exit-zero", named, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "app.py").read_text() == before
    assert _ran(root, stub, *pytest_cmd) == "passed"
    assert _ran(root, stub) == "ran None"


def test_without_the_double_the_fix_is_safe_and_the_test_still_passes(tmp_path: Path) -> None:
    """The same launcher with a test that uses the real module: the fix is safe, and both
    the entry and the test run after ``apply``."""
    test = "def test_env():\n    assert app.Launcher(OmegaConf.create({'trainer': 1})).env() == {'trainer': 1}\n"
    root = _project(tmp_path / "proj", LAUNCHER, files={"tests/test_app.py": TEST_HEAD + test})
    stub = verl_stub(tmp_path / "stub", VERL_09)
    assert [f[:4] for f in _check(root)] == [("app.py", "PPO001", 12, "safe")]
    _apply(root)
    assert "        return self.cp.get_ppo_ray_runtime_env(self.config)\n" in (root / "app.py").read_text()
    assert _ran(root, stub) == NEW
    assert _ran(root, stub, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests") == "passed"


# -- spellings left on purpose --------------------------------------------------------------------
LEFT = {
    # a plain function read on an instance is a bound method: ``self`` is passed as the
    # config already (verl 0.9 gets the instance, verl 0.8 raises): no fix may change that;
    # PPO006 at the class attribute says so
    "bound-method": ("""
        class Env:
            plain = get_ppo_ray_runtime_env

            def start(self, config):
                return self.plain() is self


        def main(config):
            return Env().start(config)
        """, "ran True", [("PPO006", 6)]),
    # a dict is mutable: any code may replace the item, so its calls are not followed;
    # PPO006 at the value asks for the config where it is called
    "dict-holder": ("""
        FUNCS = {"env": get_ppo_ray_runtime_env}


        def main(config):
            return FUNCS["env"]()
        """, "ran None", [("PPO006", 5)]),
    # a partial may bind any arguments: PPO006 at the reference
    "functools-partial": ("""
        import functools


        def main(config):
            return functools.partial(get_ppo_ray_runtime_env)()
        """, "ran None", [("PPO006", 9)]),
    # the class attribute bound twice (a conditional), once to something else: the call may
    # or may not reach the function, PPO003 (never rewritten), as for a module-level alias
    "bound-twice": ("""
        import os


        class Env:
            cp = constants_ppo
            if os.environ.get("NO_SUCH_VARIABLE"):
                cp = None


        def main(config):
            return Env.cp.get_ppo_ray_runtime_env()
        """, "ran None", [("PPO003", 15)]),
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_spellings_left_on_purpose(tmp_path: Path, case: str) -> None:
    body, ran, found = LEFT[case]
    root = _project(tmp_path / "proj", body)
    stub = verl_stub(tmp_path / "stub", VERL_09)
    before = (root / "app.py").read_text()
    assert _ran(root, stub) == ran
    assert [(f[1], f[2]) for f in _check(root)] == found
    _apply(root)
    assert (root / "app.py").read_text() == before
    assert _ran(root, stub) == ran


def test_getattr_with_a_literal_name_is_found_and_fixed(tmp_path: Path) -> None:
    """``getattr(constants_ppo, "get_ppo_ray_runtime_env")()`` reads the attribute by a
    literal name: a target call, fixed."""
    body = """
        def main(config):
            return getattr(constants_ppo, "get_ppo_ray_runtime_env")()
        """
    root = _project(tmp_path / "proj", body)
    stub = verl_stub(tmp_path / "stub", VERL_09)
    assert _ran(root, stub) == "ran None"
    assert [f[:4] for f in _check(root)] == [("app.py", "PPO001", 6, "safe")]
    _apply(root)
    assert 'getattr(constants_ppo, "get_ppo_ray_runtime_env")(config)' in (root / "app.py").read_text()
    assert _ran(root, stub) == NEW


#: trial 26e, M5: ``operator.attrgetter`` with a literal dotted path reads the function as
#: ``getattr`` with a literal name does: the same finding and the same fix
ATTRGETTERS = {
    "operator-from-verl": (
        "import operator\nimport verl\n",
        'operator.attrgetter("trainer.constants_ppo.get_ppo_ray_runtime_env")(verl)',
    ),
    "imported-from-verl-trainer": (
        "from operator import attrgetter\nimport verl.trainer\n",
        'attrgetter("constants_ppo.get_ppo_ray_runtime_env")(verl.trainer)',
    ),
}


@pytest.mark.parametrize("case", sorted(ATTRGETTERS))
def test_attrgetter_with_a_literal_path_is_found_and_fixed(tmp_path: Path, case: str) -> None:
    imports, getter = ATTRGETTERS[case]
    body = f"""
        {imports.replace(chr(10), chr(10) + " " * 8)}

        def main(config):
            return {getter}()
        """
    root = _project(tmp_path / "proj", body)
    stub = verl_stub(tmp_path / "stub", VERL_09)
    assert _ran(root, stub) == "ran None"
    assert [f[:4] for f in _check(root)] == [("app.py", "PPO001", 10, "safe")]
    _apply(root)
    assert f"return {getter}(config)\n" in (root / "app.py").read_text()
    assert _ran(root, stub) == NEW


def test_attrgetter_of_another_function_is_not_a_target(tmp_path: Path) -> None:
    body = """
        from operator import attrgetter
        import os


        def main(config):
            return attrgetter("path.basename")(os)("a/get_ppo_ray_runtime_env")
        """
    root = _project(tmp_path / "proj", body)
    stub = verl_stub(tmp_path / "stub", VERL_09)
    assert _ran(root, stub) == "ran get_ppo_ray_runtime_env"
    assert _check(root) == []
