"""Values that reach a config through a class or a dynamic call (issue 13's caller rule).

A second fresh tester generated modules and ran each before and after ``apply`` against
verl 0.9.1's real ``get_ppo_ray_runtime_env`` (it reads the config with
``OmegaConf.select``, which raises ``AttributeError`` on a plain dict or a string). These
still crashed after the rewrite: a dict or a string reached ``self.config`` or a
``config`` parameter through a path the same-file caller rule did not follow --
``super().__init__(d)``, ``cls(d)``, ``type(self)(d)``, a class alias, a dataclass field,
``t.config = d`` after ``__init__``, a subclass's own ``self.config``, a property, a
method's return value, ``globals()["launch"](d)``, a decorator that injects its own
argument. A third tester then showed the name alone vouching for values of a type not known
(``pickle.loads``, ``copy.deepcopy`` of a dict, ``typing.cast``, a config leaf, ``yield``,
``await``, ``with`` targets, match captures, lambda parameters, ``OmegaConf.create`` of a list
parameter, a shadowed ``OmegaConf``) and more ways into ``self.config`` (a mixin's
descriptor, a borrowed method, ``__getattribute__``, ``object.__setattr__``); a fourth, reads
of ``self.config`` before ``__init__`` sets it (a base ``__init__`` calling a hook, a property,
an early ``return``) and ``for``/``with`` targets. Each is run here on the real function (verl 0.9.1's wheel) before and after a
plain ``apply``: it runs before, and still runs after. The controls beside them pass a
real OmegaConf config through the same paths and keep their safe fix, which runs and
hands the config on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from ppo_migrate.edits.text_edits import process_text
from ppo_migrate.settings_model import Settings
from verl_wheels import VERL_STUBS, wheel_tree

HEAD = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\nfrom omegaconf import OmegaConf\n"
#: what every module ends with: the call's result as JSON (the env_vars verl's function set)
TAIL = "\nRESULT = ENV\n"

CRASHED = {  # name -> a module whose last line binds ENV through the configless call
    "classmethod-cls-given-a-dict": """
        class T:
            def __init__(self, config):
                self.config = config
            @classmethod
            def make(cls):
                return cls({"a": 1})
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T.make().env()
        """,
    "type-self-given-a-dict": """
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
            def clone(self):
                return type(self)({"a": 1})
        ENV = T(OmegaConf.create({})).clone().env()
        """,
    "self-class-given-a-dict": """
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
            def clone(self):
                return self.__class__({"a": 1})
        ENV = T(OmegaConf.create({})).clone().env()
        """,
    "class-alias-given-a-dict": """
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        K = T
        ENV = K({"a": 1}).env()
        """,
    "dataclass-field-given-a-dict": """
        from dataclasses import dataclass
        @dataclass
        class T:
            config: object
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T({"a": 1}).env()
        """,
    "dataclass-field-defaults-to-a-dict": """
        from dataclasses import dataclass, field
        @dataclass
        class T:
            config: object = field(default_factory=lambda: {"a": 1})
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T().env()
        """,
    "decorator-injects-a-dict": """
        import functools
        def with_cfg(f):
            return functools.partial(f, {"a": 1})
        @with_cfg
        def launch(config):
            return get_ppo_ray_runtime_env()
        ENV = launch()
        """,
    "dataclass-replaced-with-a-dict": """
        import dataclasses
        @dataclasses.dataclass
        class T:
            config: object
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = dataclasses.replace(T(OmegaConf.create({})), config={"a": 1}).env()
        """,
    "dict-update-of-the-instance": """
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        t = T(OmegaConf.create({}))
        t.__dict__.update(config={"a": 1})
        ENV = t.env()
        """,
    "setattr-of-the-instance": """
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        t = T(OmegaConf.create({}))
        setattr(t, "config", {"a": 1})
        ENV = t.env()
        """,
    "globals-call-by-name": """
        def launch(config):
            return get_ppo_ray_runtime_env()
        ENV = globals()["launch"]({"a": 1})
        """,
    "getattr-call-by-name": """
        import sys
        def launch(config):
            return get_ppo_ray_runtime_env()
        ENV = getattr(sys.modules[__name__], "launch")({"a": 1})
        """,
    "base-init-called-with-a-dict": """
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class U(T):
            def __init__(self, d):
                T.__init__(self, d)
        ENV = U({"a": 1}).env()
        """,
    "subclass-property-returns-a-dict": """
        class B:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class C(B):
            @property
            def config(self):
                return {"a": 1}
            @config.setter
            def config(self, v):
                pass
        ENV = C(OmegaConf.create({"trainer": {}})).env()
        """,
    "attribute-replaced-after-init": """
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        t = T(OmegaConf.create({}))
        t.config = {"a": 1}
        ENV = t.env()
        """,
    "subclass-init-stores-a-dict": """
        class B:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class C(B):
            def __init__(self, config):
                super().__init__(config)
                self.config = dict(config)
        ENV = C(OmegaConf.create({"trainer": {}})).env()
        """,
    "subclass-init-stores-a-path": """
        class B:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class C(B):
            def __init__(self, path):
                self.config = path
        ENV = C("ppo.yaml").env()
        """,
    "init-stores-a-method-result": """
        class T:
            def __init__(self, config):
                self.config = config
                self.config = self._norm(config)
            def _norm(self, c):
                return dict(c)
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T(OmegaConf.create({})).env()
        """,
    "super-init-given-a-dict": """
        class Base:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class Leaf(Base):
            def __init__(self):
                super().__init__({"a": 1})
        ENV = Leaf().env()
        """,
    "super-init-passes-a-parameter-given-a-dict": """
        class Base:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class Leaf(Base):
            def __init__(self, c):
                super().__init__(c)
        ENV = Leaf({"a": 1}).env()
        """,
    "two-argument-super-given-a-dict": """
        class Base:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class Leaf(Base):
            def __init__(self):
                super(Leaf, self).__init__(config={"a": 1})
        ENV = Leaf().env()
        """,
    "function-result-is-a-dict": """
        def load():
            return {"a": 1}
        def main():
            config = load()
            return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    # a third tester's: values of a type not known here (the name alone no longer vouches)
    "deepcopy-of-a-dict": """
        import copy
        DEFAULTS = {"a": 1}
        def main():
            config = copy.deepcopy(DEFAULTS)
            return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    "pickle-loads": """
        import pickle
        def main():
            config = pickle.loads(pickle.dumps({"a": 1}))
            return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    "a-config-leaf": """
        def main():
            config = OmegaConf.create({"trainer": "x"}).trainer
            return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    "typing-cast": """
        import typing
        from omegaconf import DictConfig
        def main():
            config = typing.cast(DictConfig, {"a": 1})
            return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    "lambda-parameter": """
        make_env = lambda config: get_ppo_ray_runtime_env()
        ENV = make_env({"a": 1})
        """,
    "sent-into-a-generator": """
        def gen():
            config = yield
            yield get_ppo_ray_runtime_env()
        g = gen()
        next(g)
        ENV = g.send({"a": 1})
        """,
    "awaited": """
        import asyncio
        async def make():
            return {"a": 1}
        async def main():
            config = await make()
            return get_ppo_ray_runtime_env()
        ENV = asyncio.run(main())
        """,
    "with-target": """
        import contextlib
        def main():
            with contextlib.nullcontext({"a": 1}) as config:
                return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    "match-capture": """
        def main(x):
            match x:
                case {"a": 1, **config}:
                    return get_ppo_ray_runtime_env()
        ENV = main({"a": 1, "b": 2})
        """,
    "create-of-a-list-parameter": """
        def main(items):
            config = OmegaConf.create(items)
            return get_ppo_ray_runtime_env()
        ENV = main([1, 2])
        """,
    "structured-of-a-list": """
        def main():
            config = OmegaConf.structured([1, 2])
            return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    "omegaconf-shadowed-by-a-class": """
        class OmegaConf:
            @staticmethod
            def create(x):
                return x
        def main():
            config = OmegaConf.create({"a": 1})
            return get_ppo_ray_runtime_env()
        ENV = main()
        """,
    "module-global-rebound-through-globals": """
        config = OmegaConf.create(CFG)
        def reset():
            globals()["config"] = {"a": 1}
        def main():
            return get_ppo_ray_runtime_env()
        reset()
        ENV = main()
        """,
    "frozen-dataclass-post-init": """
        import dataclasses
        @dataclasses.dataclass(frozen=True)
        class T:
            config: object
            def __post_init__(self):
                object.__setattr__(self, "config", OmegaConf.to_container(self.config))
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T(OmegaConf.create(CFG)).env()
        """,
    "bound-method-handed-on": """
        class T:
            def run(self, config):
                return get_ppo_ray_runtime_env()
        r = T().run
        ENV = r({"a": 1})
        """,
    "wrapped-function-called": """
        import functools
        @functools.lru_cache
        def launch(config):
            return get_ppo_ray_runtime_env()
        ENV = launch.__wrapped__({"a": 1})
        """,
    "method-borrowed-by-another-class": """
        class T:
            def __init__(self):
                self.config = OmegaConf.create(CFG)
            def run(self):
                return get_ppo_ray_runtime_env()
        class U:
            config = {"a": 1}
        ENV = T.run(U())
        """,
    "mixin-descriptor": """
        class D:
            def __get__(self, o, t):
                return {"a": 1}
            def __set__(self, o, v):
                pass
        class M:
            config = D()
        class Base:
            def __init__(self):
                self.config = OmegaConf.create(CFG)
            def run(self):
                return get_ppo_ray_runtime_env()
        class T(M, Base):
            pass
        ENV = T().run()
        """,
    "getattribute-override": """
        class T:
            def __init__(self):
                self.config = OmegaConf.create(CFG)
            def __getattribute__(self, name):
                if name == "config":
                    return {"a": 1}
                return object.__getattribute__(self, name)
            def run(self):
                return get_ppo_ray_runtime_env()
        ENV = T().run()
        """,
    # a fourth tester's: self.config read before __init__ sets it, and more target forms
    "base-init-calls-a-hook-before-the-assignment": """
        class Worker:
            def __init__(self):
                self._configure_env()
            def _configure_env(self):
                pass
        class ActorWorker(Worker):
            def __init__(self, config):
                Worker.__init__(self)
                self.config = config
            def _configure_env(self):
                self.env = get_ppo_ray_runtime_env()
        ENV = ActorWorker(OmegaConf.create(CFG)).env
        """,
    "property-read-in-init-before-the-assignment": """
        class Trainer:
            def __init__(self, config):
                self.first = self.runtime_env
                self.config = config
            @property
            def runtime_env(self):
                return get_ppo_ray_runtime_env()
        ENV = Trainer(OmegaConf.create(CFG)).first
        """,
    "init-returns-early": """
        class Trainer:
            def __init__(self, config=None):
                if config is None:
                    return
                self.config = config
            def fit(self):
                return get_ppo_ray_runtime_env()
        ENV = Trainer().fit()
        """,
    "for-target-is-the-attribute": """
        class Sweeper:
            def __init__(self, config):
                self.config = config
            def run_all(self, overrides):
                for self.config in [OmegaConf.to_container(OmegaConf.merge(self.config, o)) for o in overrides]:
                    return self.launch()
            def launch(self):
                return get_ppo_ray_runtime_env()
        ENV = Sweeper(OmegaConf.create({"a": 1})).run_all([{"a": 2}])
        """,
    "class-decorator-replaces-init": """
        def plain_config(cls):
            orig = cls.__init__
            def __init__(self, config):
                orig(self, OmegaConf.to_container(config))
            cls.__init__ = __init__
            return cls
        @plain_config
        class Trainer:
            def __init__(self, config):
                self.config = config
            def fit(self):
                return get_ppo_ray_runtime_env()
        ENV = Trainer(OmegaConf.create(CFG)).fit()
        """,
    # a fifth tester's: star parameters and methods Python calls implicitly
    "double-star-parameter": """
        def run(**config):
            return get_ppo_ray_runtime_env()
        ENV = run(a=1)
        """,
    "star-parameter-stored-on-self": """
        class T:
            def __init__(self, *config):
                self.config = config
            def fit(self):
                return get_ppo_ray_runtime_env()
        ENV = T(1, 2).fit()
        """,
    "instance-call-given-a-dict": """
        class TaskRunner:
            def __call__(self, config):
                return get_ppo_ray_runtime_env()
        runner = TaskRunner()
        ENV = runner(OmegaConf.to_container(OmegaConf.create(CFG), resolve=True))
        """,
    "new-given-a-dict": """
        class T:
            def __new__(cls, config):
                obj = super().__new__(cls)
                obj.env = get_ppo_ray_runtime_env()
                return obj
        ENV = T({"a": 1}).env
        """,
    "post-init-variable": """
        import dataclasses
        @dataclasses.dataclass
        class T:
            config: dataclasses.InitVar[object]
            def __post_init__(self, config):
                self.env = get_ppo_ray_runtime_env()
        ENV = T({"a": 1}).env
        """,
}

