"""The ``ppo-migrate`` command line: parsing, printing and exit codes only.

Exit codes follow ruff: 0 nothing found, 1 findings remain (or, with
``apply --diff``, there would be a change), 2 usage or configuration errors and
internal crashes, 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import click

from ppo_migrate import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def _fail(message: str) -> None:
    """Print a one-line error and exit 2."""
    click.echo(f"ppo-migrate: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _codes(values: Sequence[str]) -> tuple[str, ...] | None:
    """Split repeated / comma-separated rule codes (``--select PPO001,PPO002``)."""
    if not values:
        return None
    return tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())


def _common_options(func: Callable) -> Callable:
    options = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=str)),
        click.option(
            "--target",
            "targets",
            multiple=True,
            metavar="QUALNAME",
            help="Qualified name of the runtime function (repeatable); replaces the defaults.",
        ),
        click.option(
            "--extend-target",
            "extend_targets",
            multiple=True,
            metavar="QUALNAME",
            help="Another qualified name of the runtime function (repeatable).",
        ),
        click.option(
            "--config-name",
            "config_names",
            multiple=True,
            metavar="NAME",
            help="A name that holds the training config (repeatable; default: config, cfg).",
        ),
        click.option(
            "--keyword/--positional",
            default=None,
            help="Write get_ppo_ray_runtime_env(config=...) instead of a positional argument.",
        ),
        click.option(
            "--verl-version",
            metavar="X.Y[.Z]",
            default=None,
            help="The verl release the project runs (target version): below 0.9.0 the "
            "runtime function takes no config and its calls are left alone (PPO005). "
            "An in-tree copy of verl still decides first.",
        ),
        click.option(
            "--show-notices",
            is_flag=True,
            help="Also list notices (PPO005, calls whose callee takes no config); "
            "they never fail the run.",
        ),
        click.option("--select", multiple=True, metavar="CODES", help="Rule codes to enable."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Rule codes to disable."),
        click.option(
            "--exclude", multiple=True, metavar="PATTERN", help="Replace the exclude patterns."
        ),
        click.option(
            "--extend-exclude", multiple=True, metavar="PATTERN", help="Add exclude patterns."
        ),
        click.option(
            "--force-exclude/--no-force-exclude",
            default=None,
            help="Apply excludes to paths named on the command line too.",
        ),
        click.option(
            "--respect-gitignore/--no-respect-gitignore",
            default=None,
            help="Skip what .gitignore files ignore (default: on).",
        ),
        click.option(
            "--output-format",
            type=click.Choice(["concise", "json", "github", "sarif", "junit"]),
            default=None,
            help="Output format (default: concise, or output-format in pyproject.toml).",
        ),
        click.option(
            "--jobs",
            "-j",
            type=click.IntRange(min=1),
            default=None,
            help="Worker processes (default: the number of CPUs).",
        ),
        click.option("--no-progress", is_flag=True, help="Never show a progress bar."),
        click.option("--show-files", is_flag=True, help="List the files that would be checked."),
        click.option(
            "--stdin-filename",
            metavar="NAME",
            default=None,
            help="Read standard input as if it were the file NAME (with '-' or no path).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _load(paths: Sequence[str], opts: dict):
    from ppo_migrate.settings import ConfigError, load_settings

    overrides = {
        "targets": tuple(opts["targets"]) or None,
        "extend_targets": tuple(opts["extend_targets"]) or None,
        "config_names": tuple(opts["config_names"]) or None,
        "keyword": opts["keyword"],
        "select": _codes(opts["select"]),
        "ignore": _codes(opts["ignore"]),
        "exclude": tuple(opts["exclude"]) or None,
        "extend_exclude": tuple(opts["extend_exclude"]) or None,
        "force_exclude": opts["force_exclude"],
        "respect_gitignore": opts["respect_gitignore"],
        "output_format": opts["output_format"],
        "verl_version": opts["verl_version"],
        "show_notices": opts["show_notices"] or None,
    }
    try:
        return load_settings(paths or ["."], **overrides)
    except ConfigError as exc:
        _fail(str(exc))


def _discover(paths: Sequence[str], settings) -> list[str]:
    from ppo_migrate.discovery import discover_files

    try:
        return discover_files(paths or ["."], settings)
    except (FileNotFoundError, NotADirectoryError, PermissionError) as exc:
        _fail(str(exc) if str(exc) else f"{exc!r}")
    return []  # unreachable


def _root(settings) -> Path:
    return Path(settings.project_root) if settings.project_root else Path.cwd()


def _exit_on_broken_pipe() -> NoReturn:
    """Standard output's reader went away (``ppo-migrate rule --all | head -1``): exit 1 quietly.

    Python's documented recipe (the ``signal`` module's note on SIGPIPE): point
    standard output at devnull, so that flushing what is still buffered at exit
    cannot raise again, and exit 1 without a message.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests)
        pass
    sys.exit(EXIT_FINDINGS)


