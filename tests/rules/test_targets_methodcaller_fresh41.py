"""``operator.methodcaller`` forms left by fresh user 41 (issue 26, rows W6 and M7).

W6: ``methodcaller(names.FACTORY)(cp)`` (``from pkg import names``, ``FACTORY =
"get_ppo_ray_runtime_env"`` a string constant of ``pkg/names.py``) was a PPO006 "cannot be
checked" while ``methodcaller(FACTORY)(cp)`` after ``from pkg.names import FACTORY`` was a fixed
PPO001. The attribute is now read by the same rule
(:meth:`ppo_migrate.rules.targets.TargetFinder.constant_of`), with what an attribute read at
run time needs besides: the package binding the module's name otherwise, a ``globals()``
rewrite, a package beside the module, a conditional rebinding and another module's
``names.FACTORY = ...`` leave it unknown (no fix).

M7: ``[methodcaller(FACTORY)(m) for m in (cp,)]``, ``methodcaller(FACTORY)(*[cp])`` and
``methodcaller(FACTORY)(cp)`` with ``FACTORY`` rebound under an ``if`` were silent, and each
calls the function with no config at run time: each is a PPO003 naming the form, never a fix.

Every project is *executed* before and after ``apply`` against a fake verl on the path: 0.9's
``get_ppo_ray_runtime_env(config=None)`` returning the config it gets (the type name shows
whether the config arrived) or 0.8's ``get_ppo_ray_runtime_env()``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import VERL_08, VERL_09, check_findings, project_ran, run_cli, verl_stub, write_tree

PIN_09 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl>=0.9.0"]\n'
PIN_08 = '[project]\nname = "p"\nversion = "0"\ndependencies = ["verl==0.8.0"]\n'
NAMES = 'FACTORY = "get_ppo_ray_runtime_env"\n'
TARGET = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"

TRAIN = '''\
import operator

from omegaconf import OmegaConf
import verl.trainer.constants_ppo as cp
{imports}


def main(config):
    return type({call}).__name__


if __name__ == "__main__":
    print("ran", main(OmegaConf.create({{"trainer": {{"n_gpus_per_node": 1}}}})))
'''

#: (import, the name as the call spells it): each reads ``pkg/names.py``'s ``FACTORY``
SPELLINGS = [
    ("from pkg import names", "names.FACTORY"),
    ("import pkg.names as nm", "nm.FACTORY"),
    ("import pkg.names", "pkg.names.FACTORY"),
    ("from . import names", "names.FACTORY"),
]


def _project(tmp_path: Path, imports: str, call: str, pin: str = PIN_09, files: dict[str, str] | None = None) -> Path:
    tree = {
        "pyproject.toml": pin, "pkg/__init__.py": "", "pkg/names.py": NAMES,
        "pkg/train.py": TRAIN.format(imports=imports, call=call), **(files or {}),
    }
    return write_tree(tmp_path / "p", tree)


def _run(root: Path, site: Path) -> str:
    return project_ran(root, site, cmd=("-m", "pkg.train"))


def _found(root: Path) -> list[tuple]:
    return [(f["location"]["row"], f["location"]["column"], f["code"], f["fix"]["applicability"] if f["fix"] else None)
            for f in check_findings(root)]


@pytest.mark.parametrize(("imports", "name"), SPELLINGS)
def test_a_module_attribute_constant_is_fixed_as_the_imported_name_is(tmp_path: Path, imports: str, name: str) -> None:
    root = _project(tmp_path, imports, f"operator.methodcaller({name})(cp)")
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran NoneType"
    (finding,) = check_findings(root)
    assert (finding["code"], finding["location"]["row"], finding["location"]["column"]) == ("PPO001", 9, 17)
    assert finding["fix"]["applicability"] == "safe"
    assert finding["message"] == (
        f"`operator.methodcaller({name})(cp)` called without the config in scope; pass `config`")
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_text().splitlines()[8] == \
        f"    return type(operator.methodcaller({name}, config)(cp)).__name__"
    assert _run(root, site) == "ran DictConfig"  # the config reached verl's function
    assert check_findings(root) == []


def test_a_module_attribute_constant_with_verl_0_8_is_a_notice_and_left(tmp_path: Path) -> None:
    root = _project(tmp_path, "from pkg import names", "operator.methodcaller(names.FACTORY)(cp)", pin=PIN_08)
    site = verl_stub(tmp_path / "site", VERL_08)
    assert _run(root, site) == "ran NoneType"
    assert _found(root) == [(9, 17, "PPO005", None)]
    before = (root / "pkg/train.py").read_bytes()
    for extra in ((), ("--unsafe-fixes",), ("--thread-config",)):
        proc = run_cli("apply", "--exit-zero", *extra, ".", cwd=root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert (root / "pkg/train.py").read_bytes() == before
    assert _run(root, site) == "ran NoneType"


def test_thread_config_passes_it_inside_methodcaller_of_an_attribute(tmp_path: Path) -> None:
    text = TRAIN.format(imports="from pkg import names", call="launch()").replace(
        "\n\ndef main(config):", "\n\ndef launch():\n    return operator.methodcaller(names.FACTORY)(cp)\n\n\ndef main(config):")
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "pkg/__init__.py": "", "pkg/names.py": NAMES, "pkg/train.py": text,
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran NoneType"
    proc = run_cli("apply", "--thread-config", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (root / "pkg/train.py").read_text().splitlines()
    assert lines[7:9] == ["def launch(config=None):", "    return operator.methodcaller(names.FACTORY, config)(cp)"]
    assert lines[12] == "    return type(launch(config=config)).__name__"
    assert _run(root, site) == "ran DictConfig"


#: (what is added, the findings): each makes ``names.FACTORY`` no certain constant, so
#: nothing is fixed, and ``cp.<FACTORY>()`` is ``cp.__dir__()`` at run time. A ``globals()``
#: rewrite is left unreported, as for the imported name; the module beside the package is
#: never imported (the package's ``FACTORY`` names no target); an attribute the package
#: binds itself stays what it was, a value passed to ``methodcaller`` (PPO006)
UNCERTAIN = {
    "globals": ({"pkg/names.py": NAMES + 'globals().update(FACTORY="__dir__")\n'}, []),
    "package beside": ({"pkg/names/__init__.py": 'FACTORY = "__dir__"\n'}, []),
    "package attribute": (
        {"pkg/__init__.py": 'import types\nnames = types.SimpleNamespace(FACTORY="__dir__")\n'},
        [(9, 39, "PPO006", None)]),
    "package __getattr__": (
        {"pkg/__init__.py": 'import types\n\n\ndef __getattr__(name):\n'
                            '    return types.SimpleNamespace(FACTORY="__dir__")\n'},
        [(9, 39, "PPO006", None)]),
}


@pytest.mark.parametrize("case", sorted(UNCERTAIN))
def test_an_attribute_that_is_no_certain_constant_is_never_fixed(tmp_path: Path, case: str) -> None:
    files, findings = UNCERTAIN[case]
    root = _project(tmp_path, "from pkg import names", "operator.methodcaller(names.FACTORY)(cp)", files=files)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran list"  # ``cp.__dir__()``: never the runtime function
    assert _found(root) == findings
    before = (root / "pkg/train.py").read_bytes()
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_bytes() == before
    assert _run(root, site) == "ran list"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_attribute_another_module_assigns_is_never_a_safe_fix(tmp_path: Path, jobs: str) -> None:
    """``names.FACTORY = "__dir__"`` in ``pkg/other.py``, imported first: the attribute is
    read when the call runs, so it calls ``cp.__dir__()``; a fix (``cp.__dir__(config)``)
    would raise ``TypeError``. The replacement table makes it unsafe, as it does for ``from
    pkg.names import FACTORY``, one process or two; ``apply`` leaves it."""
    root = _project(tmp_path, "import pkg.other\nfrom pkg import names", "operator.methodcaller(names.FACTORY)(cp)",
                    files={"pkg/other.py": "from pkg import names\n\nnames.FACTORY = \"__dir__\"\n"})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran list"
    (finding,) = check_findings(root, "--jobs", jobs)
    assert (finding["code"], finding["location"]["row"], finding["fix"]["applicability"]) == ("PPO001", 10, "unsafe")
    assert finding["message"].endswith("(unsafe fix: pkg/other.py:3 rebinds `FACTORY` at run time to a function "
                                       "that may take no config)")
    before = (root / "pkg/train.py").read_bytes()
    proc = run_cli("apply", "--exit-zero", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_bytes() == before
    assert _run(root, site) == "ran list"


def test_an_attribute_this_module_assigns_is_ppo003(tmp_path: Path) -> None:
    root = _project(tmp_path, 'from pkg import names\n\nnames.FACTORY = "__dir__"',
                    "operator.methodcaller(names.FACTORY)(cp)")
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran list"
    (finding,) = check_findings(root)
    assert (finding["code"], finding["location"]["row"], finding["fix"]) == ("PPO003", 11, None)
    assert finding["message"] == (
        f"`operator.methodcaller(names.FACTORY)(cp)` may be the runtime function ({TARGET}) through "
        "`names.FACTORY`, which may or may not name it: pkg/train.py:7 may assign it another value; "
        "not rewritten")
    before = (root / "pkg/train.py").read_bytes()
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_bytes() == before
    assert _run(root, site) == "ran list"


CONDITIONAL = 'import os\n\nFACTORY = "get_ppo_ray_runtime_env"\nif os.environ.get("ALT_FACTORY"):\n    FACTORY = "__dir__"\n'


@pytest.mark.parametrize(("imports", "name"), [
    ("from pkg.names import FACTORY", "FACTORY"), ("from pkg import names", "names.FACTORY"),
])
def test_a_name_rebound_under_an_if_in_its_module_is_ppo003(tmp_path: Path, imports: str, name: str) -> None:
    root = _project(tmp_path, imports, f"operator.methodcaller({name})(cp)", files={"pkg/names.py": CONDITIONAL})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran NoneType"
    (finding,) = check_findings(root)
    assert (finding["code"], finding["location"]["row"], finding["location"]["column"], finding["fix"]) == \
        ("PPO003", 9, 17, None)
    assert finding["message"] == (
        f"`operator.methodcaller({name})(cp)` may be the runtime function ({TARGET}) through `{name}`, which may "
        'or may not name it: pkg/names.py:3 binds it to `"get_ppo_ray_runtime_env"`, pkg/names.py:5 rebinds it; '
        "not rewritten")
    before = (root / "pkg/train.py").read_bytes()
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_bytes() == before
    assert _run(root, site) == "ran NoneType"


def test_a_name_rebound_under_an_if_in_the_calling_module_is_ppo003(tmp_path: Path) -> None:
    text = TRAIN.format(imports=CONDITIONAL.rstrip("\n"), call="operator.methodcaller(FACTORY)(cp)")
    root = write_tree(tmp_path / "p", {"pyproject.toml": PIN_09, "train.py": text})
    site = verl_stub(tmp_path / "site", VERL_09)
    assert project_ran(root, site) == "ran NoneType"
    assert [(f["location"]["row"], f["code"], f["fix"]) for f in check_findings(root)] == [(13, "PPO003", None)]
    assert "train.py:7 binds it to `\"get_ppo_ray_runtime_env\"`, train.py:9 rebinds it" in \
        check_findings(root)[0]["message"]


M7 = {
    "comprehension": ("[operator.methodcaller(FACTORY)(m) for m in (cp,)][0]",
                      "`m`, a loop variable over `(cp,)`, which the tool does not follow", 9, 18),
    "unpacked": ("operator.methodcaller(FACTORY)(*[cp])",
                 "`*[cp]`, a receiver given unpacked, which the tool does not follow", 9, 17),
    "literal unpacked": ('operator.methodcaller("get_ppo_ray_runtime_env")(*(cp,))',
                         "`*(cp,)`, a receiver given unpacked, which the tool does not follow", 9, 17),
}


@pytest.mark.parametrize("case", sorted(M7))
def test_a_receiver_the_tool_does_not_follow_is_ppo003(tmp_path: Path, case: str) -> None:
    call, why, row, column = M7[case]
    root = _project(tmp_path, "from pkg.names import FACTORY", call)
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran NoneType"  # verl's function, called with no config
    (finding,) = check_findings(root)
    assert (finding["code"], finding["location"]["row"], finding["location"]["column"], finding["fix"]) == \
        ("PPO003", row, column, None)
    spelled = call.removeprefix("[").split(" for ")[0]
    assert finding["message"] == f"`{spelled}` may be the runtime function ({TARGET}) through {why}; not rewritten"
    before = (root / "pkg/train.py").read_bytes()
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_bytes() == before


def test_receivers_that_are_not_verls_module_stay_silent(tmp_path: Path) -> None:
    """A loop over objects of the project, an unpacked list of one, a loop variable over a
    name (not a literal), and a methodcaller given the config: no finding, as before."""
    text = TRAIN.format(imports="from pkg.names import FACTORY", call="run(config)").replace(
        "\n\ndef main(config):", '''

class Obj:
    def get_ppo_ray_runtime_env(self):
        return None



def run(config):
    a = [operator.methodcaller(FACTORY)(m) for m in (Obj(),)]
    b = operator.methodcaller(FACTORY)(*[Obj()])
    c = [operator.methodcaller(FACTORY, config)(m) for m in (cp,)]
    d = operator.methodcaller(FACTORY, config)(*[cp])
    return a, b, c, d


def main(config):''')
    root = write_tree(tmp_path / "p", {
        "pyproject.toml": PIN_09, "pkg/__init__.py": "", "pkg/names.py": NAMES, "pkg/train.py": text,
    })
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran tuple"
    assert check_findings(root) == []


def test_getattr_reads_a_module_attribute_constant_as_methodcaller_does(tmp_path: Path) -> None:
    """``getattr(cp, names.FACTORY)()`` is read as ``getattr(cp, FACTORY)()`` is (trial 26e,
    M3): fixed, and runs with the config after ``apply``; with ``FACTORY`` rebound under an
    ``if`` in ``pkg/names.py`` it is a PPO003 and left."""
    root = _project(tmp_path, "from pkg import names", "getattr(cp, names.FACTORY)()")
    site = verl_stub(tmp_path / "site", VERL_09)
    assert _run(root, site) == "ran NoneType"
    assert _found(root) == [(9, 17, "PPO001", "safe")]
    proc = run_cli("apply", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_text().splitlines()[8] == \
        "    return type(getattr(cp, names.FACTORY)(config)).__name__"
    assert _run(root, site) == "ran DictConfig"

    other = _project(tmp_path / "if", "from pkg import names", "getattr(cp, names.FACTORY)()",
                     files={"pkg/names.py": CONDITIONAL})
    (finding,) = check_findings(other)
    assert (finding["code"], finding["fix"]) == ("PPO003", None)
    assert finding["message"] == (
        f"`getattr(cp, names.FACTORY)()` may be the runtime function ({TARGET}) through `names.FACTORY`, which "
        'may or may not name it: pkg/names.py:3 binds it to `"get_ppo_ray_runtime_env"`, pkg/names.py:5 rebinds '
        "it; not rewritten")
    before = (other / "pkg/train.py").read_bytes()
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=other)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (other / "pkg/train.py").read_bytes() == before
    assert _run(other, site) == "ran NoneType"


@pytest.mark.parametrize(("names", "found"), [
    # rebound by a function of the module under ``global``: the function's name on some
    # paths only (a PPO003, no fix)
    (NAMES + '\n\ndef pick():\n    global FACTORY\n    FACTORY = "__dir__"\n', [(9, 17, "PPO003", None)]),
    # bound twice at the top: the last binding, another name, is in effect (no finding)
    (NAMES + 'FACTORY = "__dir__"\n', []),
])
def test_a_module_attribute_bound_more_than_once_is_never_fixed(tmp_path: Path, names: str, found: list) -> None:
    root = _project(tmp_path, "from pkg import names", "operator.methodcaller(names.FACTORY)(cp)",
                    files={"pkg/names.py": names})
    site = verl_stub(tmp_path / "site", VERL_09)
    ran = "NoneType" if found else "list"
    assert _run(root, site) == f"ran {ran}"
    assert _found(root) == found
    before = (root / "pkg/train.py").read_bytes()
    proc = run_cli("apply", "--exit-zero", "--unsafe-fixes", ".", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "pkg/train.py").read_bytes() == before
    assert _run(root, site) == f"ran {ran}"