KEPT = {  # name -> (module, the expression the safe fix passes)
    "classmethod-cls-given-a-config": ("""
        class T:
            def __init__(self, config):
                self.config = config
            @classmethod
            def make(cls):
                return cls(OmegaConf.create(CFG))
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T.make().env()
        """, "self.config"),
    "super-init-passes-a-parameter-given-a-config": ("""
        class Base:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        class Leaf(Base):
            def __init__(self, c, n=1):
                super().__init__(c)
                self.n = n
        ENV = Leaf(OmegaConf.create(CFG)).env()
        """, "self.config"),
    "dataclass-field-given-a-config": ("""
        from dataclasses import dataclass
        @dataclass
        class T:
            n: int
            config: object
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T(1, OmegaConf.create(CFG)).env()
        """, "self.config"),
    "decorator-passes-the-arguments-through": ("""
        import functools
        def logged(f):
            @functools.wraps(f)
            def wrapper(*args, **kwargs):
                return f(*args, **kwargs)
            return wrapper
        @logged
        def launch(config):
            return get_ppo_ray_runtime_env()
        ENV = launch(OmegaConf.create(CFG))
        """, "config"),
    "function-result-is-a-config": ("""
        def load():
            return OmegaConf.create(CFG)
        def launch(config):
            return get_ppo_ray_runtime_env()
        ENV = launch(load())
        """, "config"),
    "attribute-replaced-by-a-config": ("""
        class T:
            def __init__(self, config):
                self.config = config
            def env(self):
                return get_ppo_ray_runtime_env()
        t = T(OmegaConf.create({}))
        t.config = OmegaConf.create(CFG)
        ENV = t.env()
        """, "self.config"),
    "classmethod-factory-beside-a-method": ("""
        class T:
            def __init__(self, config):
                self.config = config
            @classmethod
            def build(cls):
                return cls(OmegaConf.create(CFG))
            def env(self):
                return get_ppo_ray_runtime_env()
        ENV = T.build().env()
        """, "self.config"),
    "set-to-none-until-run-sets-it": ("""
        class TaskRunner:
            def __init__(self):
                self.config = None
            def init_manager(self):
                return get_ppo_ray_runtime_env()
            def run(self, config):
                self.config = config
                return self.init_manager()
        ENV = TaskRunner().run(OmegaConf.create(CFG))
        """, "self.config"),
    "exported-in-dunder-all": ("""
        __all__ = ["launch"]
        def launch(config):
            return get_ppo_ray_runtime_env()
        ENV = launch(OmegaConf.create(CFG))
        """, "config"),
}