def _output_failed(exc: OSError) -> bool:
    """Whether ``exc`` is standard output refusing what was printed (a full disk, a quota,
    an I/O error) rather than a crash: a user's own files are written through
    :func:`ppo_migrate.files.atomic_write`, whose errors are reported file by file."""
    import errno

    return exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF)


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process started without one (``ppo-migrate check src >&-``:
    Python sets ``sys.stdout`` to ``None``). Writing to it fails as writing to a closed
    descriptor does (EBADF): the run ends with "cannot write the output", exit 2, as on a
    full disk, instead of an internal error; a run that prints nothing (``-s``) is fine."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        import errno

        raise OSError(errno.EBADF, "standard output is closed")


def _output_error(exc: OSError) -> NoReturn:
    """One line on standard error and exit 2, as ruff does (``ruff failed``): standard
    output could not take the report; what it held is dropped, never written again."""
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the exit flushes it, harmlessly
    except OSError:
        pass
    click.echo(f"ppo-migrate: error: cannot write the output: {exc.strerror or exc}", err=True)
    sys.exit(EXIT_ERROR)


def _guard(func: Callable) -> Callable:
    """Turn Ctrl-C into exit 130, a closed pipe into a quiet exit 1 and crashes into a
    one-line error with exit 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt:
            click.echo("ppo-migrate: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except (SystemExit, click.exceptions.Exit, click.ClickException):
            raise
        except BrokenPipeError:
            _exit_on_broken_pipe()
        except OSError as exc:
            if not _output_failed(exc):
                click.echo(f"ppo-migrate: internal error: {type(exc).__name__}: {exc}", err=True)
                sys.exit(EXIT_ERROR)
            _output_error(exc)
        except Exception as exc:  # an internal crash is exit 2, never a pass
            click.echo(f"ppo-migrate: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_ERROR)

    return wrapper


def _stdin_paths(paths: tuple[str, ...], opts: dict) -> tuple[str, ...]:
    """Like ruff, ``--stdin-filename NAME`` without a path means standard input (``-``)."""
    if not paths and opts["stdin_filename"]:
        return ("-",)
    return paths


def _stdin(settings, name: str | None, mode):
    from ppo_migrate.runner import process_data

    data = sys.stdin.buffer.read()
    return process_data(name or "-", data, settings, mode)


#: Commands imported only when they are run or listed (``ppo-migrate env`` pulls in
#: json, YAML handling and more: none of it is needed by ``check`` or ``apply``).
_LAZY_COMMANDS = {"env": ("ppo_migrate.envcmd", "env_command")}


class _Group(click.Group):
    """click's group, suggesting the nearest command for a misspelt one, as click
    already does for a misspelt option ("No such option: --exit-zeor Did you mean
    --exit-zero?"), and loading the commands of :data:`_LAZY_COMMANDS` on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, the lazy ones included, sorted (as click sorts them)."""
        return sorted({*super().list_commands(ctx), *_LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str):
        """The command ``cmd_name``; a lazy one is imported and registered now."""
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in _LAZY_COMMANDS:
            module, attribute = _LAZY_COMMANDS[cmd_name]
            try:
                import importlib

                command = getattr(importlib.import_module(module), attribute)
            except ImportError:  # pragma: no cover - during development only
                return None
            self.add_command(command, cmd_name)
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]):
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            name = args[0] if args else ""
            if name and not name.startswith("-") and self.get_command(ctx, name) is None:
                import difflib

                close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
                if close:
                    raise click.UsageError(
                        f"No such command {name!r}. Did you mean {close[0]!r}?", ctx
                    ) from None
            raise


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ppo-migrate")
def cli() -> None:
    """Migrate configless get_ppo_ray_runtime_env() calls (verl PR #6976).

    \b
      ppo-migrate check src/     lint: exit 1 while a configless call remains
      ppo-migrate apply src/     pass the config in scope at every call
      ppo-migrate rule PPO002    a rule's documentation
      ppo-migrate env cfg.yaml   the runtime_env a training config yields
    """


