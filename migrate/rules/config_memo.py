"""The config finder's memo of its recursive judgements and their cycle guards
(:class:`JudgementMemo`).
"""

from __future__ import annotations

from typing import NamedTuple



class _Frame:
    """One memoised judgement under way (:meth:`ConfigFinder._begin`): what it will be
    kept with if nothing made it depend on more than its arguments and the module."""

    __slots__ = ("start", "deps", "cacheable", "evidence", "noted", "origins", "origins_start", "retargets")

    def __init__(self, start: int, evidence: list, origins: list | None, retargets: int) -> None:
        #: the tick it began at: a guard entered later is its own (:meth:`ConfigFinder._guarded`)
        self.start = start
        #: ``(guard, id) -> in it`` of each cycle guard it read that it did not set itself
        self.deps: dict[tuple[int, int], bool] = {}
        #: ``False``: it touched another finder's state (:meth:`ConfigFinder._base_class`)
        self.cacheable = True
        self.evidence = evidence
        self.noted = len(evidence)
        self.origins = origins
        self.origins_start = len(origins) if origins is not None else 0
        self.retargets = retargets


class _Memo(NamedTuple):
    """A memoised judgement's answer (:meth:`ConfigFinder._recall`): valid wherever each
    guard in ``deps`` holds its id exactly when it did then; ``noted`` and ``origins`` are
    the evidence and origins it recorded, recorded again when it is recalled."""

    anchors: tuple  # the nodes (and scopes) its key names by id, kept alive
    deps: dict[tuple[int, int], bool]
    noted: tuple
    origins: tuple
    result: object


#: how many variants (one per guard state met) of one memo key are kept
_MEMO_VARIANTS = 8


class JudgementMemo:
    """Memoised recursive judgements and the cycle guards that cut them short.

    The recursive judgements (a binding's trust, a name's value, a callee's returns, a
    parameter's callers) are asked of the same nodes again and again: every candidate
    of every call judges its bindings, and each judgement follows names, callers and
    callees into the rest of the module. Their answers depend only on their arguments,
    the module (fixed for the finder's life), whether origins are recorded, and the
    cycle guards (``_visiting``, ``_positive_visiting``, ``_returning``), which cut a
    recursion short with a fixed answer. So an answer is kept with the guards it read
    that it did not set itself -- each with whether the id was in the guard -- and
    reused only where each of those reads would give the same (a memoising abstract
    interpreter's path-sensitive cache); the evidence it noted and the origins it
    recorded are recorded again when it is reused. A judgement that pointed another
    finder's origins elsewhere is not kept (its effect would be lost).

    A judgement uses it as ``known = self._recall(key)``, else ``frame = self._begin()``,
    the work, ``self._end(frame)`` in a ``finally`` and ``self._keep(frame, key, anchors,
    result)``.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it reads nothing of the other parts.
    """

    #: how many times, in the process, one finder pointed another's :attr:`_origins` at
    #: its own (:meth:`_base_class`): a memoised judgement during which this count
    #: changed touched state its memo could not restore, and is not kept (:meth:`_end`)
    _retargets = 0

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _guarded(self, which: int, key: int) -> bool:
        """Whether ``key`` is in cycle guard ``which`` (an index of :attr:`_guards`); the
        read is a dependency of the innermost memoised judgement under way unless that
        judgement entered the guard itself (a guard entered before it began stays until
        it ends: the guards are entered and left in a stack's order)."""
        added = self._guards[which].get(key)
        if self._frames:
            frame = self._frames[-1]
            if added is None or added < frame.start:
                frame.deps[(which, key)] = added is not None
        return added is not None

    def _depend(self, frame: _Frame, deps: dict[tuple[int, int], bool]) -> None:
        """Add an inner judgement's guard reads to ``frame``'s, less those of guards
        ``frame`` entered itself."""
        guards = self._guards
        mine = frame.deps
        start = frame.start
        for dep, present in deps.items():
            if present and guards[dep[0]][dep[1]] > start:
                continue
            mine[dep] = present

    def _recall(self, key: tuple) -> _Memo | None:
        """The kept answer of ``key`` valid with the guards as they are now, its evidence
        and origins recorded again and its guard reads made dependencies of the judgement
        under way; ``None`` when there is none."""
        known = self._memo.get(key)
        if not known:
            return None
        guards = self._guards
        for memo in known:
            if all((dep[1] in guards[dep[0]]) is present for dep, present in memo.deps.items()):
                if memo.noted:
                    self._evidence.extend(memo.noted)
                if memo.origins:
                    self._origins.extend(memo.origins)  # type: ignore[union-attr]
                if self._frames:
                    self._depend(self._frames[-1], memo.deps)
                return memo
        return None

    def _begin(self) -> _Frame:
        """Start a memoised judgement (end it with :meth:`_end`, in a ``finally``)."""
        frame = _Frame(self._tick(), self._evidence, self._origins, JudgementMemo._retargets)
        self._frames.append(frame)
        return frame

    def _end(self, frame: _Frame) -> None:
        """End a memoised judgement: its guard reads become the enclosing one's."""
        self._frames.pop()
        if JudgementMemo._retargets != frame.retargets:
            frame.cacheable = False
        if self._frames:
            outer = self._frames[-1]
            self._depend(outer, frame.deps)
            if not frame.cacheable:
                outer.cacheable = False

    def _keep(self, frame: _Frame, key: tuple, anchors: tuple, result: object) -> None:
        """Keep the answer of a judgement :meth:`_end` ended (not after an exception)."""
        if not frame.cacheable or self._evidence is not frame.evidence or self._origins is not frame.origins:
            return
        known = self._memo.setdefault(key, [])
        if len(known) >= _MEMO_VARIANTS:
            return
        origins = tuple(self._origins[frame.origins_start:]) if self._origins is not None else ()
        known.append(_Memo(anchors, frame.deps, tuple(self._evidence[frame.noted:]), origins, result))
