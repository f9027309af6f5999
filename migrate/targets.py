"""Does this call refer to the runtime function?

A *target* is the qualified name of the runtime function, e.g.
``verl.trainer.constants_ppo.get_ppo_ray_runtime_env``. A call is a *target call*
when its callee resolves to a target through any import form
(:mod:`ppo_migrate.analysis.targets` finds the names on Python's ``ast``); relative
names (``.module.name``, one leading dot per level) are resolved here against the
package found by walking up the directories that hold ``__init__.py``.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable
from typing import NamedTuple

from ppo_migrate.project.modules import (  # the file -> module direction, kept in project/
    absolute_parent,
    module_name,
    module_names,
    module_package,
    namespace_prefixes,
    package_for_relative_imports,
    resolve_relative,
)


class Verdict(enum.Enum):
    """What a callee is, as far as static analysis can tell."""

    TARGET = "target"  #: every binding resolves to a target
    AMBIGUOUS = "ambiguous"  #: some bindings are a target, others are not (PPO003)
    UNRESOLVABLE = "unresolvable"  #: a relative import past the top package (PPO903)
    OTHER = "other"  #: not the runtime function


@functools.lru_cache(maxsize=32)
def _last_names(targets: frozenset[str]) -> frozenset[str]:
    """:attr:`TargetMatcher.names` of ``targets``, made once (asked twice a file, of targets
    that grow with the project's re-exports)."""
    return frozenset(t.rsplit(".", 1)[-1] for t in targets)


#: ``[targets, matcher]``: the tuple :meth:`TargetMatcher.of` last built a matcher of, and it
_last_matcher: list = []


class TargetMatcher(NamedTuple):
    """Classifies callees by their qualified names.

    Attributes:
        targets: fully qualified names of the runtime function (``a.b.f``).
    """

    targets: frozenset[str]

    @classmethod
    def of(cls, targets: Iterable[str]) -> TargetMatcher:
        """Build a matcher from dotted target names; the last one built is given again for
        the same tuple of names (the settings' targets, asked once a file: hundreds of
        names once the project's re-exports join them)."""
        last = _last_matcher
        if last and last[0] is targets:
            return last[1]
        matcher = cls(frozenset(targets))
        if isinstance(targets, tuple):  # immutable: the same object is the same names
            _last_matcher[:] = [targets, matcher]
        return matcher

    @property
    def names(self) -> frozenset[str]:
        """The targets' last components: the words the byte prefilter looks for."""
        return _last_names(self.targets)

    @property
    def modules(self) -> frozenset[str]:
        """The modules that define or re-export a target."""
        return frozenset(t.rsplit(".", 1)[0] for t in self.targets if "." in t)

    def classify(
        self, qualified_names: Iterable[str], package: tuple[str, ...]
    ) -> tuple[Verdict, tuple[str, ...]]:
        """Classify a callee from its possible qualified names.

        Args:
            qualified_names: the callee's possible qualified names (one per
                reachable binding; relative names start with dots).
            package: the file's package, for relative names.

        Returns:
            ``(verdict, names)`` where ``names`` are the absolute names (sorted),
            or the unresolvable relative ones for :attr:`Verdict.UNRESOLVABLE`.
        """
        resolved: list[str] = []
        unresolvable: list[str] = []
        for q in qualified_names:
            r = resolve_relative(q, package)
            if r is None:
                unresolvable.append(q)
            else:
                resolved.append(r)
        hits = [r for r in resolved if r in self.targets]
        if unresolvable and any(q.rsplit(".", 1)[-1] in self.names for q in unresolvable):
            return Verdict.UNRESOLVABLE, tuple(sorted(unresolvable))
        if not hits:
            return Verdict.OTHER, tuple(sorted(resolved))
        if len(hits) == len(resolved) and not unresolvable:
            return Verdict.TARGET, tuple(sorted(set(resolved)))
        return Verdict.AMBIGUOUS, tuple(sorted(set(resolved) | set(unresolvable)))


__all__ = [
    "TargetMatcher",
    "Verdict",
    "absolute_parent",
    "module_name",
    "module_names",
    "module_package",
    "namespace_prefixes",
    "package_for_relative_imports",
    "resolve_relative",
]
