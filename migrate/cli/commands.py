"""What ``check`` does, and the steps ``apply`` shares with it, without click.

:mod:`ppo_migrate.cli.app` parses the command line with click and calls these. A plain
``ppo-migrate check [PATH ...]`` (no option but ``--no-progress`` and ``--exit-zero``: what
CI and pre-commit hooks run) is recognised by the console script before click is imported
(:func:`plain_check`) and runs :func:`check` with the same settings and options click would
give it (tested: the options click parses for such a command line equal
:func:`plain_options`). Importing click and the CLI is a tenth of such a run (issue 13,
item 6).
"""

import os
import sys

from ppo_migrate.cli import console
from ppo_migrate.project.root import display_root

#: The flags a plain ``check`` may hold among its paths (:func:`plain_check`): each takes no
#: value and only sets its :class:`CheckOptions` field, as click's flag does (CI's
#: ``check --no-progress src``; ``--exit-zero`` for a report that must not fail the job).
PLAIN_FLAGS = {"--exit-zero": "exit_zero", "--no-progress": "no_progress"}

#: The environment variable that asks click for shell completion instead of a run
#: (click's ``_{PROG_NAME}_COMPLETE``): such a command line is always click's.
COMPLETION_ENV = "_PPO_MIGRATE_COMPLETE"


class CheckOptions:
    """``check``'s options besides those of the settings, each named as its click parameter.

    Args:
        exit_zero: ``--exit-zero``. add_noqa: ``--add-noqa``. fix: ``--fix``.
        show_fixes: ``--show-fixes``. statistics: ``--statistics``. quiet: ``-q``.
        silent: ``-s``. jobs: ``--jobs`` (``None``: the CPUs of the affinity mask).
        no_progress: ``--no-progress``. show_files: ``--show-files``.
        stdin_filename: ``--stdin-filename``.

    The defaults are click's for a command line that names none of them.
    """

    __slots__ = (
        "add_noqa",
        "exit_zero",
        "fix",
        "jobs",
        "no_progress",
        "quiet",
        "show_files",
        "show_fixes",
        "silent",
        "statistics",
        "stdin_filename",
    )

    def __init__(
        self,
        *,
        exit_zero: bool = False,
        add_noqa: bool = False,
        fix: bool = False,
        show_fixes: bool = False,
        statistics: bool = False,
        quiet: bool = False,
        silent: bool = False,
        jobs: int | None = None,
        no_progress: bool = False,
        show_files: bool = False,
        stdin_filename: str | None = None,
    ) -> None:
        self.exit_zero = exit_zero
        self.add_noqa = add_noqa
        self.fix = fix
        self.show_fixes = show_fixes
        self.statistics = statistics
        self.quiet = quiet
        self.silent = silent
        self.jobs = jobs
        self.no_progress = no_progress
        self.show_files = show_files
        self.stdin_filename = stdin_filename

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CheckOptions):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"CheckOptions({fields})"


def plain_check(argv: list[str]) -> tuple[str, ...] | None:
    """The paths of a plain ``check`` command line, ``None`` for any other.

    Plain: ``check`` followed by paths and :data:`PLAIN_FLAGS` only, no path starting with
    ``-`` (so no other option, no ``--``, no ``-`` for standard input), each either absent or
    readable (click's ``click.Path`` rejects a path that exists but cannot be read, with its
    usage error), outside Windows (where click expands wildcards in the arguments) and not a
    shell-completion request (:data:`COMPLETION_ENV`). click parses such a command line into
    exactly these paths, the flags' options (:func:`plain_options`) and the default of every
    other option.

    Args:
        argv: the command line after the program's name (``sys.argv[1:]``).

    Returns:
        The paths, in order (the flags left out); ``None`` for a command line that is not plain.
    """
    if not argv or argv[0] != "check" or sys.platform == "win32":
        return None
    paths = [arg for arg in argv[1:] if arg not in PLAIN_FLAGS]
    if any(arg.startswith("-") for arg in paths) or COMPLETION_ENV in os.environ:
        return None
    for path in paths:  # as click.Path(readable=True) checks: an existing path is readable
        try:
            os.stat(path)
        except (OSError, ValueError):
            continue
        if not os.access(path, os.R_OK):
            return None
    return tuple(paths)


