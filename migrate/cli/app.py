"""The ``ppo-migrate`` command line: click's parsing, the usage errors, ``apply``'s printing.

``check``'s work is :mod:`ppo_migrate.cli.commands`' (also run without click for a plain
``check PATH ...``), the streams and exit codes :mod:`ppo_migrate.cli.console`'s. Exit codes
follow ruff: 0 nothing found, 1 findings remain (or, with ``apply --diff``, there would be a
change), 2 usage or configuration errors and internal crashes, 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import click
from ppo_migrate import __version__
from ppo_migrate.cli import commands, console
from ppo_migrate.cli.console import EXIT_ERROR, EXIT_FINDINGS
from ppo_migrate.project.root import display_root
from ppo_migrate.project.snapshot import scoped


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
            type=click.Choice(["full", "concise", "json", "github", "sarif", "junit"]),
            default=None,
            help="Output format (default: full, or output-format in pyproject.toml).",
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
    """The settings for ``paths`` with the command line's overrides (:func:`commands.load`)."""
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
    return commands.load(paths, overrides)


#: Turn Ctrl-C into exit 130, a closed pipe into a quiet exit 1 and crashes into a
#: one-line error with exit 2 (:func:`ppo_migrate.cli.console.guard`); click's own usage errors
#: and exits are click's to report.
def _guard(func: Callable) -> Callable:
    return console.guard(func, passthrough=(click.exceptions.Exit, click.ClickException))


def _stdin_paths(paths: tuple[str, ...], opts: dict) -> tuple[str, ...]:
    """Like ruff, ``--stdin-filename NAME`` without a path means standard input (``-``).

    ``-`` is standard input only alone: beside other paths (or twice) it is a usage error,
    where it was silently left out (a tester's ``check - -`` passed with findings on stdin).
    """
    if not paths and opts["stdin_filename"]:
        return ("-",)
    if "-" in paths and len(paths) > 1:
        raise click.UsageError("'-' (standard input) cannot be combined with other paths")
    return paths


