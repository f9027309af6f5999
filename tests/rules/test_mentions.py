"""Issue 26, trial 26b: what counts as a mention of an old verl in a file whose format the
tool does not read (:mod:`ppo_migrate.rules.mentions`), and which files are searched
(:mod:`ppo_migrate.project.mentions`)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from ppo_migrate.rules.mentions import (
    excludes_config_releases,
    notebook_mentions,
    python_mentions,
    text_mentions,
    unread_mentions,
)
from ppo_migrate.project.mentions import candidate_texts, mention_kind, names_verl
from ppo_migrate.project.snapshot import run_scope

#: text -> the mention written, as found (a line of a ``*.yaml``/``*.sh``/``.def`` file)
OLD = {
    "pip install verl==0.8.0": "verl==0.8.0",
    "  - verl<0.9": "verl<0.9",
    "verl~=0.8.0": "verl~=0.8.0",
    "dependencies = [\"verl==0.7.*\"]": "verl==0.7.*",
    "VERL==0.8.0": "VERL==0.8.0",
    "pip install 'verl[vllm] >= 0.7, < 0.9'": "verl[vllm] >= 0.7, < 0.9",
    "verl>0.8.0,<0.9": "verl>0.8.0,<0.9",  # 0.8.1 may be published: allowed, and no 0.9
    "pip install verl<0.9.0rc1": "verl<0.9.0rc1",
    "echo ok && pip install verl==0.8.0.": "verl==0.8.0",  # a sentence's full stop is no part of it
    'verl = "0.8.0"': 'verl = "0.8.0"',
    'verl = "^0.8"': 'verl = "^0.8"',  # Poetry's caret: >=0.8,<0.9
    "verl: '==0.8'": "verl: '==0.8'",
    '"verl": "0.8.0",': '"verl": "0.8.0"',
    "conda install verl=0.8.0": "verl=0.8.0",
    "poetry add verl@0.8.0": "verl@0.8.0",
    '["verl", "==0.8"]': '"verl", "==0.8"',
    'verl = { version = "0.8" }': 'verl = { version = "0.8" }',
    "- pypi: https://host/packages/verl-0.8.0-py3-none-any.whl": "verl-0.8.0-py3-none-any.whl",
    "url: https://host/verl-0.7.1.tar.gz": "verl-0.7.1.tar.gz",
    "pip install git+https://github.com/org/verl.git@v0.8.0": "verl.git@v0.8.0",
    "pip install verl==0.8.0  # the cluster's": "verl==0.8.0",  # the comment comes after it
    # trial 26f (B7): HPC environments named after a release
    "module load cuda/12.4 verl/0.8.0": "verl/0.8.0",
    "spack load py-verl@0.8.0": "py-verl@0.8.0",
    "source /shared/envs/verl-0.8.0/bin/activate": "verl-0.8.0",
    "apptainer exec --nv /shared/images/verl-0.8.0.sif python train.py": "verl-0.8.0",
    "srun --container-image=/shared/sqsh/verl_0.8.0.sqsh python train.py": "verl_0.8.0",
    "conda activate verl0.8": "verl0.8",
}

#: text -> why it is no mention of an old verl
NOT_OLD = {
    "verl>=0.9": "allows 0.9",
    "verl!=0.9.0": "allows 0.9.1",
    "verl~=0.8": "~=0.8 is >=0.8,==0.*: allows 0.9",
    "verl<=0.9.0": "allows 0.9.0",
    "verl==0.9.*": "0.9",
    "verl<0.5,>0.9": "allows nothing: no release is mentioned",
    'verl = "^0.9"': "0.9",
    "verl-0.9.1-py3-none-any.whl": "0.9.1",
    "verl-recipe==0.1": "another package",
    "verl_tools==0.1": "another package",
    "myverl==0.8": "another package",
    "my-verl==0.8": "another package",
    "VERL_VERSION=0.8.0": "a variable, not the package",
    "verl 0.8.0": "no operator: prose",
    "verl @ git+https://host/verl": "a reference whose release cannot be read",
    "pip install git+https://github.com/org/verl.git@v0.8.0-backport": "a branch, not a release tag",
    "# pip install verl==0.8.0": "a comment installs nothing",
    "RUN pip install ray  # was verl==0.8.0": "a comment after a command",
    "conda activate verl-0.9.1": "0.9.1",
    "source /envs/verl-recipe-0.8.0/bin/activate": "another package",
    "module load myverl/0.8.0": "another package",
    "python verl/trainer/main_ppo.py": "a path without a release",
}


def test_an_environment_name_is_a_mention_in_a_script_not_in_a_python_string() -> None:
    """Trial 26f: ``conda activate verl-0.8.0`` in a job script is one; a Python string
    naming a folder ``verl-0.8.0`` (a benchmark's checkout of that release) is not."""
    assert text_mentions("source /envs/verl-0.8.0/bin/activate\n", "text") == [(1, "verl-0.8.0")]
    assert text_mentions("/envs/verl-0.8.0", "plain") == []
    assert python_mentions(ast.parse('wheels = root / "verl-0.8.0"\n')) == []


@pytest.mark.parametrize("text", sorted(OLD))
def test_an_old_verl_is_a_mention(text: str) -> None:
    assert text_mentions("first line\n" + text + "\n", "text") == [(2, OLD[text])]


@pytest.mark.parametrize("text", sorted(NOT_OLD))
def test_what_is_no_mention_of_an_old_verl(text: str) -> None:
    assert text_mentions(text + "\n", "text") == [], NOT_OLD[text]


def test_json_has_no_comments_and_a_hash_is_text() -> None:
    """In JSON a ``#`` starts no comment: ``"#"`` then the pin still counts."""
    text = '{"note": "# x", "pip": ["verl==0.8.0"]}'
    assert text_mentions(text, "json") == [(1, "verl==0.8.0")]
    assert text_mentions("x # " + text, "text") == []


def test_a_requirements_file_counts_whole_requirement_lines_only() -> None:
    """A ``*.txt`` the pin readers do not read (``NOTES.txt``, ``deps/gpu.txt``): a line that
    is one requirement on verl counts, prose naming the same pin does not."""
    text = "Since verl==0.8.0 the API changed.\nray>=2\nverl==0.8.0  # cluster\n# verl==0.7.0\nverl>=0.9\n"
    assert text_mentions(text, "requirements") == [(3, "verl==0.8.0")]


@pytest.mark.parametrize(("text", "line"), [
    ("package:\n- name: verl\n  version: 0.8.0\n  manager: pip\n", 2),  # conda-lock.yml
    ('[[package]]\nname = "verl"\nversion = "0.8.0"\n', 2),  # a TOML lock
    ('[{"name": "verl",\n  "version": "0.7.1"}]\n', 1),  # a JSON lock
])
def test_a_lock_entry_names_its_version_on_a_later_line(text: str, line: int) -> None:
    (found,) = text_mentions(text, "json" if text.startswith("[{") else "text")
    assert found[0] == line and found[1].endswith("(a lock entry)"), found


def test_a_lock_entry_of_a_new_verl_or_another_package_is_none() -> None:
    assert text_mentions("- name: verl\n  version: 0.9.1\n", "text") == []
    assert text_mentions("- name: verl\n- name: ray\n  version: 0.8.0\n", "text") == []


def test_several_mentions_each_at_its_line() -> None:
    text = "a\n- verl==0.8.0\nb\n  verl-0.8.0-py3-none-any.whl and verl<0.9\n"
    assert text_mentions(text, "text") == [
        (2, "verl==0.8.0"), (4, "verl-0.8.0-py3-none-any.whl"), (4, "verl<0.9")]


@pytest.mark.parametrize(("spec", "old"), [
    ("==0.8.0", True), ("<0.9", True), ("~=0.8.0", True), ("==0.7.*", True), ("<0.9.0", True),
    (">=0.7.1,<0.9.0", True), ("===0.8.0", True), (">0.8.0,<0.9", True),
    (">=0.9", False), ("~=0.8", False), ("!=0.9.0", False), ("<1.0", False), ("", False),
    ("<0.5,>0.9", False), (">0.9.5", False), ("==0.9.1", False), ("<0.9.1", False),
])
def test_old_is_no_release_from_0_9_allowed(spec: str, old: bool) -> None:
    assert excludes_config_releases(SpecifierSet(spec)) is old


PYTHON = '''"""Install the cluster's environment: verl==0.7.0 in a docstring is prose."""
import subprocess
import sys


def setup(c):
    """verl==0.7.0: prose too."""
    c.run("pip install --force-reinstall verl==0.8.0")  # verl==0.7.1 in a comment
    subprocess.check_call([sys.executable, "-m", "pip", "install",
                           "verl", "==0.8"])
    pins = {"verl": "0.8.0", "ray": "2.40"}
    text = """ray
verl<0.9
"""
    subprocess.run(["pip", "install", "verl>=0.9"])
    raise SystemExit("since verl==0.8.0 the call takes no config: run pip with verl>=0.9")
    sys.path.insert(0, "vendor/verl-0.7.1.zip")
    Path("req.txt").write_text("ray\\nverl==0.7.1\\n")
'''


def test_python_strings_count_docstrings_comments_and_prose_do_not() -> None:
    assert python_mentions(ast.parse(PYTHON)) == [
        (8, "verl==0.8.0"),
        (10, "'verl', '==0.8'"),  # two elements in a row: at the name's line
        (11, "'verl': '0.8.0'"),
        (13, "verl<0.9"),  # a line of a multi-line string at its own line
        # line 16's message is prose; one token and a whole requirement line are code
        (17, "verl-0.7.1.zip"),
        (18, "verl==0.7.1"),
    ]


#: a notebook converted to a script (``jupyter nbconvert --to script``): its magics are calls
NBCONVERT = """#!/usr/bin/env python
# coding: utf-8

# In[1]:


get_ipython().run_line_magic('pip', 'install verl==0.8.0')
get_ipython().system('pip install -q verl<0.9 omegaconf')
# !pip install verl==0.7.1
get_ipython().run_line_magic('conda', 'install -y verl=0.7.1')
print("pip", "is how we installed things")
"""


def test_a_converted_notebook_s_magics_are_installs_its_comments_are_not() -> None:
    """Trial 26d (``d2_nbconvert_pip_magic``): ``%pip install verl==0.8.0`` becomes a call
    whose two strings spell the command; ``!pip`` becomes ``system('pip install ...')``. A
    ``# !pip`` comment runs nothing."""
    assert python_mentions(ast.parse(NBCONVERT)) == [(7, "verl==0.8.0"), (8, "verl<0.9"), (10, "verl=0.7.1")]


def test_a_notebook_s_code_cells_count_its_prose_and_outputs_do_not() -> None:
    notebook = json.dumps({
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["Made for verl==0.8.0 once.\n"]},
            {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": [
                "%pip install verl==0.8.0\n", "# !pip install verl==0.7.1\n", "import verl\n"],
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["verl==0.6.0\n"]}]},
            {"cell_type": "code", "metadata": {}, "execution_count": 2, "source": "x = 1\n!pip install -q 'verl<0.9' ray",
             "outputs": []},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }, indent=1, ensure_ascii=False)
    lines = notebook.split("\n")
    assert notebook_mentions(notebook) == [
        (lines.index('    "%pip install verl==0.8.0\\n",') + 1, "verl==0.8.0"),
        (next(i for i, line in enumerate(lines) if "verl<0.9" in line) + 1, "verl<0.9"),
    ]
    assert notebook_mentions('{"cells": [') == []  # the head of a larger one, searched as JSON text


