"""The rule codes: one module per rule under ``ppo_migrate.rules.codes``."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import ppo_migrate
from ppo_migrate.rules import codes
from ppo_migrate.rules.codes import RULES


def test_each_rule_module_holds_its_own_rule() -> None:
    modules = sorted(
        m.name for m in pkgutil.iter_modules(codes.__path__) if re.fullmatch(r"ppo\d{3}", m.name)
    )
    assert modules == [
        "ppo001", "ppo002", "ppo003", "ppo004", "ppo005", "ppo006",
        "ppo901", "ppo902", "ppo903", "ppo904",
    ]
    for name in modules:
        rule = importlib.import_module(f"ppo_migrate.rules.codes.{name}").RULE
        assert rule.code == name.upper()
        assert RULES[rule.code] is rule
        assert rule.url.endswith(f"/docs/rules/{rule.code}.md")
    assert list(RULES) == [m.upper() for m in modules]


def test_every_code_the_package_emits_has_a_rule() -> None:
    package = Path(ppo_migrate.__file__).parent
    emitted = {
        code
        for path in package.rglob("*.py")
        if "codes" not in path.relative_to(package).parts
        for code in re.findall(r"[\"'](PPO\d{3})[\"']", path.read_text(encoding="utf-8"))
    }
    assert {"PPO001", "PPO002", "PPO005", "PPO902"} <= emitted
    assert emitted <= set(RULES)


def test_generated_page_names_the_rules_module() -> None:
    from ppo_migrate.rules_doc import render_page

    page = render_page(RULES["PPO003"])
    assert "edit migrate/rules/codes/ppo003.py, not this file" in page
    assert page.startswith("# ambiguous-runtime-env-callee (PPO003)")
