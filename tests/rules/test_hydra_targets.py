"""PPO006 for the runtime function named by its qualified name in a string
(:mod:`ppo_migrate.rules.hydra_targets`; issue 26, family 6: trial 26d's Hydra ``_target_``
projects were MISSED). The readers are pure: text in, findings out."""

from __future__ import annotations

from ppo_migrate.edits.noqa import add_yaml_noqa
from ppo_migrate.rules.check import analyse
from ppo_migrate.rules.hydra_targets import (
    loaded_modules,
    same_documents,
    yaml_comment_lines,
    yaml_references,
)
from ppo_migrate.settings_model import Settings

VERL = "verl.trainer.constants_ppo.get_ppo_ray_runtime_env"
TARGETS = (VERL, "mypkg.get_env")


def spans(text: str, targets=TARGETS, enabled=lambda code: True) -> list[tuple[int, int, int, int]]:
    return [
        (d.line, d.column, d.end_line, d.end_column)
        for d in yaml_references(text, "conf/config.yaml", targets, enabled)
    ]


def test_trial_shape_is_found_at_the_value() -> None:
    text = f"ray:\n  runtime_env:\n    _target_: {VERL}\n"
    (d,) = yaml_references(text, "conf/config.yaml", TARGETS)
    assert (d.path, d.code, d.line, d.column, d.end_line, d.end_column) == (
        "conf/config.yaml", "PPO006", 3, 15, 3, 15 + len(VERL),
    )
    assert d.fix is None
    assert d.message.startswith(f"`{VERL}` is named by a Hydra `_target_`")


def test_partial_node_lists_flow_mappings_quotes_and_aliases() -> None:
    text = (
        "make_env:\n"
        f"  _target_: {VERL}\n"  # line 2
        "  _partial_: true\n"
        "envs:\n"
        f"  - {{_target_: '{VERL}', x: 1}}\n"  # line 5, quoted in a flow mapping
        "  - _target_: mypkg.get_env\n"  # line 6, a re-export
        "shared: &env\n"
        f'  _target_: "{VERL}"\n'  # line 8, reached again through the alias below
        "again: *env\n"
    )
    assert spans(text) == [
        (2, 13, 2, 13 + len(VERL)),
        (5, 16, 5, 18 + len(VERL)),  # the quotes belong to the scalar's node
        (6, 15, 6, 28),
        (8, 13, 8, 15 + len(VERL)),
    ]


def test_other_targets_keys_and_documents_are_not_references() -> None:
    text = (
        "a:\n  _target_: verl.trainer.constants_ppo.other_function\n"
        f"b:\n  factory: {VERL}\n"  # not a _target_ key
        f"c:\n  _target_: get_ppo_ray_runtime_env\n"  # not a qualified name of it
        "d: |\n  _target_: " + VERL + "\n"  # text of a block scalar
    )
    assert spans(text) == []


def test_a_file_naming_no_target_is_not_parsed(monkeypatch) -> None:
    import yaml

    def refuse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(yaml, "compose_all", refuse)
    assert spans("model:\n  _target_: torch.nn.Linear\n") == []
    assert spans(f"x: {VERL}\n") == []  # names it, but no _target_ key


def test_broken_yaml_is_skipped_silently() -> None:
    assert spans(f"a: [\n  _target_: {VERL}\n") == []
    assert spans(f"_target_: {VERL}\n\x07\n") == []  # a non-printable character
    assert spans(f"a: b: c\n_target_: {VERL}\n") == []  # a mapping value where none may be


def test_noqa_on_the_line_and_rule_selection() -> None:
    text = (
        f"a:\n  _target_: {VERL}  # noqa: PPO006\n"
        f"b:\n  _target_: {VERL}  # noqa: PPO001\n"
        f"c:\n  _target_: {VERL} # noqa\n"
    )
    assert spans(text) == [(4, 13, 4, 13 + len(VERL))]
    assert spans(text, enabled=lambda code: code != "PPO006") == []


