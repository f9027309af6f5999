"""``apply --thread-config``'s structural edits with LibCST, driven by the caller plan.

:func:`ppo_migrate.rules.callers.plan` (the analysis core, Python's ``ast``) decides which
functions get a config parameter, which calls of them pass what, and where each of
them is; :func:`thread` makes those edits with LibCST (a keyword parameter appended as
the file's own layout allows, ``config=<expr>`` at each caller, the config passed at
the runtime call), the only part of the caller phase that needs LibCST. LibCST
resolves no name here: the plan's positions (the ``def`` line, a call's line and
column in code points) pick the nodes to edit, and a file whose bytes are no longer
the ones the plan was made from is not edited (PPO904).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ppo_migrate.rules.callers import Plan, _stamp, module_name
from ppo_migrate.rules.check import analyse
from ppo_migrate.rules.module import parsed_source
from ppo_migrate.diagnostics import UNSURE_CALLEE_KINDS, Diagnostic
from ppo_migrate.edits.cst_calls import (
    UnparsableSource,
    configless_kind,
    parse_module,
    rewrite_call,
)
from ppo_migrate.files import FileChanged, atomic_write, encode_source, read_source
from ppo_migrate.project.snapshot import current
from ppo_migrate.settings_model import Settings


def _parse(path: str):
    """The file as the run's snapshot holds it (read once a run) and its LibCST module (parsed
    once, guarded: deep nesting would crash LibCST's native parser)."""
    source = current().source(path)
    text, encoding, bom = source.decoded()
    return source, text, encoding, bom, source.cst(parse_module)


def _nodes(tree: cst.Module) -> tuple[dict[int, cst.FunctionDef], dict[tuple[int, int], cst.Call]]:
    """The module's ``def`` statements by the line of their ``def`` (``async``) keyword,
    and its calls by 1-based line and column (code points), as the core reports them."""
    positions = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)
    defs: dict[int, cst.FunctionDef] = {}
    calls: dict[tuple[int, int], cst.Call] = {}
    for node, where in positions.items():
        if isinstance(node, cst.FunctionDef):
            defs[where.start.line] = node
        elif isinstance(node, cst.Call):
            calls[(where.start.line, where.start.column + 1)] = node
    return defs, calls


def _same_name(written: str, name: str) -> bool:
    """Whether an identifier as LibCST keeps it (as written) is ``name`` as the core has
    it (``ast.parse`` NFKC-normalises identifiers: ``µ_env`` is ``μ_env``)."""
    return written == name or unicodedata.normalize("NFKC", written) == name


def _ends_in(func: cst.BaseExpression, name: str) -> bool:
    """Whether a call's callee expression ends in ``name`` (``f``, ``x.f``, ``X(c).f``)."""
    if isinstance(func, cst.Name):
        return _same_name(func.value, name)
    return isinstance(func, cst.Attribute) and _same_name(func.attr.value, name)


def _append_item(items: Sequence, new_item, *, opening_ws):
    """Append a parameter/argument keeping a trailing-comma, one-per-line layout."""
    if not items:
        return (new_item,)
    last = items[-1]
    comma = last.comma
    if isinstance(comma, cst.Comma) and "\n" in cst.Module(body=()).code_for_node(comma):
        if len(items) >= 2 and isinstance(items[-2].comma, cst.Comma):
            between = items[-2].comma
        else:
            between = cst.Comma(whitespace_after=opening_ws)
        return (*items[:-1], last.with_changes(comma=between), new_item.with_changes(comma=comma))
    space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if isinstance(comma, cst.Comma):  # ``(a, b,)``: ``(a, b, new,)``, the trailing comma kept
        return (*items[:-1], last.with_changes(comma=space), new_item.with_changes(comma=comma))
    # no comma after the last item: what followed it (``c=3\n    )``) follows the new one
    field = "whitespace_after_param" if isinstance(last, cst.Param) else "whitespace_after_arg"
    trailing = getattr(last, field, None)
    if trailing is not None and _code(trailing):
        return (
            *items[:-1],
            last.with_changes(comma=space, **{field: cst.SimpleWhitespace("")}),
            new_item.with_changes(**{field: trailing}),
        )
    return (*items[:-1], last.with_changes(comma=space), new_item)


def _code(whitespace) -> str:
    """The text of a whitespace node (``""`` for none)."""
    return cst.Module(body=()).code_for_node(whitespace) if isinstance(whitespace, cst.CSTNode) else ""