@cli.command()
@_common_options
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--add-noqa", is_flag=True, help="Write '# noqa: CODE' onto each finding.")
@click.option("--list-rules", is_flag=True, help="List the rule codes and exit.")
@click.option(
    "--show-shims", is_flag=True, help="Also list compatibility shims (PPO004; never fail)."
)
@click.option("--fix", is_flag=True, help="Apply the safe fixes (as `ppo-migrate apply`).")
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="With --fix, also make unsafe fixes (a config only possibly bound at the call).",
)
@click.option(
    "--show-fixes",
    is_flag=True,
    help="List per file the findings fixed (with --fix) or fixable (without).",
)
@click.option("--statistics", is_flag=True, help="Count the findings per rule code.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only, no summary.")
@click.option(
    "-s", "--silent", is_flag=True, help="Print nothing; the exit code still tells."
)
@_guard
def check(
    paths: tuple[str, ...],
    exit_zero: bool,
    add_noqa: bool,
    list_rules: bool,
    show_shims: bool,
    fix: bool,
    unsafe_fixes: bool | None,
    show_fixes: bool,
    statistics: bool,
    quiet: bool,
    silent: bool,
    **opts,
) -> None:
    """Report configless calls of the runtime function; exit 1 while one remains."""
    if list_rules:
        _list_rules()
        return
    from ppo_migrate.modes import Mode

    paths = _stdin_paths(paths, opts)
    if fix and add_noqa:
        raise click.UsageError("--fix and --add-noqa cannot be combined")
    if fix and paths == ("-",):
        raise click.UsageError("--fix rewrites files; for standard input use `ppo-migrate apply -`")
    settings = _load(paths, opts)
    if statistics and settings.output_format not in ("concise", "json"):
        raise click.UsageError("--statistics prints text (concise) or json")
    if show_shims:
        settings = dataclasses.replace(settings, show_shims=True)
    if unsafe_fixes is not None:
        settings = dataclasses.replace(settings, unsafe_fixes=unsafe_fixes)
    mode = Mode.ADD_NOQA if add_noqa else Mode.APPLY if fix else Mode.CHECK
    fixed_per_file: list[tuple[str, int]] = []
    if paths == ("-",):
        outcomes = [_stdin(settings, opts["stdin_filename"], Mode.CHECK)]
        diagnostics = [d for o in outcomes for d in o.diagnostics]
        errors = [o.internal_error for o in outcomes if o.internal_error]
    else:
        files, result = _run_files(paths, settings, mode, opts)
        if result is None:
            return
        diagnostics, errors = result.diagnostics, result.internal_errors
        if fix:
            fixed_per_file = [(o.path, o.fixed) for o in result.outcomes if o.written]
        elif show_fixes:
            counts: dict[str, int] = {}
            for d in diagnostics:
                if d.applicable(settings.unsafe_fixes):
                    counts[d.path] = counts.get(d.path, 0) + 1
            fixed_per_file = list(counts.items())
        if not add_noqa and _has_entry_points(diagnostics):
            from ppo_migrate.caller_phase import follow_callers

            diagnostics, _, _ = follow_callers(
                files, diagnostics, settings, apply=False, indexes=result.indexes
            )
        if add_noqa:
            added = sum(o.noqa_added for o in result.outcomes)
            left = sum(1 for d in diagnostics if not d.informational)
            note = (
                f"; {left} finding{'s' if left != 1 else ''} could not be suppressed"
                if left
                else ""
            )
            if not silent:
                click.echo(
                    f"Added {added} noqa directive{'s' if added != 1 else ''}{note}.", err=True
                )
    _report_check(
        settings, diagnostics, fixed_per_file,
        fix=fix, show_fixes=show_fixes, statistics=statistics, quiet=quiet, silent=silent,
    )
    for e in errors:
        click.echo(f"ppo-migrate: {e}", err=True)
    if errors:
        sys.exit(EXIT_ERROR)
    if any(not d.informational for d in diagnostics) and not exit_zero:
        sys.exit(EXIT_FINDINGS)


