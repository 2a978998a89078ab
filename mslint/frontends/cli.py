"""The `mslint` command: arguments, configuration, output, exit status.

Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal error, or no
Python file found.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from dataclasses import replace
from typing import List, Optional

from mslint import __version__
from mslint.reporters import output
from mslint import config as config_module
from mslint.run.cache import caches_by_configuration
from mslint.run.discovery import UsageError, discover, empty_paths
from mslint.findings import Finding
from mslint.fixes import FIXABLE
from mslint.frontends.progress import Progress
from mslint.reporters import REPORTERS, locations, statistics
from mslint.reporters.style import use_color
from mslint.reporters.text import withheld_note
from mslint import rules as rules_module
from mslint.rules import INTERNAL_ERROR, registry
from mslint.directories import cache_directory
from mslint.run import manifest as run_manifest
from mslint.run.runner import GC_THRESHOLDS, RunReport, lint_run

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
PEOPLE_FORMATS = ("text", "concise")  # the others are for machines: no progress line, no colour


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, as for every other usage error
        self.exit(EXIT_ERROR, f"mslint: error: {message}\n")

    def _print_message(self, message, file=None):  # `mslint --help | head -1`: help was given, exit 0
        try:
            super()._print_message(message, file)
        except BrokenPipeError:
            output.silence_stdout()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mslint",
        usage="mslint [check] [options] [PATH ...]\n       mslint server [--stdio]",
        description="Find MindSpore graph-mode code that fails to compile, is frozen at compile time, "
                    "or runs silently wrong.",
        epilog="commands:\n"
               "  check         lint PATHs (the default: `mslint PATH` is `mslint check PATH`)\n"
               "  server        a language server for editors over stdin/stdout (`--stdio` accepted; "
               "docs/editors.md)\n"
               "A path named check or server is written ./check or ./server.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    report = parser.add_argument_group("output")
    report.add_argument("--output-format", "--format", dest="output_format", choices=sorted(REPORTERS),
                        default="text", help="output format (default: text; --format is an alias; concise shows "
                                             "only the first sentence of each message)")
    report.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    report.add_argument("--quiet", "-q", action="store_true",
                        help="only the findings: no summary line, no progress")
    report.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text output (default: auto: on a terminal; NO_COLOR turns it off, "
                             "FORCE_COLOR on)")
    report.add_argument("--statistics", action="store_true",
                        help="print how many findings each rule has instead of the findings (text or json)")
    report.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    rules = parser.add_argument_group("rule selection (the command line wins over the configuration)")
    rules.add_argument("--select", metavar="CODES", action="append",
                       help="only these rules: codes, prefixes (MS1, MS10), symbols, pylint ids or ALL, "
                            "comma-separated; repeatable; the more specific name wins (--select MS103 --ignore MS1 "
                            "runs MS103)")
    rules.add_argument("--extend-select", metavar="CODES", action="append",
                       help="these rules in addition to the selected ones; repeatable")
    rules.add_argument("--ignore", metavar="CODES", action="append", help="skip these rules; repeatable")
    files = parser.add_argument_group("files")
    files.add_argument("--exclude", metavar="GLOBS", action="append",
                       help="files and directories not to search (replaces the configuration's exclude)")
    files.add_argument("--extend-exclude", metavar="GLOBS", action="append",
                       help="more files and directories not to search")
    files.add_argument("--respect-gitignore", dest="respect_gitignore", action="store_true", default=True,
                       help=argparse.SUPPRESS)
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                       help="also search files .gitignore ignores")
    files.add_argument("--stdin-filename", metavar="PATH",
                       help="with the path -: lint standard input as if it were the file PATH of its project "
                            "(its configuration, importers and helpers); --fix prints the fixed text")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply exclusions and .gitignore to paths named on the command line too (pre-commit)")
    settings = parser.add_argument_group("settings")
    settings.add_argument("--config", metavar="FILE",
                          help="pyproject.toml to read [tool.mslint] from (default: the nearest one with that table)")
    settings.add_argument("--target-version", metavar="X.Y",
                          help="MindSpore version the code runs on (default: from config, else "
                               f"{config_module.DEFAULT_TARGET_VERSION})")
    settings.add_argument("--graph-mode", choices=("auto", "always", "never"),
                          help="whether a plain construct is compiled (default: auto)")
    settings.add_argument("--syntax-level", choices=("lax", "strict"),
                          help="jit_syntax_level to assume (default: lax)")
    settings.add_argument("--show-settings", metavar="PATH",
                          help="print the configuration that applies to a file (and where it comes from)")
    settings.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                          help="worker processes (default: from config, else decided from the work)")
    settings.add_argument("--no-cache", action="store_true",
                          help="neither read nor write the result cache (.mslint_cache/, or $MSLINT_CACHE_DIR)")
    adoption = parser.add_argument_group("adopting mslint on existing code")
    adoption.add_argument("--add-noqa", action="store_true",
                          help="add '# mslint: disable=CODE' to the line of every current finding")
    adoption.add_argument("--baseline", metavar="FILE", help="report only findings FILE does not record")
    adoption.add_argument("--write-baseline", metavar="FILE", help="record every current finding in FILE")
    info = parser.add_argument_group("information")
    info.add_argument("--list-rules", action="store_true",
                      help="list every rule, on or off as the configuration says (with --output-format json: "
                           "as JSON)")
    info.add_argument("--explain", metavar="CODE", help="print a rule's documentation page")
    info.add_argument("--version", action="version", version=f"mslint {__version__}")
    _add_fix_arguments(parser)
    return parser


# -- fixes (issue 15): the flags, and the run that applies fixes (mslint/fix/apply.py) ------
def _add_fix_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("fixes")
    group.add_argument("--fix", action="store_true", help="apply safe fixes in place; report what remains")
    group.add_argument("--unsafe-fixes", action="store_true",
                       help="also apply (with --fix) or count (in the report) fixes that need a human look")
    group.add_argument("--diff", action="store_true",
                       help="print a unified diff of what --fix would change; change nothing (exit 1 if any)")
    group.add_argument("--fix-only", action="store_true", help="apply fixes and report nothing else")


def _wants_fixes(args) -> bool:
    return args.fix or args.diff or args.fix_only


def _run_fixes(args, files, config_for, caches, jobs: int, report_to) -> int:
    from mslint.fix import apply as fix_command

    if args.statistics:
        raise UsageError("--statistics does not combine with --fix, --diff or --fix-only")
    outcome = fix_command.fix_files(files, config_for, jobs=jobs, cache=caches, unsafe=args.unsafe_fixes,
                                    write=not args.diff)
    findings = sorted((_display(f) for f in outcome.findings), key=Finding.sort_key)
    for path, reason in outcome.not_written:
        print(f"mslint: error: {_display_path(path)}: {reason}", file=sys.stderr)
    failed = any(f.rule is INTERNAL_ERROR for f in findings) or bool(outcome.not_written)
    if args.diff:
        count = outcome.fixed_count
        print(f"Would fix {count} problem{'s' if count != 1 else ''}." if count else "No fixes to apply.",
              file=sys.stderr)
        status = EXIT_ERROR if failed else EXIT_FINDINGS if outcome.changes else EXIT_CLEAN
        return output.write(lambda out: out.writelines(
            fix_command.unified_diff(_display_path(path), *outcome.changes[path]) for path in sorted(outcome.changes)),
            report_to, status)
    if outcome.fixed_count or args.fix_only:
        print(fix_command.fix_summary(outcome), file=sys.stderr)
    if args.fix_only:
        return output.write(lambda out: None, report_to, EXIT_ERROR if failed else EXIT_CLEAN)
    if failed and not args.exit_zero:
        status = EXIT_ERROR
    else:
        status = EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN
    context = {"files": len(files), "base": locations.base_directory(), "quiet": args.quiet,
               "unsafe_fixes": args.unsafe_fixes}
    return output.write(lambda out: REPORTERS[args.output_format](findings, out, context), report_to, status)
# -- end of fixes --------------------------------------------------------------------------


def run() -> None:
    """The `mslint` command (its console script and `python -m mslint`): `main`, then leave
    without the interpreter's teardown.  A run holds its project's astroid trees to the end,
    millions of objects in reference cycles, and freeing them at exit took about a sixth of a
    cold run's CPU (1.3 of 8 s on mindcv + mindyolo); the process is ending, so the memory
    goes back to the system anyway.  Everything the run writes (its report, the result cache,
    the run manifest) has been written by then; only the standard streams need flushing."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone away (BrokenPipeError), a closed stream
            pass
    os._exit(0 if code is None else code if isinstance(code, int) else EXIT_ERROR)