#: Commands imported only when they are run or listed (``ppo-migrate env`` pulls in
#: json, YAML handling and more: none of it is needed by ``check`` or ``apply``).
_LAZY_COMMANDS = {"env": ("ppo_migrate.cli.envcmd", "env_command")}


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
@scoped  # one snapshot of the project's files for the whole command (issue 26)
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
    paths = _stdin_paths(paths, opts)
    if fix and add_noqa:
        raise click.UsageError("--fix and --add-noqa cannot be combined")
    if fix and paths == ("-",):
        raise click.UsageError("--fix rewrites files; for standard input use `ppo-migrate apply -`")
    settings = _load(paths, opts)
    if statistics and settings.output_format not in ("full", "concise", "json"):
        raise click.UsageError("--statistics prints text (full, concise) or json")
    if show_shims:
        settings = settings.replace(show_shims=True)
    if unsafe_fixes is not None:
        settings = settings.replace(unsafe_fixes=unsafe_fixes)
    options = commands.CheckOptions(
        exit_zero=exit_zero,
        add_noqa=add_noqa,
        fix=fix,
        show_fixes=show_fixes,
        statistics=statistics,
        quiet=quiet,
        silent=silent,
        jobs=opts["jobs"],
        no_progress=opts["no_progress"],
        show_files=opts["show_files"],
        stdin_filename=opts["stdin_filename"],
    )
    commands.check(paths, settings, options)


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
@scoped  # one snapshot of the project's files for the whole command (issue 26)
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
    from ppo_migrate.cli.runner import Mode

    paths = _stdin_paths(paths, opts)
    if thread_config and diff and paths == ("-",):
        raise click.UsageError("--thread-config rewrites across files: not for standard input")
    settings = _load(paths, opts)
    if use_ppo_runtime:
        settings = settings.replace(use_ppo_runtime=True)
    if unsafe_fixes is not None:
        settings = settings.replace(unsafe_fixes=unsafe_fixes)
    mode = Mode.DIFF if diff else Mode.APPLY
    concise = settings.output_format in ("full", "concise")  # text: findings, then a summary
    diff_to_stderr = not concise  # stdout holds the JSON/SARIF/... document alone
    # with --diff in concise format stdout holds the patch alone (`apply --diff > fix.patch`):
    # the findings and the summary go to stderr
    report_to_stderr = not concise or diff
    if paths == ("-",):
        outcome = commands.stdin(settings, opts["stdin_filename"], Mode.DIFF if diff else Mode.FIX_STDOUT)
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
            result = commands.run_discovered(
                files, settings, run_mode, opts["jobs"], opts["no_progress"],
                on_outcome=None if diff else rewrote, given=paths or (".",),
            )
            found = sorted(
                (d for o in result.outcomes for d in o.diagnostics), key=lambda d: d.sort_key()
            )
            found, threaded, threaded_fixes = _follow_callers(
                files, found, settings, thread_config, thread_depth, report_to_stderr, diff,
            )
            return result.outcomes, found, threaded, threaded_fixes

        files = commands.discover(paths, settings)
        if opts["show_files"]:
            for f in files:
                click.echo(f)
            return
        if thread_config and diff:
            # every step of the multi-file rewrite, the real apply (Mode.APPLY) with its
            # writes staged in the snapshot's overlay: its later steps and re-checks read
            # the edited text there; nothing is written or copied; one diff of them all
            from ppo_migrate.edits.unified_diff import overlay_diff
            from ppo_migrate.project.snapshot import current, staged

            with staged(current()) as snapshot:
                outcomes, diagnostics, threaded, threaded_fixes = rewrite(files, Mode.APPLY)
            patch = overlay_diff(snapshot.overlaid(), files)
            click.echo(patch, nl=False, err=diff_to_stderr)
        else:
            outcomes, diagnostics, threaded, threaded_fixes = rewrite(files, mode)
            for o in outcomes:
                if diff and o.diff:
                    click.echo(o.diff, nl=False, err=diff_to_stderr)
    if paths == ("-",):
        diagnostics = sorted((d for o in outcomes for d in o.diagnostics), key=lambda d: d.sort_key())
        threaded, threaded_fixes = [], {}
    for o in sorted((o for o in outcomes if o.kept_import), key=lambda o: o.path):
        # --use-ppo-runtime left the import: a replacement reaches the calls through verl
        click.echo(
            f"Kept the verl import in {o.path} (not moved to ppo_runtime): {o.kept_import}",
            err=report_to_stderr or paths == ("-",),
        )
    errors = [f"{o.path}: {o.internal_error}" for o in outcomes if o.internal_error]
    # the calls given a config: the per-file fixes and those threading reached
    fixed = sum(o.fixed for o in outcomes) + sum(threaded_fixes.values())
    changed = len({o.path for o in outcomes if o.fixed or o.imports} | set(threaded_fixes))
    if concise:
        from ppo_migrate.output.concise_format import format_line, listed

        render = format_line
        if settings.output_format == "full":
            from ppo_migrate.output.full_format import SourceLines, block

            texts = SourceLines()  # the files as they are now: each read once, here

            def render(d, unsafe):
                return block(d, texts.framed(d), unsafe) + "\n"

        for d in listed(diagnostics, show_notices=settings.show_notices):
            click.echo(render(d, settings.unsafe_fixes), err=report_to_stderr)
    elif paths != ("-",) or settings.output_format not in ("full", "concise"):
        emit(settings.output_format, diagnostics, sys.stdout, root=display_root(settings.project_root))
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
    unsafe = sum(
        1 for d in diagnostics
        if not d.informational and d.fixable and not d.applicable(settings.unsafe_fixes)
    )
    if unsafe and settings.output_format in ("full", "concise"):  # as check says it (ruff's words)
        click.echo(f"{unsafe} more fixable with --unsafe-fixes.", err=report_to_stderr or paths == ("-",))
    if settings.output_format in ("full", "concise"):  # standard input too: notices are always summed up
        from ppo_migrate.output.concise_format import notice_summary

        for line in notice_summary(diagnostics):
            click.echo(line, err=report_to_stderr or paths == ("-",))
    for e in errors:
        console.say(f"ppo-migrate: {e}")
    if errors:
        sys.exit(EXIT_ERROR)
    would_change = diff and (fixed or threaded)
    if (any(not d.informational for d in diagnostics) or would_change) and not exit_zero:
        sys.exit(EXIT_FINDINGS)