#: the training config the controls pass: a Megatron actor (verl PR #6976 sets the variable)
CFG = {"actor_rollout_ref": {"actor": {"strategy": "megatron"}}, "trainer": {"device": "cuda"}}

_RUNNER = r"""
import json, sys, traceback, types
wheel, modules = sys.argv[1], json.loads(sys.stdin.read())
sys.path.insert(0, wheel)
""" + VERL_STUBS + r"""
out = {}
for key, source in modules.items():
    namespace = {"__name__": "case_" + str(len(out))}
    module = types.ModuleType(namespace["__name__"]); sys.modules[module.__name__] = module
    try:
        exec(compile(source, key, "exec"), module.__dict__)
        out[key] = ["ok", module.RESULT["env_vars"].get("CUDA_DEVICE_MAX_CONNECTIONS")]
    except Exception as e:
        out[key] = [type(e).__name__, str(e)[:200]]
print(json.dumps(out))
"""


def _source(body: str) -> str:
    return HEAD + f"CFG = {CFG!r}\n" + textwrap.dedent(body) + TAIL


def _run_all(root: Path, modules: dict[str, str]) -> dict[str, list]:
    """Run each module in one fresh interpreter against the wheel's real function;
    ``key -> ["ok", CUDA_DEVICE_MAX_CONNECTIONS or None]`` or ``[exception type, message]``."""
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(root)], input=json.dumps(modules),
        capture_output=True, text=True, timeout=300, check=False,
        env={k: v for k, v in os.environ.items() if k != "CUDA_DEVICE_MAX_CONNECTIONS"},
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _applied(src: str) -> str:
    result = process_text(src, "case.py", Settings(verl_version="0.9.1", verl_version_from_cli=True), fix=True)
    return result.new_text if result.new_text is not None else src


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list]:
    """Every case before and after a plain ``apply``, and the rewrite a name-based fixer
    (``self.config`` / ``config`` passed on) would make, all run on verl 0.9.1's wheel."""
    root = wheel_tree("0.9.1", tmp_path_factory)
    modules: dict[str, str] = {}
    for name, body in CRASHED.items():
        src = _source(body)
        modules[f"{name}/before"] = src
        modules[f"{name}/after"] = _applied(src)
        enclosing = src.split("get_ppo_ray_runtime_env()")[0].rsplit("def ", 1)[-1]
        arg = "self.config" if enclosing.split("\n", 1)[0].find("(self") >= 0 else "config"
        modules[f"{name}/by-name"] = src.replace("get_ppo_ray_runtime_env()", f"get_ppo_ray_runtime_env({arg})")
    for name, (body, _) in KEPT.items():
        src = _source(body)
        modules[f"{name}/before"] = src
        modules[f"{name}/after"] = _applied(src)
    return {"modules": modules, **_run_all(root, modules)}


