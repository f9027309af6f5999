"""Compute-capability probe: lazy, cached, overridable.

verl PR #6976 reads the GPU's compute capability at *import* of
``verl/trainer/constants_ppo.py`` (``_major, _ = get_device_capability()``), which
imports torch and touches CUDA in every process that merely imports the module.
Here the probe runs only when a decision needs it (some component verl builds runs
Megatron, or the GB200 opt-in ``TLLM_DISABLE_NVLS_MNNVL=1`` is set, and the caller gave
no ``device_capability``), and its result is cached for the life of the process.
The probe is single-flight: concurrent first calls from many threads wait for one
probe and share its answer (one probe, one warning).

Whether torch is a ROCm (HIP) build -- verl's ``torch.version.hip is not None`` -- is
read by :func:`torch_hip_version` without importing torch when it is not imported yet.

What the probe reports is the GPU of *this* process (the Ray driver). On a
heterogeneous cluster, or a CPU-only head node, that is not the workers' GPU: pass
``device_capability=(major, minor)`` to decide explicitly.

Public names:

* :data:`CAPABILITY_UNKNOWN` -- the override meaning "do not probe, treat as unknown".
* :class:`CapabilityProbe` -- a capability (or ``None``) plus where it came from.
* :func:`probe_device_capability` -- the cached torch probe.
* :func:`resolve_device_capability` -- an override or, failing that, the probe.
* :func:`parse_capability` -- ``"9.0"`` -> ``(9, 0)``.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Union

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "CAPABILITY_UNKNOWN",
    "CapabilityOverride",
    "CapabilityProbe",
    "parse_capability",
    "probe_device_capability",
    "resolve_device_capability",
    "torch_hip_version",
]

#: Pass as ``device_capability`` to skip the probe and treat the capability as unknown,
#: e.g. on a CPU-only head node whose workers' GPUs you do not want to guess.
CAPABILITY_UNKNOWN: Literal["unknown"] = "unknown"

#: What ``device_capability=`` accepts: ``None`` (probe), ``(major, minor)``, a string
#: such as ``"9.0"`` or ``"10"``, or :data:`CAPABILITY_UNKNOWN`.
CapabilityOverride = Union[Sequence[int], str, None]  # noqa: UP007 (a runtime alias on 3.10)

_CAPABILITY_RE = re.compile(r"^\s*(\d+)(?:\.(\d+))?\s*$")


@dataclass(frozen=True)
class CapabilityProbe:
    """A device capability and where it came from.

    Attributes:
        capability: ``(major, minor)`` as CUDA reports it, e.g. ``(9, 0)`` for Hopper,
            ``(10, 0)`` for Blackwell; ``None`` when unknown.
        source: ``"override"`` (the caller decided), ``"torch.cuda"`` (probed), or
            ``"unknown"`` (no usable answer; see ``detail``).
        detail: one human-readable sentence, e.g. ``"torch.cuda device 0 reports 9.0"``
            or ``"torch.cuda.is_available() is False (no CUDA GPU visible)"``.
    """

    capability: tuple[int, int] | None
    source: Literal["override", "torch.cuda", "unknown"]
    detail: str

    @property
    def known(self) -> bool:
        """Whether :attr:`capability` is known."""
        return self.capability is not None

    def describe(self) -> str:
        """``"9.0"`` for a known capability, ``"unknown"`` otherwise."""
        if self.capability is None:
            return "unknown"
        return f"{self.capability[0]}.{self.capability[1]}"


def parse_capability(text: str) -> tuple[int, int]:
    """Parse a compute capability written as text.

    Args:
        text: ``"MAJOR.MINOR"`` or ``"MAJOR"`` (minor 0), e.g. ``"9.0"`` (Hopper),
            ``"8.6"`` (Ampere), ``"10.0"`` (Blackwell). Surrounding blanks are ignored.

    Returns:
        ``(major, minor)``.

    Raises:
        ValueError: ``text`` is not ``MAJOR`` or ``MAJOR.MINOR`` with decimal digits.
    """
    match = _CAPABILITY_RE.match(text)
    if match is None:
        raise ValueError(
            f"invalid compute capability {text!r}: expected MAJOR.MINOR, e.g. '9.0' (Hopper) "
            "or '10.0' (Blackwell)"
        )
    return int(match.group(1)), int(match.group(2) or 0)


def _validate_pair(value: Sequence[int]) -> tuple[int, int]:
    if isinstance(value, (str, bytes)) or len(value) != 2:
        raise ValueError(f"device_capability must be (major, minor), got {value!r}")
    major, minor = value
    for part in (major, minor):
        if isinstance(part, bool) or not isinstance(part, int) or part < 0:
            raise ValueError(
                f"device_capability must be two non-negative ints (major, minor), got {value!r}"
            )
    return int(major), int(minor)


class _SingleFlight:
    """A zero-argument function computed once per process, even under concurrency.

    The first caller computes while every concurrent caller waits on a lock; all get
    the same object. :meth:`cache_clear` forgets it (the next call computes again).
    """

    def __init__(self, fn: Callable[[], CapabilityProbe]) -> None:
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._lock = threading.Lock()
        self._result: CapabilityProbe | None = None

    def __call__(self) -> CapabilityProbe:
        result = self._result
        if result is not None:
            return result
        with self._lock:
            if self._result is None:
                self._result = self._fn()
            return self._result

    def cache_clear(self) -> None:
        """Forget the cached answer."""
        with self._lock:
            self._result = None


@_SingleFlight
def probe_device_capability() -> CapabilityProbe:
    """Probe this process's GPU compute capability with torch, once per process.

    The order of checks:

    1. torch is not importable -> unknown.
    2. ``torch.version.hip`` is set (a ROCm build) -> unknown: ``torch.cuda`` then
       reports AMD ``gfx`` numbers, which are not CUDA compute capabilities.
    3. ``torch.cuda.is_available()`` is False (CPU-only node, NPU, no visible GPU)
       -> unknown.
    4. otherwise ``torch.cuda.get_device_capability()`` of the current device.

    Any exception from torch is turned into "unknown" with the error in ``detail``:
    a probe must never stop a training launch.

    The result is cached for the process and computed once even when many threads ask
    at the same time (single-flight); call ``probe_device_capability.cache_clear()`` to
    probe again.

    Returns:
        A :class:`CapabilityProbe` with ``source`` ``"torch.cuda"`` or ``"unknown"``.
    """
    try:
        import torch
    except ImportError as exc:
        return CapabilityProbe(None, "unknown", f"torch is not importable ({exc})")
    hip = getattr(getattr(torch, "version", None), "hip", None)
    if hip:
        return CapabilityProbe(
            None,
            "unknown",
            f"ROCm build of torch (torch.version.hip={hip}): no CUDA compute capability",
        )
    try:
        if not torch.cuda.is_available():
            return CapabilityProbe(
                None, "unknown", "torch.cuda.is_available() is False (no CUDA GPU visible)"
            )
        major, minor = torch.cuda.get_device_capability()
    except Exception as exc:  # a broken driver must not stop a launch
        return CapabilityProbe(None, "unknown", f"torch.cuda probe failed: {exc!r}")
    return CapabilityProbe(
        (int(major), int(minor)), "torch.cuda", f"torch.cuda reports {int(major)}.{int(minor)}"
    )


def resolve_device_capability(override: CapabilityOverride = None) -> CapabilityProbe:
    """The capability to decide with: the caller's override, else the probe.

    Args:
        override: ``None`` to probe (:func:`probe_device_capability`);
            ``(major, minor)`` (a tuple or other 2-sequence of ints) to use as is;
            a string ``"MAJOR[.MINOR]"``; or :data:`CAPABILITY_UNKNOWN` to skip the
            probe and treat the capability as unknown.

    Returns:
        A :class:`CapabilityProbe`.

    Raises:
        ValueError: a malformed override (wrong length, negative or non-int parts,
            unparsable string).
        TypeError: an override of another type.
    """
    if override is None:
        return probe_device_capability()
    if isinstance(override, str):
        if override.strip().lower() == CAPABILITY_UNKNOWN:
            return CapabilityProbe(
                None,
                "unknown",
                "not probed, device_capability='unknown' was passed (ppo-migrate env --no-gpu)",
            )
        pair = parse_capability(override)
    elif isinstance(override, Sequence):
        pair = _validate_pair(override)
    else:
        raise TypeError(
            "device_capability must be None, (major, minor), 'MAJOR.MINOR' or 'unknown', "
            f"got {type(override).__name__}"
        )
    return CapabilityProbe(pair, "override", f"device_capability={pair[0]}.{pair[1]} was passed")


def _hip_from_version_file(path: Path) -> str | None:
    """The ``hip`` assignment of torch's generated ``torch/version.py``, without importing it."""
    import ast  # only for this probe: ``import ppo_runtime`` stays light (issue 6, item 4)

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        target = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and target.id == "hip":
            hip = ast.literal_eval(value)
            return None if hip is None else str(hip)
    return None


def torch_hip_version() -> str | None:
    """``torch.version.hip`` -- the HIP version of a ROCm build of torch, else ``None``.

    verl (``constants_ppo.py``, 0.9.x) adds ``RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO=0``
    exactly when ``torch.version.hip is not None``. When torch is already imported its
    ``torch.version.hip`` is read; otherwise the ``hip = ...`` line of the installed
    ``torch/version.py`` (generated by torch's build) is read without importing torch,
    so the check costs no torch import. No torch installed -> ``None``.

    Returns:
        The HIP version string, e.g. ``"6.2.41133"``, or ``None``.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        hip = getattr(getattr(torch, "version", None), "hip", None)
        return None if hip is None else str(hip)
    import importlib.util
    from pathlib import Path

    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        version_file = Path(location) / "version.py"
        if version_file.is_file():
            try:
                return _hip_from_version_file(version_file)
            except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
                break
    try:  # an unusual layout: ask torch itself
        import torch as imported
    except ImportError:
        return None
    hip = getattr(getattr(imported, "version", None), "hip", None)
    return None if hip is None else str(hip)