def _follow_callers(files, diagnostics, settings, thread_config, depth, to_stderr, diff):
    """Caller hints for PPO002 and, with ``--thread-config``, the threading itself.

    The per-file phase's :class:`ppo_migrate.rules.callers.FileIndex` records are those
    the runs filed on the command's reference index
    (:attr:`ppo_migrate.project.references.References.per_file`; a record is used only while
    its file is unchanged): the re-check of the threaded files files its own over them.

    Returns:
        ``(diagnostics, threaded, threaded_fixes)``: the findings (hints added, those of
        threaded files recomputed, write problems included), sorted; the files threaded;
        path -> how many of its PPO002 calls now pass the config (its findings before the
        threading less those after), for the threaded files where that is above 0.
    """
    from collections import Counter

    from ppo_migrate.cli.runner import Mode, run

    if not commands.has_entry_points(diagnostics):
        return diagnostics, [], {}
    from ppo_migrate.cli.caller_phase import follow_callers

    diagnostics, threaded, problems = follow_callers(
        files, diagnostics, settings, apply=thread_config, depth=depth
    )
    if threaded:
        for p in threaded:
            verb = "Would thread" if diff else "Threaded"
            click.echo(f"{verb} the config through {p}", err=to_stderr)
        done = set(threaded)
        before = Counter(d.path for d in diagnostics if d.code == "PPO002" and d.path in done)
        refreshed = run(threaded, settings, Mode.CHECK, jobs=1)
        before.subtract(d.path for d in refreshed.diagnostics if d.code == "PPO002")
        threaded_fixes = {p: n for p, n in before.items() if n > 0}
        diagnostics = [d for d in diagnostics if d.path not in done] + refreshed.diagnostics
        diagnostics, _, _ = follow_callers(
            files, diagnostics, settings, apply=False, depth=depth, threading=True,
        )
    else:
        threaded_fixes = {}
    return sorted([*diagnostics, *problems], key=lambda d: d.sort_key()), threaded, threaded_fixes


def _list_rules() -> None:
    from ppo_migrate.rules.codes import RULES

    for rule in RULES.values():
        fix = "[*]" if rule.fixable else "   "
        click.echo(f"{rule.code} {fix} {rule.name}: {rule.summary}")


@cli.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@_guard
def rule(code: str | None, show_all: bool) -> None:
    """Print a rule's documentation (or list the rules)."""
    from ppo_migrate.rules.codes import RULES

    if code is None or show_all:
        _list_rules()
        return
    r = RULES.get(code.upper())
    if r is None:
        console.fail(f"unknown rule code {code!r}; see `ppo-migrate rule --all`")
    assert r is not None
    from ppo_migrate.rules_doc import render_page

    click.echo(render_page(r, page=False), nl=False)


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``ppo-migrate``): click's, through
    :func:`ppo_migrate.cli.console.run_command` (standard output flushed here, so that a reader
    that went away is a quiet exit 1 rather than a traceback).

    Args:
        argv: the arguments (``None``: ``sys.argv[1:]``, and the process ends with the
            command).
    """
    console.run_command(
        lambda: cli.main(args=list(argv) if argv is not None else None, prog_name="ppo-migrate"),
        process_ends=argv is None,
    )
