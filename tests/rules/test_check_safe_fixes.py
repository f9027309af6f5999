"""A fresh tester's wrong *safe* rewrites (issue 13), each run before and after ``apply``.

Every module here runs as it is. Before the fix each was rewritten by a plain ``apply``
(a safe fix) into code that crashed or passed something that is no training config. Now a
plain ``apply`` leaves it running: the fix is unsafe (``--unsafe-fixes`` only) or absent.
The positive cases keep their safe fix and run after it, receiving the config.
"""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

from ppo_migrate.rules import analyse
from ppo_migrate.edits.text_edits import process_text
from ppo_migrate.settings_model import Settings

from cli_helpers import declared

HEAD = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env as g\n"


def _run(src: str, entry: str = "main"):
    """Execute ``src`` with a verl 0.9-style ``get_ppo_ray_runtime_env(config=None)`` and
    call ``entry()``; returns what it returns (the config the function received)."""
    verl = {
        name: types.ModuleType(name) for name in ("verl", "verl.trainer", "verl.trainer.constants_ppo")
    }
    verl["verl.trainer.constants_ppo"].get_ppo_ray_runtime_env = lambda config=None: config
    saved = {n: sys.modules.get(n) for n in verl}
    sys.modules.update(verl)
    try:
        namespace: dict = {"__name__": "case"}
        exec(compile(src, "case.py", "exec"), namespace)
        return namespace[entry]()
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m


def _fix(src: str):
    (d,) = [d for d in analyse(src, declared("case.py"), Settings()) if d.code in ("PPO001", "PPO002")]
    return d.fix.applicability if d.fix else None, d.fix.edits[0].content if d.fix else None


def _applied(src: str, **settings) -> str:
    result = process_text(src, declared("case.py"), Settings(**settings), fix=True)
    return result.new_text if result.new_text is not None else src


NOT_SAFE = {
    "self-config-set-in-another-method": """
        class T:
            def load(self, cfg):
                self.config = cfg
            def run(self):
                return g()
        def main():
            return T().run()
        """,
    "init-calls-a-method-before-assigning": """
        class T:
            def __init__(self, cfg):
                self.result = self.run()
                self.config = cfg
            def run(self):
                return g()
        def main():
            return T({"trainer": 1}).result
        """,
    "subclass-init-without-super": """
        class Base:
            def __init__(self, config):
                self.config = config
        class Child(Base):
            def __init__(self):
                pass
            def run(self):
                return g()
        def main():
            return Child().run()
        """,
    "init-deletes-it": """
        class T:
            def __init__(self, config):
                self.config = config
                del self.config
            def run(self):
                return g()
        def main():
            return T({"trainer": 1}).run()
        """,
    "function-patched-in-this-file": """
        from unittest import mock
        from verl.trainer import constants_ppo
        def start(config):
            return constants_ppo.get_ppo_ray_runtime_env()
        def main():
            with mock.patch.object(constants_ppo, "get_ppo_ray_runtime_env", lambda: "legacy"):
                return start({"trainer": 1})
        """,
    "loop-over-a-parameter": """
        def start(paths):
            for config in paths:
                return g()
        def main():
            return start(["ppo_trainer.yaml"])
        """,
    "instance-made-without-init": """
        class T:
            def __init__(self, config):
                self.config = config
            def run(self):
                return g()
            @classmethod
            def empty(cls):
                return cls.__new__(cls)
        def main():
            return T.empty().run()
        """,
    "a-path-string": """
        import os
        def start(root):
            config = os.path.join(root, "ppo.yaml")
            return g()
        def main():
            return start("/tmp")
        """,
    "an-f-string-path": """
        def start(root):
            config = f"{root}/ppo.yaml"
            return g()
        def main():
            return start("/tmp")
        """,
    "a-string-default": """
        def start(config="ppo.yaml"):
            return g()
        def main():
            return start()
        """,
    "a-name-spelled-as-a-path": """
        def start(config_path):
            config = config_path
            return g()
        def main():
            return start("x.yaml")
        """,
    "a-plain-dict-from-yaml": """
        import json
        def main():
            config = json.loads('{"trainer": {}}')
            return g()
        """,
    "init-assigns-a-plain-dict": """
        class T:
            def __init__(self, config):
                self.config = config
            def run(self):
                return g()
        def main():
            return T({"trainer": 1}).run()
        """,
    "subclass-inherits-an-init-given-a-plain-dict": """
        class Base:
            def __init__(self, config):
                super().__init__()
                self.config = config
        class Child(Base):
            def run(self):
                return g()
        def main():
            return Child({"trainer": 1}).run()
        """,
    "a-plain-dict-by-default": """
        def main(cfg={"trainer": 1}):
            return g()
        """,
    "walrus-in-an-assert": """
        def main():
            assert (config := {"trainer": 1})
            return g()
        """,
}


