"""Fresh user 43, B2: the shell-like lines that put a file in place of verl's module
(:func:`ppo_migrate.project.carriers.module_carriers`) and what a patch changes in it
(:func:`ppo_migrate.project.carriers.patch_changes`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ppo_migrate.project.carriers import module_carriers, patch_changes

MODULE = "verl.trainer.constants_ppo"
PATCH = (
    "--- a/verl/trainer/constants_ppo.py\n+++ b/verl/trainer/constants_ppo.py\n@@ -1,2 +1,2 @@\n"
    "-def get_ppo_ray_runtime_env(config=None):\n++def get_ppo_ray_runtime_env():\n     return {}\n"
    "--- a/verl/other.py\n+++ b/verl/other.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
)


def _carried(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str | None, bool, str]]:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return [
        (os.path.relpath(w.source, root), w.line, w.form, os.path.relpath(w.copied, root) if w.copied else None, w.over, w.kind)
        for w in module_carriers(root, MODULE)
    ]


@pytest.mark.parametrize(
    "files, expected",
    [
        ({"run.sh": 'sudo cp -f fix.py "${SITE}/verl/trainer/constants_ppo.py"\n', "fix.py": ""},
         [("run.sh", 1, "cp", "fix.py", True, "write")]),
        ({"run.sh": "cp hotfix/constants_ppo.py .overlay/verl/trainer/\n", "hotfix/constants_ppo.py": ""},
         [("run.sh", 1, "cp", "hotfix/constants_ppo.py", False, "write")]),
        ({"run.sh": 'cat fix.py > "$SITE/verl/trainer/constants_ppo.py"\n', "fix.py": ""},
         [("run.sh", 1, "a redirection", "fix.py", True, "write")]),
        ({"run.sh": "curl -s -o $SITE/verl/trainer/constants_ppo.py https://example.invalid/x\n"},
         [("run.sh", 1, "curl", None, True, "write")]),
        ({"ci/build.sh": 'perl -pi -e "s/config=None//" $SITE/verl/trainer/constants_ppo.py\n'},
         [("ci/build.sh", 1, "perl -i", None, True, "edit")]),
        ({"Dockerfile": "FROM x\nCOPY --from=build /src/constants_ppo.py /opt/venv/lib/python3.11/site-packages/verl/trainer/constants_ppo.py\n"},
         [("Dockerfile", 2, "COPY", None, True, "write")]),
        ({"Dockerfile": 'FROM x\nCOPY ["fix.py", "/opt/site-packages/verl/trainer/constants_ppo.py"]\n', "fix.py": ""},
         [("Dockerfile", 2, "COPY", "fix.py", True, "write")]),
        ({"Dockerfile": "FROM x\nCOPY overlay/ /usr/lib/python3/site-packages/verl/\n# constants_ppo\n",
          "overlay/trainer/constants_ppo.py": ""},
         [("Dockerfile", 2, "COPY", "overlay/trainer/constants_ppo.py", True, "write")]),
        ({"ci.sh": "for p in patches/*.patch; do git apply --directory=site $p; done\ngit apply patches/*.patch\n",
          "patches/01-env.patch": PATCH, "patches/02-docs.patch": "--- a/README\n+++ b/README\n@@ -1 +1 @@\n-a\n+b\n"},
         [("ci.sh", 2, "git apply", "patches/01-env.patch", True, "patch")]),
        # fresh user 45: an argument vector a Python file runs, a nox session, a recipe of a
        # justfile, PowerShell, a variable holding verl's own folder
        ({"fix.py": 'import os, subprocess\nsubprocess.run(["cp", "hot.py", os.environ["SP"] + "/verl/trainer/constants_ppo.py"])\n',
          "hot.py": ""},
         [("fix.py", 2, "cp", "hot.py", True, "write")]),
        ({"noxfile.py": 'def fix(session):\n    session.run("cp", "hot.py", f"{session.env[\'SP\']}/verl/trainer/constants_ppo.py", external=True)\n',
          "hot.py": ""},
         [("noxfile.py", 2, "cp", "hot.py", True, "write")]),
        ({"tools.py": 'import os\nos.system("cp hot.py $SP/verl/trainer/constants_ppo.py")\n', "hot.py": ""},
         [("tools.py", 2, "cp", "hot.py", True, "write")]),
        ({"justfile": 'fix:\n    cp hot.py {{env_var("SP")}}/verl/trainer/constants_ppo.py\n', "hot.py": ""},
         [("justfile", 2, "cp", "hot.py", True, "write")]),
        ({"fix.ps1": 'Copy-Item -Force hot.py "$env:SP/verl/trainer/constants_ppo.py"\n', "hot.py": ""},
         [("fix.ps1", 1, "Copy-Item", "hot.py", True, "write")]),
        ({"run.sh": "cp hot.py $SITE/trainer/constants_ppo.py\n", "hot.py": ""},
         [("run.sh", 1, "cp", "hot.py", True, "write")]),
        # a backup copied FROM the module, a Python file reading it: nothing put there
        ({"fix.py": 'import subprocess\nsubprocess.run(["cp", "/site/verl/trainer/constants_ppo.py", "backup.py"])\n'}, []),
        # a mention alone, moving the module away, another module's file: nothing put there
        ({"run.sh": 'echo verl/trainer/constants_ppo.py\nmv "$SITE/verl/trainer/constants_ppo.py" /tmp/x\n'
          'cp fix.py "$SITE/verl/trainer/main_ppo.py"\n', "fix.py": ""}, []),
        # an executable script without an extension is read by its ``#!``; a text file is not
        ({"NOTES": "#!/bin/sh\ncp fix.py $SITE/verl/trainer/constants_ppo.py\n", "fix.py": ""}, []),
    ],
)
def test_module_carriers_reads_the_forms(files: dict[str, str], expected: list, tmp_path: Path) -> None:
    assert _carried(tmp_path, files) == expected


def test_patch_changes_reads_hunks_by_their_counts(tmp_path: Path) -> None:
    """An added line starting with ``++`` is no header; the other file's hunk is not the module's."""
    path = tmp_path / "fix.patch"
    path.write_text(PATCH)
    assert [(c.line, c.sign, c.text) for c in patch_changes(str(path), MODULE)] == [
        (4, "-", "def get_ppo_ray_runtime_env(config=None):"), (5, "+", "+def get_ppo_ray_runtime_env():"),
    ]
    assert patch_changes(str(path), "verl.trainer.main_ppo") is None


@pytest.mark.parametrize(
    "files, expected",
    [
        # fresh user 45: carriers the readings do not know name the module's file
        ({"train.sbatch": "#!/bin/bash\n#SBATCH -N 1\ncp hot.py $SP/verl/trainer/constants_ppo.py\n"}, [("train.sbatch", 3)]),
        ({"Jenkinsfile": "pipeline { stages { stage('fix') { steps { sh 'cp hot.py $SP/verl/trainer/constants_ppo.py' } } } }\n"},
         [("Jenkinsfile", 1)]),
        ({"patches/fix.txt": "--- a/verl/trainer/constants_ppo.py\n+++ b/verl/trainer/constants_ppo.py\n"},
         [("patches/fix.txt", 1), ("patches/fix.txt", 2)]),
        ({"docker-compose.yml": "services:\n  t:\n    volumes:\n      - ./hot.py:/site/verl/trainer/constants_ppo.py\n"},
         [("docker-compose.yml", 4)]),
        # harmless: a comment, a reader, a backup copied from the module (a shell line, a CI
        # step, a Dockerfile), documentation, a copy of verl's package itself
        ({"run.sh": "# cp hot.py $SP/verl/trainer/constants_ppo.py\ncat $SP/verl/trainer/constants_ppo.py\n"
          "sed -n 1,5p $SP/verl/trainer/constants_ppo.py\ncp $SP/verl/trainer/constants_ppo.py /tmp/constants_ppo.py.bak\n",
          ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: cp $SP/verl/trainer/constants_ppo.py artifacts/\n",
          "Dockerfile": "FROM x\nRUN cp /site/verl/trainer/constants_ppo.py /backup/\n",
          "README.md": "cp hot.py $SP/verl/trainer/constants_ppo.py\n",
          "third_party/verl/scripts/x.sh": "cp a verl/trainer/constants_ppo.py\n",
          ".github/workflows/t.yml": "on:\n  push:\n    paths:\n      - 'verl/trainer/constants_ppo.py'\n"}, []),
        # an absolute path as data is a mount's (a Kubernetes ``mountPath``): named
        ({"k8s/job.yaml": "volumeMounts:\n  - mountPath: /site/verl/trainer/constants_ppo.py\n    subPath: hot.py\n"},
         [("k8s/job.yaml", 2)]),
    ],
)
def test_module_mentions_names_what_no_reading_explains(files: dict[str, str], expected: list, tmp_path: Path) -> None:
    from ppo_migrate.project.carriers import module_mentions

    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert [(os.path.relpath(m.path, root), m.line) for m in module_mentions(root, MODULE)] == expected