def _report_check(
    settings, diagnostics, fixed_per_file, *, fix, show_fixes, statistics, quiet, silent
) -> None:
    """Print what ``check`` found, as ruff's ``check`` does with the same options.

    ``-s`` prints nothing; ``--statistics`` replaces the findings by their counts per
    rule; ``-q`` leaves out the summary lines; ``--show-fixes`` lists the fixes per file
    (on stdout in the concise format, else on stderr, so stdout holds the document).
    """
    from ppo_migrate.output import emit
    from ppo_migrate.output.concise_format import emit as emit_concise
    from ppo_migrate.output.summary import write_fixes, write_statistics

    if silent:
        return
    fmt = settings.output_format
    if statistics:
        write_statistics(diagnostics, sys.stdout, fmt, settings.unsafe_fixes)
        return
    fixed = sum(n for _, n in fixed_per_file) if fix else None
    if fmt == "concise":
        if show_fixes:
            write_fixes(fixed_per_file, sys.stdout, applied=fix)
        emit_concise(
            diagnostics,
            sys.stdout,
            root=_root(settings),
            show_notices=settings.show_notices,
            fixed=fixed,
            summary=not quiet,
            unsafe_fixes=settings.unsafe_fixes,
        )
        return
    if show_fixes:
        write_fixes(fixed_per_file, sys.stderr, applied=fix)
    emit(fmt, diagnostics, sys.stdout, root=_root(settings))


def _run_files(paths: Sequence[str], settings, mode, opts: dict, on_outcome=None):
    """Discover and process files; ``(files, None)`` after printing them for --show-files.

    ``check`` of a directory walks and prefilters it in a forked scout process while this
    one analyses (:func:`ppo_migrate.runner.run_scouted`) where it can.
    """
    if on_outcome is None and not opts["show_files"]:
        scouted = _run_scouted(paths or ["."], settings, mode, opts)
        if scouted is not None:
            return scouted
    files = _discover(paths, settings)
    if opts["show_files"]:
        for f in files:
            click.echo(f)
        return files, None
    return files, _run_discovered(files, settings, mode, opts, on_outcome)


def _run_scouted(paths: Sequence[str], settings, mode, opts: dict):
    """``(files, result)`` of :func:`ppo_migrate.runner.run_scouted`; ``None`` where a scout does
    not apply or failed (the caller then runs without one).

    The scout forks before the runner and the analysis modules are imported: this process
    imports them while the scout walks the tree.
    """
    from ppo_migrate import scout as scouting
    from ppo_migrate.modes import Mode, collector_paused

    if mode is not Mode.CHECK or not scouting.applies(opts["jobs"], paths):
        scouting.drop_early()
        return None
    try:  # the one the console script started before importing click, when it is the same
        scout = scouting.take_early(paths, settings) or scouting.start(paths, settings)
    except OSError:
        return None
    try:
        with collector_paused():
            from ppo_migrate.progress import Progress
            from ppo_migrate.runner import ScoutFailed, run_scouted
    except BaseException:
        scout.kill()
        raise
    progress = Progress(sys.stderr, no_progress=opts["no_progress"])
    try:
        files, result = run_scouted(scout, settings, mode, jobs=opts["jobs"], progress=progress)
    except ScoutFailed:
        return None
    except (FileNotFoundError, NotADirectoryError, PermissionError) as exc:
        _fail(str(exc) if str(exc) else f"{exc!r}")
    finally:
        progress.finish()
    if result.interrupted:
        raise KeyboardInterrupt
    return files, result


def _run_discovered(files: Sequence[str], settings, mode, opts: dict, on_outcome=None):
    """Process discovered files with a progress bar; Ctrl-C raises KeyboardInterrupt.

    ``on_outcome(outcome, progress)`` is called as each file finishes (see
    :func:`ppo_migrate.runner.run`); ``progress`` is the bar, to clear before printing.
    """
    from ppo_migrate.progress import Progress
    from ppo_migrate.runner import run

    progress = Progress(sys.stderr, no_progress=opts["no_progress"])
    try:
        result = run(
            files,
            settings,
            mode,
            jobs=opts["jobs"],
            progress=progress,
            on_outcome=(lambda o: on_outcome(o, progress)) if on_outcome else None,
        )
    finally:
        progress.finish()
    if result.interrupted:
        raise KeyboardInterrupt
    return result


