"""The evidence the config finder notes while it judges a candidate, and the
:class:`ppo_migrate.diagnostics.Reason` it keeps of it (issues 27 and 28).
"""

from __future__ import annotations

import ast

from ppo_migrate.diagnostics import Reason, Related


class EvidenceNotes:
    """The evidence noted while a candidate is judged and the reason kept of it:
    :meth:`_note` records a piece, :meth:`_conflict` tells evidence for and against
    in one binding, :meth:`_keep_reason` turns a candidate's evidence into its
    :class:`ppo_migrate.diagnostics.Reason`, which :meth:`reason` answers; :meth:`_spelled`
    quotes a node as the evidence does.

    A part of :class:`ppo_migrate.rules.configs.ConfigFinder` (mixed into it, which holds
    the state: ``module``, ``scopes``, ``finder``, ``names``, ``parents``, ``classes``,
    ``follow_values`` and the memo, evidence and origins of the judgement under way);
    it reads nothing of the other parts.
    """

    def reason(self, call: ast.Call, expression: str | None = None) -> Reason | None:
        """Why the value ``expression`` was (or, with ``None``, the first candidate that
        was) taken or rejected at ``call`` (after :meth:`find`): ``"evidence-against"``
        (the value is not a training config: the YAML file and its keys, the CLI option,
        the helper returning a section, the literal), ``"conflicting-evidence"`` (evidence
        for and against, or a config file that cannot be composed), ``"trusted-by-name"``
        (nothing showed what the parameter holds: taken for its name); ``None`` when the
        evidence decided it plainly (a literal with a verl section, a config YAML)."""
        if expression is not None:
            return self._reasons.get((id(call), expression))
        return next((r for (c, _), r in self._reasons.items() if c == id(call)), None)

    def _note(self, trust: str, text: str, where: object = None) -> None:
        """Record a piece of evidence met while judging a candidate: ``trust`` ``"against"``,
        ``"weak"`` (conflicting, or a file that cannot be composed), ``"unread"`` (a maker
        whose content cannot be read: a weak value), ``"strong"`` (for),
        ``"name"`` (a parameter trusted by its name); ``where``: an AST node of this
        module or ``(path, line)``."""
        self._evidence.append((trust, text, where))

    def _related(self, where: object, text: str) -> tuple[Related, ...]:
        if isinstance(where, ast.AST) and hasattr(where, "lineno"):
            line, column = self.module.start(where)
            return (Related(self.module.path, line, column, text),)
        if isinstance(where, tuple) and len(where) == 2:
            return (Related(str(where[0]), int(where[1]), 1, text),)
        return ()

    def _keep_reason(self, call: ast.Call, expression: str, trust: str) -> str:
        """Keep the :class:`Reason` of a candidate just judged ``trust``, from the evidence
        noted (evidence against one binding or caller decides against the name, though
        another shows a training config: that path would pass something else; the reason
        names both); returns ``trust``."""
        evidence = self._evidence
        self._evidence = []
        reason = None
        if trust == "against":
            found = next((e for e in evidence if e[0] == "against"), None)
            text = found[1] if found else f"`{expression}` is not a training config"
            for_ = next((e for e in evidence if e[0] == "strong"), None)
            reason = Reason("evidence-against", text, self._related(found[2], text) if found else ())
            if for_ is not None:
                reason = reason._replace(text=f"{text} (though {for_[1]})")
        elif trust == "weak":
            found = next((e for e in evidence if e[0] == "weak"), None)
            unread = next((e for e in evidence if e[0] == "unread"), None)
            if found is not None:
                reason = Reason("conflicting-evidence", found[1], self._related(found[2], found[1]))
            elif unread is not None:
                # trial 27: a maker whose content cannot be read (``OmegaConf.load(sys.argv[1])``)
                reason = Reason("unknown-value", unread[1], self._related(unread[2], unread[1]))
        elif trust == "strong":
            found = next((e for e in evidence if e[0] == "name"), None)
            if found is not None and not any(e[0] == "strong" for e in evidence):
                reason = Reason("trusted-by-name", found[1], self._related(found[2], found[1]))
        if reason is not None:
            self._reasons[(id(call), expression)] = reason
        return trust

    def _conflict(self, evidence: list[tuple[str, str, object]]) -> bool:
        """Whether ``evidence`` (the pieces one binding's judgement noted) holds both
        evidence against a training config and evidence for one (a verl section, a config
        YAML); if so a ``conflicting-evidence`` piece naming both is noted first."""
        for_ = next((e for e in evidence if e[0] == "strong"), None)
        against = next((e for e in evidence if e[0] == "against"), None)
        if for_ is None or against is None:
            return False
        text = f"evidence conflicts: {against[1]}, but {for_[1]}"
        self._evidence.insert(0, ("weak", text, against[2]))
        return True

    def _spelled(self, node: ast.AST, limit: int = 100) -> str:
        """``node``'s source on one line, cut at ``limit`` characters."""
        text = " ".join(self.module.source_of(node).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."