# -- which files are searched ---------------------------------------------------------------------


@pytest.mark.parametrize(("name", "parts", "kind"), [
    ("hatch.toml", (), "text"),
    ("pixi.lock", (), "text"),
    ("conda-lock.yml", (), "text"),
    ("verl.def", (), "text"),
    ("Singularity", (), "text"),
    ("sky.yaml", (), "text"),
    ("runtime_env.json", ("ci",), "json"),
    ("rayjob.yaml", ("k8s",), "text"),
    ("submit.sh", (), "text"),
    ("Dockerfile.gpu", (), "text"),
    ("tasks.py", (), "python"),
    ("setup_env.py", ("scripts",), "python"),
    ("gpu.txt", ("deps",), "requirements"),
    ("bootstrap", ("bin",), "text"),
    # trial 26d: every other file is text, whatever its name
    ("Earthfile", (), "text"),
    ("Vagrantfile", (), "text"),
    ("main.tf", ("infra",), "text"),
    ("shell.nix", (), "text"),
    ("requirements.txt.j2", ("ansible", "roles", "trainer", "templates"), "text"),
    ("all.yml", ("ansible", "group_vars"), "text"),
    ("Dockerfile.in", ("docker",), "text"),  # a template, not a pip-compile input
    ("Jenkinsfile", (), "text"),
    ("setup.ps1", ("scripts",), "text"),
    ("ppo.sbatch", ("jobs",), "text"),
    ("train.slurm", ("jobs",), "text"),
    ("demo.ipynb", (), "notebook"),
    # read in whole by the pin readers: their handling stays
    ("pyproject.toml", (), None),
    ("requirements-dev.txt", (), None),
    ("gpu.txt", ("requirements",), None),
    ("gpu.in", ("requirements",), None),
    ("environment-gpu.yml", (), None),
    ("pixi.toml", (), None),
    ("uv.lock", (), None),
    ("setup.py", (), None),
    ("tox.ini", (), None),
    # documentation, and the tests' Python files
    ("CHANGELOG.md", (), None),
    ("index.rst", ("docs",), None),
    ("README", (), None),
    ("LICENSE.txt", (), None),
    ("guide.adoc", ("docs",), None),
    ("index.HTML", ("site",), None),
    # data that installs nothing
    ("logo.png", (), None),
    ("model.safetensors", ("ckpt",), None),
    ("train.log", ("runs",), None),
    ("verl-0.8.0-py3-none-any.whl", ("wheels",), None),
    # compiled sources and stubs: never run to build an environment
    ("ops.cuh", ("csrc",), None),
    ("bindings.cpp", ("csrc",), None),
    ("constants_ppo.pyi", ("verl", "trainer"), None),
    ("test_env.py", (), None),
    ("conftest.py", (), None),
    ("helpers.py", ("tests",), None),
    ("LICENSE.html", (), None),
])
def test_which_files_are_searched(name: str, parts: tuple[str, ...], kind: str | None) -> None:
    assert mention_kind(name, parts) == kind