def test_line_endings_and_non_ascii_columns() -> None:
    text = f"é: 1\r\nray:\r  _target_: {VERL}\n"
    assert spans(text) == [(3, 13, 3, 13 + len(VERL))]
    assert spans(f"name: 名前\n_target_: {VERL}\n") == [(2, 11, 2, 11 + len(VERL))]


def test_yaml_comment_lines_finds_comments_and_lines_inside_scalars() -> None:
    text = "a: 1  # one\nb: |\n  # text\nc: 'x # y'  # two\nd: x#y\n"
    ok, comments = yaml_comment_lines(text)
    assert comments == {1: (6, "# one"), 4: (12, "# two")}
    assert ok == {1, 4, 5, 6}


def test_add_yaml_noqa_appends_merges_and_keeps_the_documents() -> None:
    text = f"a:\n  _target_: {VERL}\nb:\n  _target_: {VERL}  # noqa: PPO001\n"
    found = yaml_references(text, "c.yaml", TARGETS)
    new, added, uncovered = add_yaml_noqa(text, found)
    assert (added, uncovered) == (2, ())
    assert new == (
        f"a:\n  _target_: {VERL}  # noqa: PPO006\nb:\n  _target_: {VERL}  # noqa: PPO001, PPO006\n"
    )
    assert same_documents(text, new)
    assert yaml_references(new, "c.yaml", TARGETS) == []


def test_add_yaml_noqa_writes_nothing_unless_the_documents_stay_the_same() -> None:
    text = f"a:\n  _target_: {VERL}\n"
    found = yaml_references(text, "c.yaml", TARGETS)
    assert add_yaml_noqa("a: [\n" + text, found) == ("a: [\n" + text, 0, tuple(found))


def test_loaded_modules_reads_target_values_from_bytes() -> None:
    data = b"x:\n  _target_: mypkg.util.make_env\ny: {'_target_': \"other.f\"}\nz: mypkg.no\n"
    assert loaded_modules(data) == {"mypkg", "mypkg.util", "other"}
    assert loaded_modules(b"a: b\n") == frozenset()


def python(text: str) -> list[tuple[int, int, str]]:
    found = analyse(text, "app.py", Settings())
    return [(d.line, d.column, d.message) for d in found if d.code == "PPO006"]


def test_python_strings_handed_to_hydra_or_an_importer() -> None:
    text = (
        "import pydoc\n"
        "import hydra.utils\n"
        "from hydra.utils import instantiate as make\n"
        f"a = {{'_target_': '{VERL}'}}\n"
        f"b = dict(_target_='{VERL}', x=1)\n"
        f"c = hydra.utils.get_method('{VERL}')\n"
        f"d = make({{'_target_': 'x.y'}}, f='{VERL}')\n"  # a keyword of no meaning to Hydra
        f"e = pydoc.locate('{VERL}')\n"
    )
    assert [(line, column) for line, column, _ in python(text)] == [(4, 18), (5, 19), (6, 28), (8, 18)]
    messages = [m for _, _, m in python(text)]
    assert "(a `_target_` entry)" in messages[0]
    assert "(passed to `hydra.utils.get_method(...)`)" in messages[2]
    assert "(passed to `pydoc.locate(...)`)" in messages[3]


def test_python_patch_strings_and_plain_strings_are_not_references() -> None:
    text = (
        "from unittest import mock\n"
        f"NAME = '{VERL}'\n"
        f"with mock.patch('{VERL}', lambda: {{}}):\n"
        "    pass\n"
        "def test(monkeypatch):\n"
        f"    monkeypatch.setattr('{VERL}', lambda: {{}})\n"
        f"    assert NAME == '{VERL}'\n"
        f"locate = lambda s: s\nlocate('{VERL}')\n"  # a local function, not pydoc's
    )
    assert python(text) == []


def test_python_string_reference_respects_noqa() -> None:
    text = f"cfg = {{'_target_': '{VERL}'}}  # noqa: PPO006\n"
    assert python(text) == []
