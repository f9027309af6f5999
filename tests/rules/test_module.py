"""rules/module.py: one parse, code-point positions, PPO902 guards."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ppo_migrate.rules.module import SourceProblem, parse, split_lines
from ppo_migrate.constants import MAX_NESTING, MAX_SOURCE_CHARS


def _call(tree: ast.AST) -> ast.Call:
    return next(n for n in ast.walk(tree) if isinstance(n, ast.Call))


def test_columns_are_code_points_not_utf8_bytes() -> None:
    m = parse("é = 'ü'; f()\n", "m.py")
    call = _call(m.tree)
    assert call.col_offset == 11  # bytes: é and ü are two each
    assert m.start(call) == (1, 10)
    assert m.end(call) == (1, 13)
    assert m.source_of(call) == "f()"


def test_astral_characters_count_one_code_point() -> None:
    m = parse("x = '𝔘'; f(a)\n", "m.py")  # a 4-byte character
    assert m.start(_call(m.tree)) == (1, 10)
    assert m.source_of(_call(m.tree)) == "f(a)"


def test_lines_split_like_pythons_tokenizer_only() -> None:
    text = "a = 1\r\nb = '\x0c\x1c'\rf()\n"
    assert split_lines(text) == ["a = 1", "b = '\x0c\x1c'", "f()", ""]
    m = parse(text, "m.py")
    assert m.start(_call(m.tree)) == (3, 1)


@given(st.text(alphabet="ab \r\n\x0c\x1c\x85\u2028\u2029é", max_size=40))
def test_lines_are_those_of_pythons_own_tokenizer(text: str) -> None:
    """The oracle: the line Python's compiler gives each statement (``\\n``, ``\\r\\n`` and
    ``\\r`` end one; form feeds, U+2028 and the like do not)."""
    source = "".join(f"x{i} = {line!r}" + end for i, (line, end) in enumerate(_pieces(text)))
    lines = split_lines(source)
    statements = ast.parse(source).body
    assert len(lines) == len(statements) + 1  # the last break ends the text
    for i, statement in enumerate(statements):
        assert lines[statement.lineno - 1] == ast.get_source_segment(source, statement)
        assert lines[statement.lineno - 1].startswith(f"x{i} = ")


def _pieces(text: str) -> list[tuple[str, str]]:
    """``text`` cut at its line breaks, each piece with the break that ended it."""
    import re

    parts = re.split(r"(\r\n|\r|\n)", text)
    return [(parts[i], parts[i + 1] if i + 1 < len(parts) else "\n") for i in range(0, len(parts), 2)]


def test_multiline_source_of() -> None:
    m = parse("f(\n  a,\n)\n", "m.py")
    assert m.source_of(_call(m.tree)) == "f(\n  a,\n)"


def test_syntax_error_is_python_message_and_position() -> None:
    with pytest.raises(SourceProblem) as info:
        parse("x = 1\nprint 'x'\n", "m.py")
    assert info.value.message.startswith("syntax error: Missing parentheses in call to 'print'")
    assert (info.value.line, info.value.column) == (2, 1)


def test_too_large() -> None:
    with pytest.raises(SourceProblem) as info:
        parse("#" * (MAX_SOURCE_CHARS + 1), "m.py")
    assert info.value.message == (
        f"cannot parse: too large to parse ({MAX_SOURCE_CHARS + 1} characters; "
        f"the limit is {MAX_SOURCE_CHARS})"
    )
    assert (info.value.line, info.value.column) == (1, 1)


def test_nesting_counts_bool_operands_and_dotted_imports() -> None:
    with pytest.raises(SourceProblem) as info:
        parse("x = a" + " and a" * (MAX_NESTING + 5) + "\n", "m.py")
    assert info.value.message == f"cannot parse: nested too deeply (depth > {MAX_NESTING})"
    with pytest.raises(SourceProblem):
        parse("from " + ".".join(f"m{i}" for i in range(MAX_NESTING + 5)) + " import x\n", "m.py")
    parse("x = a" + " and a" * 100 + "\n", "m.py")  # within the limit


def test_cpython_bracket_limit_reads_nested_too_deeply() -> None:
    with pytest.raises(SourceProblem) as info:
        parse("x = " + "(" * 300 + ")" * 300 + "\n", "m.py")
    assert info.value.message.startswith("cannot parse: nested too deeply (too many nested")
    assert info.value.line == 1


def test_valid_python_libcst_rejects_is_parsed() -> None:
    for text in ("(x): int = 1\n", "def f():\n    \\\n    return 1\n", "def f():\n\x0c  if 1:\n    return 1\n"):
        assert isinstance(parse(text, "m.py").tree, ast.Module)


def test_the_facts_list_every_comprehension_clause() -> None:
    m = parse(
        "xs = [a for a in b if a for c in a]\n"
        "def f():\n    return {k: v for k, v in d}, (g for g in h)\n"
        "class C:\n    s = {self.x for self.x in ()}\n",
        "m.py",
    )
    comprehensions = m.facts.comprehensions
    assert all(isinstance(c, ast.comprehension) for c in comprehensions)
    assert sorted((c.target.lineno, ast.unparse(c.target)) for c in comprehensions) == [
        (1, "a"), (1, "c"), (3, "(k, v)"), (3, "g"), (5, "self.x"),
    ]
    assert parse("x = [1]\n", "m.py").facts.comprehensions == []


_TABLE_SOURCE = (
    "import os, a.b as c\n"
    "x = f(g('inner', h('deep')), 'outer')\n"
    "for o.f in fakes:\n"
    "    with ctx('w') as p.q:\n"
    "        d['k'] += [y for y in z(1)]\n"
    "def run(config: 'C' = 'v'):\n"
    "    from m import n\n"
    "    return globals()['name']\n"
)


def test_the_table_in_walk_order_is_ast_walks_order() -> None:
    from ppo_migrate.rules.module import _TABLE_TYPES, facts_of

    tree = ast.parse(_TABLE_SOURCE)
    problem, facts = facts_of(tree)
    assert problem is None
    expected = [n for n in ast.walk(tree) if isinstance(n, _TABLE_TYPES)]
    assert [id(n) for n in facts.table_in_walk_order()] == [id(n) for n in expected]
    # breadth first: the shallower string constant before the nested ones
    strings = [n.value for n in facts.table_in_walk_order() if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert strings == ["outer", "v", "inner", "C", "name", "deep", "w", "k"]
    assert facts.levels[facts.table.index(expected[0])] == 1  # the first import: the module's child


def test_the_walk_is_made_once_a_tree_and_a_problem_is_copied() -> None:
    from ppo_migrate.rules.module import facts_of

    tree = ast.parse("x = 1\n")
    assert facts_of(tree) is facts_of(tree)
    text = "é = 1; x = a" + " and a" * (MAX_NESTING + 5) + "\n"
    deep = ast.parse(text)
    columns = []
    for _ in range(2):  # the kept answer's byte column is converted for each parse, not in place
        with pytest.raises(SourceProblem) as info:
            parse(text, "m.py", tree_of=lambda: deep)
        columns.append((info.value.line, info.value.column))
    assert columns[0] == columns[1]
    assert facts_of(deep)[0] is not None and facts_of(deep)[0].column == columns[0][1] + 1  # bytes: é is two


@pytest.mark.parametrize("keyword", ["def", "async def", "class"])
def test_ancestors_of_a_node_in_a_decorator_reach_the_decorated_statement(keyword: str) -> None:
    """A decorated ``def``/``class`` starts at its keyword in the tree, its decorators above
    it (trial 26i, I-C1: ``@print(cp.get_...)`` found no enclosing node and ``check`` ended
    with an internal error)."""
    m = parse(f"import cp\n\n\n@print(cp.f)\n@staticmethod\n{keyword} g():\n    pass\n", "m.py")
    attribute = next(n for n in ast.walk(m.tree) if isinstance(n, ast.Attribute))
    chain = m.ancestors(attribute)
    assert [type(n).__name__ for n in chain] == ["Module", type(m.tree.body[1]).__name__, "Call"]
    assert chain[1] is m.tree.body[1] and chain[2] is m.tree.body[1].decorator_list[0]