def plain_options(argv: list[str]) -> CheckOptions:
    """The :class:`CheckOptions` click gives a plain ``check`` command line
    (:func:`plain_check`): the defaults, with each :data:`PLAIN_FLAGS` flag it holds set.

    Args:
        argv: the command line after the program's name (``sys.argv[1:]``).
    """
    return CheckOptions(**{PLAIN_FLAGS[arg]: True for arg in argv[1:] if arg in PLAIN_FLAGS})


def run_plain_check(paths: tuple[str, ...], options: CheckOptions | None = None) -> None:
    """``ppo-migrate check PATH ...`` without click: the settings for ``paths`` alone and
    ``options`` (:func:`plain_options`; ``None``: the defaults), what
    :func:`ppo_migrate.cli.app.check` does with the same command line.

    Raises:
        SystemExit: the command's exit code (as :func:`check`).
    """
    console.guard(_plain_check)(paths, options or CheckOptions())


def _plain_check(paths: tuple[str, ...], options: CheckOptions) -> None:
    from ppo_migrate.project.snapshot import run_scope

    with run_scope():  # one snapshot of the project's files for the whole command (issue 26)
        check(paths, load(paths, {}), options)


def load(paths, overrides: dict):
    """The run's settings: :func:`ppo_migrate.cli.settings.load_settings` for ``paths`` (``"."``
    when none) with the command line's ``overrides`` (keyword arguments, ``None`` for not
    given); a :class:`ppo_migrate.settings_model.ConfigError` is a one-line error, exit 2."""
    from ppo_migrate.cli.settings import load_settings
    from ppo_migrate.settings_model import ConfigError

    try:
        return load_settings(list(paths) or ["."], **overrides)
    except ConfigError as exc:
        console.fail(str(exc))


def discover(paths, settings) -> list[str]:
    """The files to analyse under ``paths`` (:func:`ppo_migrate.project.discovery.discover_files`;
    a named file of entry points replaced by the packaging files naming it: fresh41, M3);
    a path that does not exist or cannot be read is a one-line error, exit 2."""
    from ppo_migrate.cli.scout import entry_point_holders
    from ppo_migrate.project.discovery import discover_files

    try:
        return discover_files(list(paths) or ["."], settings, holders=entry_point_holders)
    except (FileNotFoundError, NotADirectoryError, PermissionError) as exc:
        console.fail(str(exc) if str(exc) else f"{exc!r}")
    return []  # unreachable


def stdin(settings, name: str | None, mode, keep: dict[str, str] | None = None):
    """The outcome of standard input's bytes analysed as the file ``name`` (``-``).

    ``keep``: when given, the decoded text is stored there under the display name (the
    ``full`` format's frames come from it: the file named by ``--stdin-filename`` on disk
    may differ, and standard input cannot be read twice). A ``name`` of a configuration
    file that is never Python (:func:`ppo_migrate.project.discovery.is_config_file`:
    ``ep.cfg``, ``tox.ini``) gives no finding, its bytes echoed unchanged by ``apply -``."""
    from ppo_migrate.cli.runner import process_data

    if sys.stdin is None:  # started without one (``<&-``)
        console.fail("cannot read standard input: it is closed")
    data = sys.stdin.buffer.read()
    from ppo_migrate.project.discovery import is_config_file

    if name and is_config_file(name):
        # ``--stdin-filename ep.cfg``: a configuration file that is never Python is skipped,
        # as it is when named on the command line, not parsed as Python (fresh41, W8)
        from ppo_migrate.cli.runner import FileOutcome

        return FileOutcome(name, False, (), new_data=data)
    if keep is not None:
        from ppo_migrate.files import decode_source

        try:
            keep[name or "-"] = decode_source(data)[0]
        except (ValueError, UnicodeDecodeError, SyntaxError):
            pass  # reported by the analysis (PPO901); no frame
    return process_data(name or "-", data, settings, mode)