@pytest.mark.parametrize(("data", "names"), [
    (b"pip install verl==0.8.0", True),
    (b"verl", True),
    (b"x/verl-0.8.0.whl", True),
    (b"from typing import overload\n@overload\ndef f(): ...\n" * 50, False),  # the letters, not the name
    (b"myverl==0.8 my_verl", False),
    (b"VERL==0.8.0", False),  # the name as pip's files write it: lower case
])
def test_the_byte_search_finds_the_name_not_the_letters(data: bytes, names: bool) -> None:
    assert names_verl(data) is names


def _repo(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_repository_s_mentions_are_collected_once_a_run(tmp_path: Path) -> None:
    """The walk hands on only the searched files holding ``verl``; the mentions are kept for
    the run: asked twice, each file is read once (the snapshot's counts)."""
    root = _repo(tmp_path / "proj", {
        "ci/runtime_env.yaml": "pip:\n  - ray\n  - verl==0.8.0\n",
        "bin/bootstrap": "#!/bin/sh\npip install verl==0.7.1\n",
        "bin/notes": "pip install verl==0.7.1\n",  # no shebang: text all the same (trial 26d)
        "bin/README": "pip install verl==0.7.1\n",  # documentation by its name
        "data/blob": "\0\1verl==0.7.1\n",  # binary: a NUL in its bytes
        "tasks.py": "def setup(c):\n    c.run('pip install verl<0.9')\n",
        "tests/test_pins.py": "PIN = 'verl==0.8.0'\n",
        "CHANGELOG.md": "since verl==0.8.0\n",
        "requirements.txt": "verl==0.8.0\n",  # read by the pin readers
        "node_modules/x/env.yaml": "- verl==0.8.0\n",  # not walked
        "other.yaml": "- ray\n",  # no verl: not handed on
    })
    kinds = {Path(p).relative_to(root).as_posix(): k for p, k, _ in candidate_texts(root)}
    assert kinds == {"ci/runtime_env.yaml": "text", "bin/bootstrap": "text", "bin/notes": "text", "tasks.py": "python"}
    with run_scope() as snapshot:
        first = unread_mentions(root)
        assert unread_mentions(root) is first
        assert snapshot.counts_of(root / "ci/runtime_env.yaml").reads == 1
    shown = [(Path(m.path).relative_to(root).as_posix(), m.line, m.written) for m in first]
    assert sorted(shown) == [
        ("bin/bootstrap", 2, "verl==0.7.1"),
        ("bin/notes", 1, "verl==0.7.1"),
        ("ci/runtime_env.yaml", 3, "verl==0.8.0"),
        ("tasks.py", 2, "verl<0.9"),
    ]


def test_the_search_reads_no_file_the_import_roots_search_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One pass: after :func:`declared_roots` (which reads every Python file, script and
    YAML file of the walk in the same run), the search for mentions asks again only for the
    files that name verl (``setup_env.py``), and reads the files only it searches
    (``hatch.toml``) once; the snapshot counts one read of each."""
    from ppo_migrate.project import mentions as collect
    from ppo_migrate.project.import_roots import declared_roots

    asked: list[str] = []
    read = collect._read
    monkeypatch.setattr(collect, "_read", lambda path: asked.append(Path(path).name) or read(path))

    root = _repo(tmp_path / "proj", {
        "train.py": "from typing import overload\n",  # the letters, not the name
        "setup_env.py": "import subprocess\nsubprocess.run(['pip', 'install', 'verl==0.8.0'])\n",
        "ci/env.yaml": "pip:\n  - ray\n",
        "hatch.toml": '[envs.default]\ndependencies = ["verl<0.9"]\n',
    })
    with run_scope() as snapshot:
        declared_roots(root)
        found = unread_mentions(root)
        reads = {name: snapshot.counts_of(root / name).reads for name in ("train.py", "setup_env.py", "ci/env.yaml", "hatch.toml")}
        parses = {name: snapshot.counts_of(root / name).ast_parses for name in ("train.py", "setup_env.py")}
    assert sorted(asked) == ["hatch.toml", "setup_env.py"]
    assert reads == {"train.py": 1, "setup_env.py": 1, "ci/env.yaml": 1, "hatch.toml": 1}
    assert parses == {"train.py": 0, "setup_env.py": 1}  # only a file naming verl is parsed
    assert [(Path(m.path).name, m.line, m.written) for m in found] == [
        ("hatch.toml", 2, "verl<0.9"), ("setup_env.py", 2, "verl==0.8.0")]


def test_a_python_file_is_parsed_only_when_it_spells_a_version_of_verl(tmp_path: Path) -> None:
    """Naming verl (an import) is not enough to parse a file for mentions, and a module over
    the parse limit is searched as text: the bad-input tree's 30 MB ``huge.py``, which imports
    verl, once took ~10 GB of memory to parse here (the analysis itself refuses it, PPO902)."""
    from ppo_migrate.constants import MAX_SOURCE_CHARS

    big = "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n"
    big += "subprocess.run(['pip', 'install', 'verl==0.8.0'])  # searched as text\n"
    big += "x = 1\n" * (MAX_SOURCE_CHARS // 6 + 1)
    root = _repo(tmp_path / "proj", {
        "train.py": "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n",
        "huge.py": big,
        "setup_env.py": "import subprocess\nsubprocess.run(['pip', 'install', 'verl==0.7.1'])\n",
    })
    with run_scope() as snapshot:
        found = unread_mentions(root)
        parses = {n: snapshot.counts_of(root / n).ast_parses for n in ("train.py", "huge.py", "setup_env.py")}
    assert parses == {"train.py": 0, "huge.py": 0, "setup_env.py": 1}
    assert sorted((Path(m.path).name, m.line, m.written) for m in found) == [
        ("huge.py", 2, "verl==0.8.0"), ("setup_env.py", 2, "verl==0.7.1")]


@pytest.mark.parametrize("text", [
    "PIN = 'verl==0.8.0'", "f'verl=={v}'", "'git+https://x/verl.git@v0.8.0'", "{'verl': '^0.8'}",
    "('verl', '==0.8')", "'vendor/verl-0.8.0.zip'", "'verl[vllm]<0.9'",
])
def test_the_parse_prefilter_lets_every_form_through(text: str) -> None:
    """Each form the Python search finds passes the cheap test that decides the parse
    (a file failing it is never parsed); a plain import does not."""
    from ppo_migrate.rules.mentions import _MAY_PIN

    assert _MAY_PIN.search(text) is not None
    assert _MAY_PIN.search("from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\nimport verl\n") is None