class _ThreadTransformer(cst.CSTTransformer):
    def __init__(self, params: dict[cst.FunctionDef, str], runtime: dict[cst.Call, str], callers: dict[cst.Call, tuple[str, str]], keyword: bool) -> None:
        super().__init__()
        self.params = params
        self.runtime = runtime
        self.callers = callers
        self.keyword = keyword

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        name = self.params.get(original_node)
        if name is None:
            return updated_node
        p = updated_node.params
        new = cst.Param(
            cst.Name(name),
            default=cst.Name("None"),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
        ws = updated_node.whitespace_before_params
        if isinstance(p.star_arg, (cst.Param, cst.ParamStar)):
            if p.kwonly_params:
                p = p.with_changes(kwonly_params=_append_item(p.kwonly_params, new, opening_ws=ws))
            else:
                p = p.with_changes(kwonly_params=(new,))
        else:
            p = p.with_changes(params=_append_item(p.params, new, opening_ws=ws))
        return updated_node.with_changes(params=p)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node in self.runtime:
            kind = configless_kind(original_node) or "empty"
            return rewrite_call(updated_node, kind, self.runtime[original_node], keyword=self.keyword)
        if original_node in self.callers:
            name, expr = self.callers[original_node]
            if any(a.keyword is not None and a.keyword.value == name for a in updated_node.args):
                return updated_node  # never a duplicate keyword (plan refuses such calls)
            arg = cst.Arg(
                cst.parse_expression(expr),
                keyword=cst.Name(name),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
            )
            return updated_node.with_changes(
                args=_append_item(updated_node.args, arg, opening_ws=updated_node.whitespace_before_args)
            )
        return updated_node


_CHANGED = "not rewritten: the file changed after it was analysed (run again)"


class _Stale(Exception):
    """The file's bytes are not the ones the plan's positions belong to."""


def _prepare(path: str, the_plan: Plan, settings: Settings):
    """``(source, new_text, encoding, bom, needs)`` for one file of the plan, ``None`` when
    it needs no edit; ``needs`` holds the paths of the functions this file passes a new
    ``config=`` into (they must be written first).

    Raises:
        _Stale: the file changed since the plan read it.
        UnparsableSource, OSError, UnicodeDecodeError: as reading and parsing do.
    """
    functions = the_plan.index.functions
    record = the_plan.index.records.get(path)
    if record is None or record.stamp is None or _stamp(path) != record.stamp:
        raise _Stale
    if not _edits_in(path, the_plan):
        return None  # LibCST parses only a file that gets a structural edit
    source, text, encoding, bom, tree = _parse(path)
    defs, calls = _nodes(tree)
    params: dict[cst.FunctionDef, str] = {}
    runtime: dict[cst.Call, str] = {}
    callers: dict[cst.Call, tuple[str, str]] = {}
    needs: set[str] = set()
    for fq in sorted(the_plan.threadable):
        info = functions[fq]
        if info.path != path:
            continue
        node = defs.get(info.line)
        if node is None or not _same_name(node.name.value, fq.rsplit(".", 1)[-1]):
            raise _Stale
        params[node] = info.param
    for callee in sorted(the_plan.threadable):
        for site in the_plan.index.sites.get(callee, ()):
            if site.path != path:
                continue
            call = calls.get((site.line, site.column))
            if call is None or not _ends_in(call.func, callee.rsplit(".", 1)[-1]):
                raise _Stale
            param = functions[callee].param
            if site.config is not None:
                callers[call] = (param, site.config)
            elif site.caller in the_plan.threadable:
                callers[call] = (param, functions[site.caller].param)
            else:
                continue
            needs.add(functions[callee].path)
    if params:
        mod = module_name(path)
        for d in analyse(text, path, settings, module=parsed_source(source, path)):  # the run's parse
            fq = f"{mod}.{d.scope}"
            if (
                d.code == "PPO002"
                and fq in the_plan.threadable
                and (d.line, d.column) in calls
                and (d.reason is None or d.reason.kind not in UNSURE_CALLEE_KINDS)
            ):
                runtime[calls[(d.line, d.column)]] = functions[fq].param
    if not (params or runtime or callers):
        return None
    printed = tree.code
    if not text.startswith(printed):  # LibCST would change bytes beyond the edits
        raise UnparsableSource("LibCST does not reproduce this file byte for byte")
    new_text = tree.visit(_ThreadTransformer(params, runtime, callers, settings.keyword)).code
    new_text += text[len(printed):]  # a tail LibCST drops (a final CR) is kept
    if new_text == text:
        return None
    return source, new_text, encoding, bom, needs - {path}


def _edits_in(path: str, the_plan: Plan) -> bool:
    """Whether the plan may edit ``path``: a threadable function defined there, or a call
    there of one that passes a config (the caller's, or its own new parameter)."""
    functions = the_plan.index.functions
    for fq in the_plan.threadable:
        if functions[fq].path == path:
            return True
        for site in the_plan.index.sites.get(fq, ()):
            if site.path == path and (site.config is not None or site.caller in the_plan.threadable):
                return True
    return False


def _roll_back(written: list[tuple[str, bytes, bytes]], fail) -> None:
    """Put back the original bytes of the files this change already wrote (newest first);
    a file changed since it was written is left as it is and reported."""
    snapshot = current()
    for path, original, data in reversed(written):
        try:
            if snapshot.staging:  # a preview: the overlay gets the bytes back
                snapshot.overlay(path, original)
            else:
                now = read_source(Path(path))  # the disk as it is now, not the snapshot's
                if now.data != data:
                    raise FileChanged(f"{path} changed after it was rewritten")
                atomic_write(Path(path), original, expected=now)
                snapshot.written(path, original)
        except (FileChanged, OSError) as exc:
            fail(path, "PPO901", f"rewritten, then could not be restored ({exc}): check it")
        else:
            fail(path, "PPO904", "not rewritten: restored, another file of the same --thread-config change could not be written")


def thread(the_plan: Plan, settings: Settings) -> tuple[list[str], list[Diagnostic]]:
    """Rewrite the files of a plan: add parameters, pass them on, pass configs at callers.

    The edits of one plan span files and are made together or not at all: a call passing
    ``config=`` is only valid once the callee's file has its new parameter, and a
    parameter whose callers were not changed would hide the PPO002 for good. Every file
    is prepared first; if any cannot be (changed since the plan, not reproducible by
    LibCST, unreadable), nothing is written. Files are then written callee files first;
    if a write fails, the files already written get their original bytes back.

    Args:
        the_plan: from :func:`plan`; only ``threadable`` functions are changed. Its
            positions (``def`` lines, call lines and columns) pick the nodes to edit.
        settings: the run's settings (``keyword``, ``unsafe_fixes``).

    Returns:
        ``(changed_paths, problems)``: the files written, and PPO904 (changed since
        analysed, or depending on a file not rewritten), PPO902 (LibCST cannot
        reproduce it) or PPO901 (cannot read or write it) diagnostics.
    """
    if not the_plan.threadable:
        return [], []
    files: dict[str, None] = {}
    for fq in sorted(the_plan.threadable):
        files[the_plan.index.functions[fq].path] = None
        for s in the_plan.index.sites.get(fq, ()):
            files[s.path] = None
    problems: list[Diagnostic] = []
    prepared: dict[str, tuple] = {}
    failed: set[str] = set()

    def fail(path: str, code: str, message: str) -> None:
        problems.append(Diagnostic(path, 1, 1, 1, 1, code, message))
        failed.add(path)

    for path in sorted(files):
        try:
            found = _prepare(path, the_plan, settings)
        except _Stale:
            fail(path, "PPO904", _CHANGED)
        except UnparsableSource as exc:
            fail(path, "PPO902", f"cannot rewrite exactly: {exc}")
        except (OSError, UnicodeDecodeError) as exc:
            fail(path, "PPO901", f"cannot read: {getattr(exc, 'strerror', None) or exc}")
        else:
            if found is not None:
                prepared[path] = found
    if failed:  # the change spans files: none of it is written
        for path in sorted(prepared):
            fail(path, "PPO904", f"not rewritten: the --thread-config change spans files and {sorted(failed)[0]} could not be rewritten")
        return [], problems
    # callee files first (a new parameter with a default is harmless alone), so that a run
    # stopped between two writes never leaves a call passing ``config=`` to a function
    # without that parameter (within a cycle of files, the paths' order)
    written: list[tuple[str, bytes, bytes]] = []
    done: set[str] = set()
    try:
        while prepared:
            ready = sorted(p for p, v in prepared.items() if v[4] <= done) or sorted(prepared)[:1]
            for path in ready:
                source, new_text, encoding, bom, _ = prepared.pop(path)
                data = encode_source(new_text, encoding, bom)
                try:
                    snapshot = current()
                    if snapshot.staging:  # a preview: into the overlay, nothing written
                        snapshot.overlay(path, data)
                    else:
                        atomic_write(Path(path), data, expected=source)
                        snapshot.written(path, data)  # the run's phases after read these bytes
                except (FileChanged, OSError) as exc:
                    code = "PPO904" if isinstance(exc, FileChanged) else "PPO901"
                    text = f"not rewritten: {exc}" if code == "PPO904" else f"cannot write: {exc.strerror or exc}"
                    fail(path, code, text)
                    _roll_back(written, fail)
                    for rest in sorted(prepared):
                        fail(rest, "PPO904", f"not rewritten: the --thread-config change spans files and {path} could not be rewritten")
                    return [], problems
                written.append((path, source.data, data))
                done.add(path)
    except BaseException:  # Ctrl-C, a kill turned into an exception: never half a change
        _roll_back(written, fail)
        raise
    changed = [path for path, _, _ in written]
    return sorted(changed), problems


__all__ = ["thread"]