def has_entry_points(diagnostics) -> bool:
    """Whether a PPO002 lies inside a function: its callers may be followed (hints)."""
    return any(d.code == "PPO002" and d.scope != "<module>" for d in diagnostics)


def check(paths: tuple[str, ...], settings, options: CheckOptions) -> None:
    """Report configless calls of the runtime function; exit 1 while one remains.

    Args:
        paths: the command line's paths (``("-",)``: standard input).
        settings: the run's :class:`ppo_migrate.settings_model.Settings`, the command line's
            overrides applied.
        options: the other options.

    Raises:
        SystemExit: 1 when findings remain (unless ``exit_zero``), 2 on internal errors.
    """
    from ppo_migrate.cli.modes import Mode

    mode = Mode.ADD_NOQA if options.add_noqa else Mode.APPLY if options.fix else Mode.CHECK
    fixed_per_file: list[tuple[str, int]] = []
    sources: dict[str, str] = {}
    if paths == ("-",):
        outcomes = [stdin(settings, options.stdin_filename, Mode.CHECK, sources)]
        diagnostics = [d for o in outcomes for d in o.diagnostics]
        errors = [o.internal_error for o in outcomes if o.internal_error]
    else:
        files, result = run_files(paths, settings, mode, options)
        if result is None:
            return
        if not files and not options.silent:  # as ruff: the paths hold nothing to check
            console.say("ppo-migrate: warning: No Python files found under the given path(s)")
        diagnostics, errors = result.diagnostics, result.internal_errors
        if options.fix:
            fixed_per_file = [(o.path, o.fixed) for o in result.outcomes if o.written]
        elif options.show_fixes:
            counts: dict[str, int] = {}
            for d in diagnostics:
                if d.applicable(settings.unsafe_fixes):
                    counts[d.path] = counts.get(d.path, 0) + 1
            fixed_per_file = list(counts.items())
        if not options.add_noqa and has_entry_points(diagnostics):
            from ppo_migrate.cli.caller_phase import follow_callers

            # the per-file phase's records: the run filed them on its reference index
            diagnostics, _, _ = follow_callers(files, diagnostics, settings, apply=False)
        if options.add_noqa:
            added = sum(o.noqa_added for o in result.outcomes)
            left = sum(1 for d in diagnostics if not d.informational)
            note = (
                f"; {left} finding{'s' if left != 1 else ''} could not be suppressed"
                if left
                else ""
            )
            if not options.silent:
                console.say(f"Added {added} noqa directive{'s' if added != 1 else ''}{note}.")
    report_check(settings, diagnostics, fixed_per_file, options, sources, unanalysed=len(errors))
    for e in errors:
        console.say(f"ppo-migrate: {e}")
    if errors:
        sys.exit(console.EXIT_ERROR)
    if any(not d.informational for d in diagnostics) and not options.exit_zero:
        sys.exit(console.EXIT_FINDINGS)


def report_check(
    settings, diagnostics, fixed_per_file, options: CheckOptions, sources=None, unanalysed: int = 0
) -> None:
    """Print what ``check`` found, as ruff's ``check`` does with the same options.

    ``-s`` prints nothing; ``--statistics`` replaces the findings by their counts per
    rule; ``-q`` leaves out the summary lines; ``--show-fixes`` lists the fixes per file
    (on stdout in the text formats, else on stderr, so stdout holds the document).
    ``sources``: display path -> text the run holds (standard input's), for ``full``'s frames.
    ``unanalysed``: files whose analysis ended in an internal error (the summary says so).
    """
    from ppo_migrate.diagnostics import NOTICE_CODES
    from ppo_migrate.output import TEXT_FORMATS, emit
    from ppo_migrate.output.summary import write_fixes, write_statistics

    if options.silent:
        return
    fmt = settings.output_format
    if options.statistics:
        write_statistics(diagnostics, sys.stdout, fmt, settings.unsafe_fixes)
        return
    fix = options.fix
    fixed = sum(n for _, n in fixed_per_file) if fix else None
    if fmt in TEXT_FORMATS:
        extra = {}
        if fmt == "full":
            from ppo_migrate.output.full_format import emit as emit_text

            extra = {"sources": sources}
        else:
            from ppo_migrate.output.concise_format import emit as emit_text

        def fixes_block() -> None:  # ruff's place: after the findings, before the summary
            if any(n for _, n in fixed_per_file):
                listed = any(
                    not (d.code in NOTICE_CODES and not settings.show_notices) for d in diagnostics
                )
                if fmt == "concise" or not listed:  # full's blocks end in a blank line
                    sys.stdout.write("\n")
                write_fixes(fixed_per_file, sys.stdout, applied=fix)

        emit_text(
            diagnostics,
            sys.stdout,
            root=display_root(settings.project_root),
            show_notices=settings.show_notices,
            fixed=fixed,
            summary=not options.quiet,
            unsafe_fixes=settings.unsafe_fixes,
            before_summary=fixes_block if options.show_fixes else None,
            unanalysed=unanalysed,
            **extra,
        )
        return
    if options.show_fixes:
        write_fixes(fixed_per_file, sys.stderr, applied=fix)
    emit(fmt, diagnostics, sys.stdout, root=display_root(settings.project_root))


