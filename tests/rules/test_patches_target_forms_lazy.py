"""The targets' forms compile a package's ``from <package> import`` pattern only for a
file that needs it (issue 26, benchmark item 9: 58 compiled a run, none searched)."""

from __future__ import annotations

from ppo_migrate.rules import patches


def test_ascii_packages_compile_no_statement_pattern() -> None:
    targets = ("verl.trainer.constants_ppo.get_ppo_ray_runtime_env", "pkg.util.get_ppo_ray_runtime_env")
    data = b"from verl.trainer import constants_ppo\nfrom pkg import util as u\nconstants_ppo.get_ppo_ray_runtime_env()\n"
    names = patches.through_names([data], targets)
    forms = patches._target_forms(targets)
    assert forms.plain_packages is True
    assert forms.from_package == {"verl.trainer": (b"verl.trainer", None), "pkg": (b"pkg", None)}
    assert names.through == {"constants_ppo", "u", "util"}


def test_a_package_one_scan_cannot_tell_compiles_its_pattern_when_a_file_spells_it() -> None:
    targets = ("pkg\u00e9.lib.get_ppo_ray_runtime_env", "verl.trainer.constants_ppo.get_ppo_ray_runtime_env")
    forms = patches._target_forms(targets)
    assert forms.plain_packages is False
    assert forms.from_package["pkg\u00e9"] == ("pkg\u00e9".encode(), None)
    # a file not spelling the package compiles nothing for it
    assert patches.through_names([b"import os\n"], targets).through == set()
    assert forms.from_package["pkg\u00e9"][1] is None
    spelled = "from pkg\u00e9 import lib\nlib.get_ppo_ray_runtime_env()\n".encode()
    names = patches.through_names([spelled], targets)
    assert names.through == {"lib"}
    pattern = forms.from_package["pkg\u00e9"][1]
    assert pattern is not None and pattern.search(spelled) is not None
    assert forms.from_package["verl.trainer"] == (b"verl.trainer", None)  # not spelled: not compiled
    # the pattern kept answers the next file the same way
    assert patches.through_names([b"from pkg\xc3\xa9 import (\n  lib,\n)\n"], targets).through == {"lib"}
    assert patches.through_names([b"from pkg\xc3\xa9.lib import x\n"], targets).through == set()