#: the tests of ``outcomes`` share one worker (pytest-xdist): its runs are made once, not
#: once on each worker that happens to take one of them
uses_outcomes = pytest.mark.xdist_group("class-flows-outcomes")


@uses_outcomes
@pytest.mark.parametrize("name", sorted(CRASHED))
def test_a_plain_apply_leaves_it_running_on_verls_real_function(outcomes: dict, name: str) -> None:
    assert outcomes[f"{name}/before"] == ["ok", None]
    # the rewrite that used to be made crashes on the real function
    assert outcomes[f"{name}/by-name"][0] != "ok", outcomes[f"{name}/by-name"]
    assert outcomes["modules"][f"{name}/after"] == outcomes["modules"][f"{name}/before"]
    assert outcomes[f"{name}/after"] == ["ok", None]


@uses_outcomes
@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_config_through_the_same_path_keeps_its_safe_fix(outcomes: dict, name: str) -> None:
    _, expected = KEPT[name]
    before, after = outcomes["modules"][f"{name}/before"], outcomes["modules"][f"{name}/after"]
    assert after == before.replace("get_ppo_ray_runtime_env()", f"get_ppo_ray_runtime_env({expected})")
    assert outcomes[f"{name}/before"] == ["ok", None]
    assert outcomes[f"{name}/after"] == ["ok", "1"]  # the config reached verl's function