def run_files(paths, settings, mode, options: CheckOptions):
    """Discover and process files; ``(files, None)`` after printing them for --show-files.

    ``check`` of a directory walks and prefilters it in a forked scout process while this
    one analyses (:func:`ppo_migrate.cli.runner.run_scouted`) where it can.
    """
    if not options.show_files:
        scouted = run_scouted(paths or ["."], settings, mode, options)
        if scouted is not None:
            return scouted
    files = discover(paths, settings)
    if options.show_files:
        for f in files:
            sys.stdout.write(f + "\n")
        return files, None
    return files, run_discovered(
        files, settings, mode, options.jobs, options.no_progress, given=paths or ["."]
    )


def run_scouted(paths, settings, mode, options: CheckOptions):
    """``(files, result)`` of :func:`ppo_migrate.cli.runner.run_scouted`; ``None`` where a scout does
    not apply or failed (the caller then runs without one).

    The scout forks before the runner and the analysis modules are imported: this process
    imports them while the scout walks the tree.
    """
    from ppo_migrate.cli import scout as scouting
    from ppo_migrate.cli.modes import Mode, collector_paused

    if mode is not Mode.CHECK or not scouting.applies(options.jobs, paths):
        return None
    try:
        scout = scouting.start(paths, settings)
    except OSError:
        return None
    try:
        with collector_paused():
            from ppo_migrate.cli.progress import Progress
            from ppo_migrate.cli.runner import ScoutFailed
            from ppo_migrate.cli.runner import run_scouted as run
    except BaseException:
        scout.kill()
        raise
    progress = Progress(sys.stderr, no_progress=options.no_progress)
    try:
        files, result = run(
            scout, settings, mode, jobs=options.jobs, progress=progress, given=paths
        )
    except ScoutFailed:
        return None
    except (FileNotFoundError, NotADirectoryError, PermissionError) as exc:
        console.fail(str(exc) if str(exc) else f"{exc!r}")
    finally:
        progress.finish()
    if result.interrupted:
        raise KeyboardInterrupt
    return files, result


def run_discovered(
    files, settings, mode, jobs: int | None, no_progress: bool, on_outcome=None, given=None
):
    """Process discovered files with a progress bar; Ctrl-C raises KeyboardInterrupt.

    ``given``: the command line's paths the files were discovered from (see
    :func:`ppo_migrate.cli.runner.run`: with a directory holding the whole repository, its
    other files need no second walk).

    ``on_outcome(outcome, progress)`` is called as each file finishes (see
    :func:`ppo_migrate.cli.runner.run`); ``progress`` is the bar, to clear before printing.
    """
    from ppo_migrate.cli.progress import Progress
    from ppo_migrate.cli.runner import run

    progress = Progress(sys.stderr, no_progress=no_progress)
    try:
        result = run(
            files,
            settings,
            mode,
            jobs=jobs,
            progress=progress,
            on_outcome=(lambda o: on_outcome(o, progress)) if on_outcome else None,
            given=given,
        )
    finally:
        progress.finish()
    if result.interrupted:
        raise KeyboardInterrupt
    return result