def _has_entry_points(diagnostics) -> bool:
    return any(d.code == "PPO002" and d.scope != "<module>" for d in diagnostics)


@cli.command()
@_common_options
@click.option(
    "--diff",
    is_flag=True,
    help="Write nothing; print a unified diff of the rewrite. Concise format: the patch alone "
    "on standard output, findings and summary on standard error; other formats: the diff on "
    "standard error. With --thread-config, one diff of every file it would change.",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option(
    "--thread-config",
    is_flag=True,
    help="Where no config is in scope but every caller has one, add a config "
    "parameter and pass it through (up to --thread-depth levels).",
)
@click.option(
    "--thread-depth",
    type=click.IntRange(min=1, max=20),
    default=3,
    show_default=True,
    help="How many levels of callers --thread-config may change.",
)
@click.option(
    "--use-ppo-runtime",
    is_flag=True,
    help="Also import get_ppo_ray_runtime_env from ppo_runtime instead of verl.",
)
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Also make unsafe fixes: pass a config that is only possibly bound at the call "
    "(default: unsafe-fixes in pyproject.toml, else off).",
)
@_guard
def apply(
    paths: tuple[str, ...],
    diff: bool,
    exit_zero: bool,
    thread_config: bool,
    thread_depth: int,
    use_ppo_runtime: bool,
    unsafe_fixes: bool | None,
    **opts,
) -> None:
    """Pass the config in scope to every configless call; list the calls with none."""
    from ppo_migrate.diagnostics import NOTICE_CODES
    from ppo_migrate.output import emit
    from ppo_migrate.runner import Mode

    paths = _stdin_paths(paths, opts)
    if thread_config and diff and paths == ("-",):
        raise click.UsageError("--thread-config rewrites across files: not for standard input")
    settings = _load(paths, opts)
    if use_ppo_runtime:
        settings = dataclasses.replace(settings, use_ppo_runtime=True)
    if unsafe_fixes is not None:
        settings = dataclasses.replace(settings, unsafe_fixes=unsafe_fixes)
    mode = Mode.DIFF if diff else Mode.APPLY
    concise = settings.output_format == "concise"
    diff_to_stderr = not concise  # stdout holds the JSON/SARIF/... document alone
    # with --diff in concise format stdout holds the patch alone (`apply --diff > fix.patch`):
    # the findings and the summary go to stderr
    report_to_stderr = not concise or diff
    if paths == ("-",):
        outcome = _stdin(settings, opts["stdin_filename"], Mode.DIFF if diff else Mode.FIX_STDOUT)
        outcomes = [outcome]
        if diff and outcome.diff:
            click.echo(outcome.diff, nl=False, err=diff_to_stderr)
        elif not diff and outcome.new_data is not None:
            sys.stdout.buffer.write(outcome.new_data)
            sys.stdout.flush()
        concise = False
    else:

        def rewrote(o, progress) -> None:
            # printed as each file is replaced, so that an interrupted run leaves an
            # exact record of what it wrote (in the order the files were written)
            if o.written and (o.fixed or o.imports):
                what = f"{o.fixed} call{'s' if o.fixed != 1 else ''}"
                if o.imports:
                    what += f", {o.imports} import{'s' if o.imports != 1 else ''}"
                progress.clear()
                click.echo(f"Rewrote {o.path} ({what})", err=not concise)

        def rewrite(files, run_mode):
            """apply's run over ``files``: the outcomes, the findings, the threaded files."""
            result = _run_discovered(
                files, settings, run_mode, opts, on_outcome=None if diff else rewrote
            )
            found = sorted(
                (d for o in result.outcomes for d in o.diagnostics), key=lambda d: d.sort_key()
            )
            found, threaded = _follow_callers(
                files, found, settings, thread_config, thread_depth, report_to_stderr, diff,
                result.indexes,
            )
            return result.outcomes, found, threaded

        files = _discover(paths, settings)
        if opts["show_files"]:
            for f in files:
                click.echo(f)
            return
        if thread_config and diff:
            # every step of the multi-file rewrite, in a scratch copy: one diff of them all
            from ppo_migrate.preview import NotPreviewable, run_in_copy

            try:  # the real apply (Mode.APPLY) on the copies
                (outcomes, diagnostics, threaded), patch = run_in_copy(
                    files, lambda copies: rewrite(copies, Mode.APPLY)
                )
            except NotPreviewable as exc:
                raise click.UsageError(str(exc)) from None
            click.echo(patch, nl=False, err=diff_to_stderr)
        else:
            outcomes, diagnostics, threaded = rewrite(files, mode)
            for o in outcomes:
                if diff and o.diff:
                    click.echo(o.diff, nl=False, err=diff_to_stderr)
    if paths == ("-",):
        diagnostics = sorted((d for o in outcomes for d in o.diagnostics), key=lambda d: d.sort_key())
        threaded = []
    errors = [f"{o.path}: {o.internal_error}" for o in outcomes if o.internal_error]
    fixed = sum(o.fixed for o in outcomes)
    changed = sum(1 for o in outcomes if o.fixed or o.imports)
    if concise:
        from ppo_migrate.output.concise_format import format_line, listed

        for d in listed(diagnostics, show_notices=settings.show_notices):
            click.echo(format_line(d, settings.unsafe_fixes), err=report_to_stderr)
    elif paths != ("-",) or settings.output_format != "concise":
        emit(settings.output_format, diagnostics, sys.stdout, root=_root(settings))
    verb = "Would rewrite" if diff else "Rewrote"
    remaining = sum(1 for d in diagnostics if d.code not in NOTICE_CODES)
    threaded_note = (
        f"; {'would thread' if diff else 'threaded'} the config through "
        f"{len(threaded)} file{'s' if len(threaded) != 1 else ''}"
        if threaded
        else ""
    )
    summary = (
        f"{verb} {fixed} call{'s' if fixed != 1 else ''} in {changed} "
        f"file{'s' if changed != 1 else ''}{threaded_note}; {remaining} "
        f"finding{'s' if remaining != 1 else ''} remain{'s' if remaining == 1 else ''}."
    )
    click.echo(summary, err=report_to_stderr or paths == ("-",))
    if settings.output_format == "concise":  # standard input too: notices are always summed up
        from ppo_migrate.output.concise_format import notice_summary

        for line in notice_summary(diagnostics):
            click.echo(line, err=report_to_stderr or paths == ("-",))
    for e in errors:
        click.echo(f"ppo-migrate: {e}", err=True)
    if errors:
        sys.exit(EXIT_ERROR)
    would_change = diff and (fixed or threaded)
    if (any(not d.informational for d in diagnostics) or would_change) and not exit_zero:
        sys.exit(EXIT_FINDINGS)