def main(argv: Optional[List[str]] = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    # the first word names a command whatever the folder holds (editors start the server from the
    # project root, which may well hold a `server` package): a path of that name is `./server`
    if arguments[:1] == ["server"]:
        from mslint.frontends import server

        return server.main(arguments[1:])
    if arguments[:1] == ["check"]:  # ruff's spelling; `mslint PATH` is the same
        arguments = arguments[1:]
    saved_gc_thresholds = gc.get_threshold()
    try:
        return _main(arguments)
    except (UsageError, config_module.ConfigError) as error:
        print(f"mslint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("mslint: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the reader went away before the report was written (output.write handles the rest)
        output.silence_stdout()
        return EXIT_ERROR
    except Exception as error:  # noqa: BLE001 - never a traceback to the user
        print(f"mslint: internal error: {type(error).__name__}: {error} (please report it)", file=sys.stderr)
        return EXIT_ERROR
    finally:
        gc.set_threshold(*saved_gc_thresholds)


def _main(argv: Optional[List[str]]) -> int:
    args = build_parser().parse_args(argv)
    output.tolerant_stdout()
    if not args.no_cache:
        rules_module.use_snapshots()  # a run that reads every result from its cache need not import the checkers
    if args.explain:
        return _information(lambda: _explain(args.explain))
    if args.statistics and args.output_format not in statistics.FORMATS:
        raise UsageError(f"--statistics prints text or json, not {args.output_format}")
    if args.jobs is not None and args.jobs < 0:
        raise UsageError("--jobs must be 0 (decided from the work) or a positive number")

    paths = args.paths or ["."]
    command_line = _command_line_settings(args)
    config_for = config_module.PerFile(args.config, command_line)
    # where findings' rule pages are (docs-url), from the configuration of the first path
    rules_module.set_docs_url(config_for(args.stdin_filename if paths == ["-"] and args.stdin_filename
                                         else paths[0]).docs_url)
    if args.show_settings:
        return _information(lambda: _show_settings(args.show_settings, config_for))
    if args.list_rules:
        config = config_for(paths[0])
        _print_warnings(config_for)
        return _information(lambda: _list_rules(args.output_format, config))

    if paths == ["-"] or (args.stdin_filename and not args.paths):
        return _lint_stdin(args, config_for)
    if "-" in paths:
        raise UsageError("-: standard input is linted alone (mslint - --stdin-filename PATH)")
    started = run_manifest.now_ns()
    manifest = _manifest_place(args, paths, config_for)
    answer = run_manifest.load(*manifest) if manifest is not None else None
    if answer is not None:  # nothing the last identical run depended on has changed: its answer holds
        files, excluded, missing = answer.files, answer.excluded, answer.missing
        excluded_under, left_out, config_warnings = answer.excluded_under, answer.left_out, answer.config_warnings
    else:
        excluded: List[str] = []  # named, and left out by --force-exclude
        excluded_under: List[str] = []  # searched, with something left out by exclude or .gitignore
        missing: List[str] = []
        left_out: List[str] = []
        files = discover(paths, config_for, respect_gitignore=args.respect_gitignore,
                         force_exclude=args.force_exclude, excluded_by_name=excluded, missing=missing,
                         excluded_under=excluded_under, left_out=left_out)
        for path in files:  # each file's configuration, found now: its errors and warnings come first
            config_for(path)
        config_warnings = config_for.warnings()
    for warning in config_warnings:
        print(f"mslint: warning: {warning}", file=sys.stderr)
    if args.config and any(os.path.isdir(path) for path in paths):
        _warn_unmatched_globs(args.config, config_for(paths[0]), files, left_out)
    for path in missing:  # as ruff: said, and the other paths are still linted (exit 2 at the end)
        print(f"mslint: error: {path}: no such file or directory", file=sys.stderr)
    if len(missing) == len(paths):
        return EXIT_ERROR
    for path in empty_paths([p for p in paths if p not in excluded and p not in missing], files):
        why = " (exclude or .gitignore left out every one)" if path in excluded_under else ""
        print(f"mslint: warning: no Python files found under {path}{why}", file=sys.stderr)
    # nothing at all to lint (a mistyped or empty directory) is an error; files excluded on purpose,
    # named (pre-commit with --force-exclude) or searched, make a clean run of 0 files
    if not files and not excluded and not excluded_under:
        return EXIT_ERROR

    def remember(run, caches) -> None:
        if manifest is None or not run.complete:
            return
        snapshot = run_manifest.snapshot_of_run(started, paths, run.context, files, config_for, caches, args.config)
        run_manifest.save(*manifest, snapshot, {
            "files": files, "excluded": excluded, "missing": missing, "excluded_under": excluded_under,
            "left_out": left_out, "config_warnings": config_warnings, "withheld": run.withheld,
            "context_files": run.context_files, "warnings": [list(w) for w in run.warnings],
            "findings": run_manifest.encode_findings(run.findings)})

    status = _lint_files(args, paths, files, config_for, answer=answer, remember=remember)
    return EXIT_ERROR if missing and not args.exit_zero else status


# the command line's settings that change what a run finds (the others change how it is shown)
_MANIFEST_SETTINGS = ("paths", "config", "exclude", "extend_exclude", "select", "extend_select", "ignore",
                      "force_exclude", "respect_gitignore", "graph_mode", "syntax_level", "target_version")


def _manifest_place(args, paths: List[str], config_for):
    """(directory, key) of this run's manifest (mslint.run.manifest), or None when the run keeps none."""
    if args.no_cache or _wants_fixes(args):
        return None
    settings = [[name, getattr(args, name)] for name in _MANIFEST_SETTINGS]
    return cache_directory(config_for(paths[0]).root), run_manifest.run_key(settings + [["paths", paths]])


def _warn_unmatched_globs(given: str, config: config_module.Config, files: List[str], left_out: List[str]) -> None:
    """--config FILE: its globs are relative to FILE's folder, not to the working directory (so a
    configuration means the same wherever the command runs); say so when one matches nothing."""
    for glob in config.unmatched_globs(files, left_out):
        print(f"mslint: warning: --config {given}: {glob} matches nothing in this run (globs are relative to "
              f"{_display_path(config.root) or '.'}, the folder of the configuration file)", file=sys.stderr)


def _lint_stdin(args, config_for) -> int:
    from mslint.frontends import stdin

    if args.add_noqa or args.write_baseline:
        raise UsageError("--add-noqa and --write-baseline change files: they do not read standard input")
    try:
        path = stdin.stdin_path(args.stdin_filename or stdin.DEFAULT_NAME)
        config_for(path)  # its configuration's errors and warnings first
        _print_warnings(config_for)
        text = stdin.read_stdin()
    except stdin.StdinError as error:
        raise UsageError(str(error)) from None
    if _wants_fixes(args):
        return _fix_stdin(args, path, text, config_for)
    return _lint_files(args, [path], [path], config_for, texts={os.path.abspath(path): text})


def _fix_stdin(args, path: str, text: str, config_for) -> int:
    """The fixed text to stdout (ruff's `--fix -`), or its diff with --diff; what remains to stderr."""
    from mslint.fix.apply import unified_diff
    from mslint.frontends import stdin

    if args.statistics:
        raise UsageError("--statistics does not combine with --fix, --diff or --fix-only")
    fixed, counts, findings = stdin.fix_text(path, text, config_for, args.unsafe_fixes)
    count = sum(counts.values())
    failed = any(f.rule is INTERNAL_ERROR for f in findings)
    if args.diff:
        print(f"Would fix {count} problem{'s' if count != 1 else ''}." if count else "No fixes to apply.",
              file=sys.stderr)
        status = EXIT_ERROR if failed else EXIT_FINDINGS if fixed != text else EXIT_CLEAN
        return output.write(lambda out: out.write(unified_diff(_display_path(path), text, fixed)), sys.stdout,
                            status)
    print(f"Fixed {count} problem{'s' if count != 1 else ''}." if count else "No fixes to apply.", file=sys.stderr)
    findings = sorted((_display(f) for f in findings), key=Finding.sort_key)
    if not args.fix_only and findings:
        REPORTERS["concise"](findings, sys.stderr, {"files": 1, "base": locations.base_directory(), "quiet": True,
                                                    "unsafe_fixes": args.unsafe_fixes})
    if failed and not args.exit_zero:
        status = EXIT_ERROR
    else:
        status = EXIT_FINDINGS if findings and not args.fix_only and not args.exit_zero else EXIT_CLEAN
    return output.write(lambda out: out.write(fixed), sys.stdout, status)


def _lint_files(args, paths: List[str], files: List[str], config_for, texts=None, answer=None,
                remember=None) -> int:
    """Lint (or fix, or adopt) the files found; the exit status.  `texts`: absolute path -> the
    text to lint instead of the file's (standard input).  `answer`: a run manifest's answer for
    these files (mslint.run.manifest), which then need no run; `remember(run, caches)` is told a
    new run's report."""
    caches = None if args.no_cache else caches_by_configuration()
    report_to = output.open_output(args.output_file)
    people = args.output_format in PEOPLE_FORMATS and not args.statistics
    # a long --statistics run shows its progress too (its text is for people as well)
    progress = Progress(sys.stderr, args.output_format in PEOPLE_FORMATS and not args.quiet
                        and output.is_terminal(sys.stderr) and output.is_terminal(report_to))
    gc.set_threshold(*GC_THRESHOLDS)  # until the output is written (main restores them): see mslint.run.runner
    jobs = args.jobs if args.jobs is not None else (config_for(paths[0]).jobs or 0)
    if _wants_fixes(args):
        return _run_fixes(args, files, config_for, caches, jobs, report_to)
    if answer is not None:
        progress.finish()
        run = RunReport(answer.findings, answer.withheld, len(files), answer.context_files, answer.warnings)
    else:
        try:
            run = lint_run(files, config_for, jobs=jobs, cache=caches, progress=progress, overrides=texts)
        finally:
            progress.finish()
        if remember is not None:
            remember(run, caches)
    for path, line, warning in run.warnings:
        print(f"mslint: warning: {_display_path(path)}:{line}: {warning}", file=sys.stderr)
    findings = sorted((_display(f) for f in run.findings), key=Finding.sort_key)

    if args.add_noqa:
        return _add_noqa(findings)
    if args.write_baseline:
        try:
            from mslint.fix import baseline

            baseline.write(findings, args.write_baseline)
        except OSError as error:
            raise UsageError(f"--write-baseline {args.write_baseline}: cannot write: {error.strerror or error}") \
                from None
        print(f"mslint: recorded {len(findings)} finding{'' if len(findings) == 1 else 's'} in "
              f"{args.write_baseline}", file=sys.stderr)
        return EXIT_CLEAN
    if args.baseline:
        known = len(findings)
        from mslint.fix import baseline

        findings = baseline.new_findings(findings, args.baseline)
        hidden = known - len(findings)
        if not args.quiet and hidden:
            print(f"mslint: {hidden} finding{'' if hidden == 1 else 's'} recorded in {args.baseline} not shown",
                  file=sys.stderr)

    if any(f.rule is INTERNAL_ERROR for f in findings) and not args.exit_zero:
        status = EXIT_ERROR
    elif findings and not args.exit_zero:
        status = EXIT_FINDINGS
    else:
        status = EXIT_CLEAN
    context = {"files": len(files), "base": locations.base_directory(), "quiet": args.quiet,
               "unsafe_fixes": args.unsafe_fixes,
               "withheld": run.withheld,
               "color": people and args.output_file is None and use_color(args.color, sys.stdout)}
    if run.withheld and not people and not args.quiet:  # the text formats say it in their summary
        print(f"mslint: {withheld_note(run.withheld)}", file=sys.stderr)
    return output.write(lambda out: _report(findings, out, args, context), report_to, status)


def _information(show) -> int:
    """Run an information command (--list-rules, --show-settings, --explain; each exits 0 or raises
    a usage error): exit 0 also when the reader went away early (`mslint --list-rules | head -1`)."""
    return output.write(lambda _out: show(), sys.stdout, EXIT_CLEAN)


def _command_line_settings(args):
    """What the command line sets, checked once: a function applying it to each file's configuration."""
    selectors = {}
    for name in ("select", "extend_select", "ignore"):
        given = getattr(args, name)
        flag = "--" + name.replace("_", "-")
        selectors[name] = config_module.check_selectors(",".join(given), flag, flag) if given else None
    changes = {
        "cli_select": selectors["select"],
        "cli_extend_select": selectors["extend_select"] or (),
        "cli_ignore": selectors["ignore"] or (),
        "exclude": _globs(args.exclude),
        "graph_mode": args.graph_mode,
        "syntax_level": args.syntax_level,
    }
    if args.target_version is not None:
        # the file's target-version, and the warning it may have had, are overridden
        changes["target_version"], changes["warnings"] = config_module.check_target_version(
            args.target_version, "--target-version", "--target-version")
    extra_excludes = _globs(args.extend_exclude or ())

    def apply(config: config_module.Config) -> config_module.Config:
        return config.with_overrides(extend_exclude=config.extend_exclude + extra_excludes, **changes)

    return apply


def _print_warnings(config_for: config_module.PerFile) -> None:
    for warning in config_for.warnings():
        print(f"mslint: warning: {warning}", file=sys.stderr)


def _globs(values) -> Optional[tuple]:
    if values is None:
        return None
    return tuple(g.strip() for value in values for g in value.split(",") if g.strip())


def _report(findings: List[Finding], out, args, context: dict) -> None:
    if args.statistics:
        statistics.report(findings, out, args.output_format, context["files"])
    else:
        REPORTERS[args.output_format](findings, out, context)


def _add_noqa(findings: List[Finding]) -> int:
    from mslint.fix import noqa

    outcome = noqa.add_noqa(findings)
    for path, line, why in outcome.skipped:
        print(f"{path}:{line}: no comment added: {why}", file=sys.stderr)
    comments = "comment" if outcome.comments == 1 else "comments"
    files = "file" if outcome.files == 1 else "files"
    print(f"Added {outcome.comments} suppression {comments} to {outcome.files} {files}.")
    return EXIT_CLEAN


def _show_settings(path: str, config_for) -> int:
    """Print the configuration that applies to a file, and where it comes from."""
    if not os.path.exists(path):
        raise UsageError(f"--show-settings: {path}: no such file or directory")
    config = config_for(path)
    from mslint.project import index as project

    model = project.project_for(path)
    rules = config_module.enabled_rules(config, path)
    print(f"settings for {path}")
    print(f"  configuration file: {config.source or '(none: defaults)'}")
    print(f"  configuration root: {config.root}")
    print(f"  project root: {model.root}")
    print(f"  select: {list(config.select) if config.select is not None else '(the default rules)'}")
    print(f"  extend-select: {list(config.extend_select)}")
    print(f"  ignore: {list(config.ignore)}")
    if config.cli_select is not None or config.cli_extend_select or config.cli_ignore:
        select = list(config.cli_select) if config.cli_select is not None else "(not given)"
        print(f"  command line (applied after the file): select {select}, extend-select "
              f"{list(config.cli_extend_select)}, ignore {list(config.cli_ignore)}")
    print(f"  per-file-ignores for this file: {list(config.ignored_for(path))}")
    print(f"  exclude: {list(config.exclude)}")
    print(f"  extend-exclude: {list(config.extend_exclude)}")
    print(f"  target-version: {config.target_version}")
    print(f"  graph-mode: {config.graph_mode}")
    _show_programs(model, path)
    print(f"  syntax-level: {config.syntax_level}")
    print(f"  allowed-constant-calls: {list(config.allowed_constant_calls)}")
    print(f"  extra-jit-decorators: {list(config.extra_jit_decorators)}")
    print(f"  jobs: {config.jobs or '(decided from the work)'}")
    print(f"  enabled rules: {', '.join(code for code, on in sorted(rules.items()) if on)}")
    return EXIT_CLEAN


def _show_programs(model, path: str) -> None:
    """The programs that reach a file and their modes (mslint.project.programs)."""
    programs = model.programs().programs_of(path)
    if not programs:
        print("  programs: none reaches this file (library code: checked as graph code)")
        return
    mode = model.programs().mode_of(path)
    verdict = "PyNative only: plain constructs are not compiled" if mode else "constructs may be compiled"
    print(f"  programs that reach this file ({verdict}):")
    for program in programs:
        print(f"    {program.describe(os.getcwd())}")


def _display(finding):
    """Paths as the user would type them: relative to the working directory when below it."""
    path = _display_path(finding.path)
    return finding if path == finding.path else replace(finding, path=path)


def _display_path(path: str) -> str:
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith(os.pardir) else relative


def _list_rules(output_format: str, config: config_module.Config) -> int:
    rules = list(registry())
    enabled = config_module.enabled_rules(config)
    if output_format == "json":
        json.dump([dict(r.as_dict(), enabled=enabled[r.code], fixable=FIXABLE.get(r.code)) for r in rules],
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_CLEAN
    width = max(len(r.symbol) for r in rules)
    print(f"{'code':<5}  {'symbol':<{width}}  {'severity':<8}  {'now':<3}  {'default':<7}  {'fix':<13} summary")
    for rule in rules:
        now = "on" if enabled[rule.code] else "off"
        default = "on" if rule.default_enabled else "off"
        fix = f"fix:{FIXABLE[rule.code]}" if rule.code in FIXABLE else ""
        print(f"{rule.code}  {rule.symbol:<{width}}  {rule.severity:<8}  {now:<3}  {default:<7}  {fix:<13} "
              f"{rule.summary}")
    return EXIT_CLEAN


def _explain(code: str) -> int:
    rule = registry().get(code)
    if rule is None:
        raise UsageError(f"--explain: {code!r} is not a rule code, symbol or pylint id (see mslint --list-rules)")
    from mslint import rule_pages

    page = rule_pages.read_page(rule.code)
    if page is None:
        print(f"{rule.code} {rule.symbol} ({rule.severity})\n\n{rule.summary}\n\nFix: {rule.fix}\n\n{rule.url}")
    else:
        page = rule_pages.for_reading(page)
        sys.stdout.write(page if page.endswith("\n") else page + "\n")
    return EXIT_CLEAN


if __name__ == "__main__":
    run()