@pytest.mark.parametrize("name", sorted(NOT_SAFE))
def test_a_plain_apply_leaves_it_running(name: str) -> None:
    src = HEAD + textwrap.dedent(NOT_SAFE[name])
    before = _run(src)
    applicability, _ = _fix(src)
    assert applicability in ("unsafe", None), name
    assert _applied(src) == src  # a plain apply writes nothing
    assert _run(_applied(src)) == before


def test_the_unsafe_rewrite_would_have_crashed_where_the_tester_found_it() -> None:
    """Why these are unsafe: with --unsafe-fixes the first case raises AttributeError."""
    src = HEAD + textwrap.dedent(NOT_SAFE["self-config-set-in-another-method"])
    forced = _applied(src, unsafe_fixes=True)
    assert "g(self.config)" in forced
    with pytest.raises(AttributeError):
        _run(forced)


SAFE = {
    "init-assigns-it": ("""
        from omegaconf import OmegaConf
        class T:
            def __init__(self, config):
                self.config = config
            def run(self):
                return g()
        def main():
            return T(OmegaConf.create({"trainer": 1})).run()
        """, "self.config"),
    "subclass-inherits-init": ("""
        from omegaconf import OmegaConf
        class Base:
            def __init__(self, config):
                super().__init__()
                self.config = config
        class Child(Base):
            def run(self):
                return g()
        def main():
            return Child(OmegaConf.create({"trainer": 1})).run()
        """, "self.config"),
    "subclass-init-calls-super-first": ("""
        from omegaconf import OmegaConf
        class Base:
            def __init__(self, config):
                self.config = config
        class Child(Base):
            def __init__(self, config, n):
                super().__init__(config)
                self.n = n
            def run(self):
                return g()
        def main():
            return Child(OmegaConf.create({"trainer": 1}), 2).run()
        """, "self.config"),
    # issue 26: calls that pass nothing by other spellings are found and fixed
    "empty-tuple-unpacked": ("""
        from omegaconf import OmegaConf
        def main(cfg=OmegaConf.create({"trainer": 1})):
            return g(*())
        """, "cfg"),
    "empty-dict-unpacked": ("""
        from omegaconf import OmegaConf
        def main(cfg=OmegaConf.create({"trainer": 1})):
            return g(*[], **{})
        """, "cfg"),
    "dunder-call": ("""
        from omegaconf import OmegaConf
        def main(cfg=OmegaConf.create({"trainer": 1})):
            return g.__call__()
        """, "cfg"),
    "parameter-beside-an-exception-named-config": ("""
        from omegaconf import OmegaConf
        def main(cfg=OmegaConf.create({"trainer": 1})):
            try:
                raise KeyError
            except KeyError as config:
                return g()
        """, "cfg"),
}


@pytest.mark.parametrize("name", sorted(SAFE))
def test_a_certain_config_is_still_a_safe_fix_and_the_rewrite_runs(name: str) -> None:
    body, expected = SAFE[name]
    src = HEAD + textwrap.dedent(body)
    assert _run(src) is None  # configless before
    assert _fix(src) == ("safe", expected)
    assert _run(_applied(src)) == {"trainer": 1}


def test_a_plain_dict_given_to_init_would_crash_verls_own_function() -> None:
    """Why a class instantiated with a plain dict is no safe fix (these were safe until
    now): verl 0.9's function reads the config with ``OmegaConf.select``, which raises
    ``AttributeError`` on a dict."""
    from omegaconf import OmegaConf

    for name in ("init-assigns-a-plain-dict", "subclass-inherits-an-init-given-a-plain-dict"):
        src = HEAD + textwrap.dedent(NOT_SAFE[name])
        assert _fix(src) == ("unsafe", "self.config")
        given = _run(_applied(src, unsafe_fixes=True))
        assert given == {"trainer": 1} and type(given) is dict
        with pytest.raises(AttributeError):
            OmegaConf.select(given, "actor_rollout_ref.actor.strategy", default=None)


def test_the_last_top_level_import_is_the_callee_in_effect() -> None:
    """``from verl... import *`` then ``from ppo_runtime import f``: a function's call binds
    to ppo_runtime's (a fresh user's --use-ppo-runtime run left the call configless)."""
    src = (
        "from verl.trainer.constants_ppo import *\n"
        "from ppo_runtime import get_ppo_ray_runtime_env\n\n"
        "def run(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    settings = Settings(verl_version="0.8.0", verl_version_from_cli=True)
    (d,) = analyse(src, "case.py", settings)
    assert (d.code, d.fix.applicability) == ("PPO001", "safe")
    reversed_order = (
        "from ppo_runtime import get_ppo_ray_runtime_env\n"
        "from verl.trainer.constants_ppo import *\n\n"
        "def run(config):\n    return get_ppo_ray_runtime_env()\n"
    )
    (d,) = analyse(reversed_order, "case.py", settings)
    assert d.code == "PPO005"  # the star import comes last: verl 0.8.0's function