def _follow_callers(files, diagnostics, settings, thread_config, depth, to_stderr, diff, indexes=None):
    """Caller hints for PPO002 and, with ``--thread-config``, the threading itself.

    ``indexes`` are the per-file phase's :class:`ppo_migrate.analysis.callers.FileIndex` records by
    path (a record is used only while its file is unchanged on disk).

    Returns:
        ``(diagnostics, threaded)``: the findings (hints added, those of threaded files
        recomputed, write problems included), sorted; the files threaded.
    """
    from ppo_migrate.runner import Mode, run

    if not _has_entry_points(diagnostics):
        return diagnostics, []
    from ppo_migrate.caller_phase import follow_callers

    diagnostics, threaded, problems = follow_callers(
        files, diagnostics, settings, apply=thread_config, depth=depth, indexes=indexes
    )
    if threaded:
        for p in threaded:
            verb = "Would thread" if diff else "Threaded"
            click.echo(f"{verb} the config through {p}", err=to_stderr)
        done = set(threaded)
        refreshed = run(threaded, settings, Mode.CHECK, jobs=1)
        diagnostics = [d for d in diagnostics if d.path not in done] + refreshed.diagnostics
        indexes = {**(indexes or {}), **refreshed.indexes}
        diagnostics, _, _ = follow_callers(
            files, diagnostics, settings, apply=False, depth=depth, threading=True,
            indexes=indexes,
        )
    return sorted([*diagnostics, *problems], key=lambda d: d.sort_key()), threaded


