"""PPO005 callee-takes-no-config: the get_ppo_ray_runtime_env() this call binds to takes no config.

The rule's record (:class:`ppo_migrate.rules.codes.rule.Rule`): its name, texts, example and fix
safety, from which ``docs/rules/PPO005.md`` is generated (``python -m ppo_migrate.rules_doc --write
docs``).
"""

from ppo_migrate.rules.codes.rule import Rule

_FIX_SAFETY = (
    "No fix: a notice that never fails a run. Passing a config to a definition that takes "
    "none raises TypeError at start-up, so the call is left as it is. `ppo-migrate apply "
    "--use-ppo-runtime` imports the function from ppo_runtime instead, after which the call "
    "is a PPO001 with its own fix safety."
)

RULE = Rule(
    "PPO005",
    "callee-takes-no-config",
    "the get_ppo_ray_runtime_env() this call binds to takes no config",
    "Lists a configless call whose callee in effect is a definition without a config "
    "parameter: an in-tree copy of verl (a fork, a `verl/` checkout installed with "
    "`pip install -e`) still defining `def get_ppo_ray_runtime_env():`, or a verl "
    "release before 0.9.0 (0.5.0-0.8.0) that the project pins, that `verl-version` "
    "names or that is installed. Passing a config there raises `TypeError: "
    "get_ppo_ray_runtime_env() takes 0 positional arguments but 1 was given` at "
    "trainer start-up, so the call is left as it is and never fails the run. Which "
    "definition is in effect is decided per call, in this order (the first that "
    "knows decides):\n\n"
    "| source | what is read |\n"
    "| --- | --- |\n"
    "| in-tree definition | the `def` in every copy of the callee's package the calling "
    "file may import, up to the repository root (`verl/`, a `src/` layout, checkouts "
    "`X/verl` and `third_party/`, `vendor/`, `external/` ones, folders launch scripts "
    "put on `PYTHONPATH`, a Bazel rule's `imports`, `.gitmodules` submodules), read "
    "with `ast` through re-exports; a submodule not checked out or a module "
    "`__getattr__` is uncertain; a "
    "`P/verl/` inside a package folder `P/` counts for the calls under `P/` (a file of `P/` "
    "run as a script, `python P/train.py` or `cd P && python -m train`, has `P/` first on "
    "`sys.path`, where `P/verl/` is `verl`) |\n"
    "| `verl-version` | `--verl-version X.Y[.Z]`, else the nearest "
    "`[tool.ppo-migrate] verl-version` |\n"
    "| declared dependency | a lock file's version (`uv.lock`, `poetry.lock`, "
    "`pdm.lock`, `==` in requirements or constraints, a git tag naming a release), "
    "else the lowest version any specifier allows (`[project]` dependencies, extras, "
    "`[dependency-groups]`, hatch environments, `*requirements*.txt` in any folder, "
    "`environment.yml`, `tox.ini`, `Pipfile`/`Pipfile.lock`, `pixi.toml`, `setup.cfg`, "
    "`setup.py`); when pins disagree the lowest decides; a path "
    "reference (`-e ./third_party/verl`, pdm's `-e file:///${PROJECT_ROOT}/third_party/verl` "
    "and `pdm.lock`'s `path`) is read as an in-tree copy |\n"
    "| installed verl | the source (else the version) of the verl installed beside "
    "ppo-migrate |\n"
    "| nothing known | an unsafe fix: declare `verl>=0.9` or pass `--verl-version` |\n\n"
    "A version below 0.9.0 (verl PR #6976's first release) takes no config. An in-tree "
    "copy that takes a config, beside a declared release that takes none (`verl/` at the "
    "root, a `requirements.txt` pinning verl 0.8.0), is no decision for a call outside the "
    "copy: which runs depends on `sys.path` (`python examples/train.py`, "
    "`PYTHONSAFEPATH=1 python main.py`, an image that copies only `main.py`), so the call "
    "is listed here naming both. What "
    "cannot be known is left alone too: a copy binding the function by anything but a "
    "plain `def`, a git commit or URL whose release cannot be read, a definition taking "
    "`config` by keyword only (run with `--keyword`). The "
    "concise output lists these calls only with `--show-notices` and always counts "
    "them in its summary; JSON, SARIF (level note), GitHub (notice) and JUnit always "
    "carry them.\n\n"
    "Nothing fails as the call stands: the definition it binds to sets "
    "CUDA_DEVICE_MAX_CONNECTIONS=1 for every run, as verl did before PR #6976, so "
    "FSDP-style runs keep the serialised streams (lost throughput) and Megatron runs "
    "keep working. Passing a config there would crash the trainer at start-up; the "
    "notice names the definition or pin that decided, so the migration can go on "
    "once that copy or pin moves to verl>=0.9.0.",
    "Update the in-tree copy to verl PR #6976's `get_ppo_ray_runtime_env(config=None)` "
    "or require verl>=0.9.0, then run `ppo-migrate apply` again; or run `ppo-migrate "
    "apply --use-ppo-runtime`, which imports the function from ppo_runtime (which "
    "takes a config) and passes the config in the same run. The definition itself is "
    "never edited.",
    "# file: verl/trainer/constants_ppo.py (a vendored copy, before PR #6976)\n"
    "def get_ppo_ray_runtime_env():\n"
    "    return {}\n\n\n"
    "# file: recipe/main.py\n"
    "import ray\n"
    "from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n\n\n"
    "def run_ppo(config):\n"
    "    ray.init(runtime_env=get_ppo_ray_runtime_env())  # PPO005: left as it is\n",
    availability=(
        "Fix is not available. Informational: never fails a run; concise output "
        "counts it in the summary and lists it with `--show-notices`."
    ),
    fix_safety=_FIX_SAFETY,
)
