"""``ppo_migrate.prefilter.builds_name``: a file that spells no target's name but imports
the function's module and reads an attribute by name (``getattr(cp, "get_ppo_ray_" +
"runtime_env")()``) is a candidate; a file of a tree that never names the function is
not, and costs one bounded search (benchmark item 1)."""

from __future__ import annotations

import pytest
from ppo_migrate.prefilter import RECEIVER_HEAD, builds_name, is_candidate, iter_candidates
from ppo_migrate.settings_model import Settings

NAMES = [b"get_ppo_ray_runtime_env"]
RECEIVERS = [b"constants_ppo"]
BUILT = b'from verl.trainer import constants_ppo as cp\n\ncp_env = getattr(cp, "get_ppo_ray_" + "runtime_env")\n'


def test_the_receiver_is_the_function_s_home_module() -> None:
    assert Settings().receiver_words == frozenset({"constants_ppo"})
    assert Settings(targets=("pkg.sub.longer_name.f", "other.g")).receiver_words == frozenset({"longer_name"})
    assert Settings(targets=("f",)).receiver_words == frozenset()


@pytest.mark.parametrize(("data", "expected"), [
    (BUILT, True),
    (BUILT.replace(b"getattr(cp, ", b"vars(cp)[").replace(b'env")\n', b'env"]\n'), True),
    (BUILT.replace(b"getattr(cp, ", b"cp.__dict__[").replace(b'env")\n', b'env"]\n'), True),
    (BUILT.replace(b"getattr", b"attr"), False),  # no read by name
    (BUILT.replace(b"constants_ppo", b"json"), False),  # no receiver
    (b"x = 1\n" * (RECEIVER_HEAD // 6 + 1) + BUILT, False),  # imported past the head
])
def test_a_receiver_and_a_read_by_name_make_a_candidate(data: bytes, expected: bool) -> None:
    assert builds_name(data, RECEIVERS) is expected
    assert is_candidate(data, NAMES, "m.py", receivers=RECEIVERS) is expected
    assert is_candidate(data, NAMES, "m.py") is False  # no receivers given: the name alone


def test_the_scout_passes_the_built_name_file_only(tmp_path) -> None:
    (tmp_path / "built.py").write_bytes(BUILT)
    (tmp_path / "other.py").write_bytes(b"import json\nx = getattr(json, 'dumps')\n")
    (tmp_path / "named.py").write_bytes(b"from verl.trainer.constants_ppo import get_ppo_ray_runtime_env\n")
    paths = sorted(str(p) for p in tmp_path.iterdir())
    found = [p.rsplit("/", 1)[-1] for p, _ in iter_candidates(paths, Settings())]
    assert found == ["built.py", "named.py"]