def _list_rules() -> None:
    from ppo_migrate.diagnostics import RULES

    for rule in RULES.values():
        fix = "[*]" if rule.fixable else "   "
        click.echo(f"{rule.code} {fix} {rule.name}: {rule.summary}")


@cli.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@_guard
def rule(code: str | None, show_all: bool) -> None:
    """Print a rule's documentation (or list the rules)."""
    from ppo_migrate.diagnostics import RULES

    if code is None or show_all:
        _list_rules()
        return
    r = RULES.get(code.upper())
    if r is None:
        _fail(f"unknown rule code {code!r}; see `ppo-migrate rule --all`")
    assert r is not None
    what, _, why = r.description.rpartition("\n\n")
    if not what:  # one paragraph: it says what the rule does
        what, why = why, what
    click.echo(f"# {r.name} ({r.code})\n")
    click.echo("Fix is always available.\n" if r.fixable else "Fix is not available.\n")
    click.echo(f"## What it does\n{what}\n")
    if why:
        click.echo(f"## Why is this bad?\n{why}\n")
    click.echo(f"## How to fix\n{r.fix}\n")
    if r.example:
        click.echo(f"## Example\n```python\n{r.example.rstrip()}\n```")


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``ppo-migrate``).

    Standard output is flushed here, not at interpreter exit, so that a reader
    that went away (a closed pipe) is a quiet exit 1 rather than a traceback.
    """
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    _keep_undecodable_names(sys.stdout)
    try:
        try:
            cli.main(args=list(argv) if argv is not None else None, prog_name="ppo-migrate")
        finally:
            _drop_early_scout()
            sys.stdout.flush()
    except BrokenPipeError:
        _exit_on_broken_pipe()
    except OSError as exc:  # the last flush of standard output
        if not _output_failed(exc):
            raise
        _output_error(exc)
    except SystemExit as exc:
        if argv is None:  # the console script or ``python -m``: the process ends here
            _exit_without_teardown(exc)
        raise


def _drop_early_scout() -> None:
    """Kill the scout :func:`ppo_migrate.entry.main` started if the command did not take it."""
    scout = sys.modules.get("ppo_migrate.scout")
    if scout is not None:
        scout.drop_early()


def _keep_undecodable_names(stream) -> None:
    """Print a path that is not valid in the file system's encoding as its own bytes.

    Python decodes such a name with ``surrogateescape`` (``bad\\xff.py`` is
    ``"bad\\udcff.py"``); a standard output with ``strict`` errors (a UTF-8 locale, or
    ``PYTHONIOENCODING=utf-8``) then raised on the first finding in that file and the run
    ended as an internal error, its other findings unprinted (a tester's file name with a
    ``\\xff`` byte). ``surrogateescape`` writes the name's bytes back as they are on disk.
    """
    if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="surrogateescape")
        except (OSError, ValueError):  # a stream already written to in another encoding
            pass


def _exit_without_teardown(exc: SystemExit) -> None:
    """End the process at once with ``exc``'s status when nothing is left to do at exit.

    Python's own exit frees every object of every module one by one, ~10 ms after a
    ``check`` (issue 13, item 6); ``os._exit`` skips it. Only when it skips nothing else:
    no ``atexit`` handler is registered (``weakref.finalize``, ``multiprocessing`` and
    ``logging`` register one) and no other thread runs. Standard output and error are
    flushed first. Not under a tracer or profiler (a debugger, coverage, ``python -m cProfile
    -m ppo_migrate``: they report at exit). Otherwise (or when the flush fails) this returns
    and ``exc`` is raised as usual.
    """
    import atexit

    handlers = getattr(atexit, "_ncallbacks", None)  # CPython's count; elsewhere: exit as usual
    threading = sys.modules.get("threading")
    if handlers is None or handlers() or (threading and threading.active_count() > 1):
        return
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return  # under a debugger, coverage or a profiler (``python -m cProfile -m ...``)
    code = exc.code
    if code is not None and not isinstance(code, int):
        return  # a message to print: Python's own exit prints it
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code or 0)
