"""The `mslint` command: arguments, configuration, output, exit status.

Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal error.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from dataclasses import replace
from typing import List, Optional

from mslint import __version__, baseline, noqa, output
from mslint import config as config_module
from mslint import rule_pages
from mslint.cache import ResultCache
from mslint.discovery import UsageError, discover, empty_paths
from mslint.findings import Finding
from mslint.progress import Progress
from mslint.reporters import REPORTERS, locations, statistics
from mslint.reporters.style import use_color
from mslint.rules import INTERNAL_ERROR, registry
from mslint.runner import GC_THRESHOLDS, lint_paths

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
PEOPLE_FORMATS = ("text", "concise")  # the others are for machines: no progress line, no colour


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, as for every other usage error
        self.exit(EXIT_ERROR, f"mslint: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mslint",
        description="Find MindSpore graph-mode code that fails to compile, is frozen at compile time, "
                    "or runs silently wrong.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    report = parser.add_argument_group("output")
    report.add_argument("--output-format", "--format", dest="output_format", choices=sorted(REPORTERS),
                        default="text", help="output format (default: text; --format is an alias)")
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
                       help="only these rules: codes, prefixes (MS1, MS10), symbols or pylint ids, "
                            "comma-separated; repeatable")
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
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    saved_gc_thresholds = gc.get_threshold()
    try:
        return _main(argv)
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
    if args.explain:
        return _explain(args.explain)
    if args.statistics and args.output_format not in statistics.FORMATS:
        raise UsageError(f"--statistics prints text or json, not {args.output_format}")
    if args.jobs is not None and args.jobs < 0:
        raise UsageError("--jobs must be 0 (decided from the work) or a positive number")

    paths = args.paths or ["."]
    config = with_command_line(config_module.discover(_common_directory(paths), args.config), args)
    for warning in config.warnings:
        print(f"mslint: warning: {warning}", file=sys.stderr)
    if args.list_rules:
        return _list_rules(args.output_format, config)

    excluded: List[str] = []
    files = discover(paths, config, respect_gitignore=args.respect_gitignore, force_exclude=args.force_exclude,
                     excluded_by_name=excluded)
    for path in empty_paths([p for p in paths if p not in excluded], files):
        print(f"mslint: warning: no Python files found under {path}", file=sys.stderr)
    if not files and not excluded:  # (pre-commit may name only excluded files: nothing to do, not an error)
        return EXIT_ERROR
    cache = None if args.no_cache else ResultCache.for_config(config)
    report_to = output.open_output(args.output_file)
    people = args.output_format in PEOPLE_FORMATS and not args.statistics
    progress = Progress(len(files), sys.stderr, people and not args.quiet and output.is_terminal(sys.stderr)
                        and output.is_terminal(report_to))
    gc.set_threshold(*GC_THRESHOLDS)  # until the output is written (main restores them): see mslint.runner
    try:
        findings = lint_paths(files, config, jobs=args.jobs if args.jobs is not None else (config.jobs or 0),
                              cache=cache, on_file=progress.advance)
    finally:
        progress.finish()
    findings = sorted((_display(f) for f in findings), key=Finding.sort_key)

    if args.add_noqa:
        return _add_noqa(findings)
    if args.write_baseline:
        try:
            baseline.write(findings, args.write_baseline)
        except OSError as error:
            raise UsageError(f"--write-baseline {args.write_baseline}: cannot write: {error.strerror or error}") \
                from None
        print(f"mslint: recorded {len(findings)} finding{'' if len(findings) == 1 else 's'} in "
              f"{args.write_baseline}", file=sys.stderr)
        return EXIT_CLEAN
    if args.baseline:
        known = len(findings)
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
               "color": people and args.output_file is None and use_color(args.color, sys.stdout)}
    return output.write(lambda out: _report(findings, out, args, context), report_to, status)


def with_command_line(config: config_module.Config, args) -> config_module.Config:
    """A configuration (the run's, or a file's own) with the command line's settings on top."""
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
        "extend_exclude": config.extend_exclude + _globs(args.extend_exclude or ()),
        "graph_mode": args.graph_mode,
        "syntax_level": args.syntax_level,
    }
    if args.target_version is not None:
        changes["target_version"], warnings = config_module.check_target_version(
            args.target_version, "--target-version", "--target-version")
        changes["warnings"] = warnings  # the file's target-version, and its only warning, are overridden
    return config.with_overrides(**changes)


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
    outcome = noqa.add_noqa(findings)
    for path, line, why in outcome.skipped:
        print(f"{path}:{line}: no comment added: {why}", file=sys.stderr)
    comments = "comment" if outcome.comments == 1 else "comments"
    files = "file" if outcome.files == 1 else "files"
    print(f"Added {outcome.comments} suppression {comments} to {outcome.files} {files}.")
    return EXIT_CLEAN


def _display(finding):
    """Paths as the user would type them: relative to the working directory when below it."""
    path = finding.path
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    if not relative.startswith(os.pardir):
        path = relative
    return finding if path == finding.path else replace(finding, path=path)


def _common_directory(paths: List[str]) -> str:
    absolute = [os.path.abspath(p) for p in paths]
    try:
        common = os.path.commonpath(absolute)
    except ValueError:
        return os.getcwd()
    return common if os.path.isdir(common) else os.path.dirname(common)


def _list_rules(output_format: str, config: config_module.Config) -> int:
    rules = list(registry())
    enabled = config_module.enabled_rules(config)
    if output_format == "json":
        json.dump([dict(r.as_dict(), enabled=enabled[r.code]) for r in rules], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_CLEAN
    width = max(len(r.symbol) for r in rules)
    print(f"{'code':<5}  {'symbol':<{width}}  {'severity':<8}  {'now':<3}  {'default':<7}  summary")
    for rule in rules:
        now = "on" if enabled[rule.code] else "off"
        default = "on" if rule.default_enabled else "off"
        print(f"{rule.code}  {rule.symbol:<{width}}  {rule.severity:<8}  {now:<3}  {default:<7}  {rule.summary}")
    return EXIT_CLEAN


def _explain(code: str) -> int:
    rule = registry().get(code)
    if rule is None:
        raise UsageError(f"--explain: {code!r} is not a rule code, symbol or pylint id (see mslint --list-rules)")
    page = rule_pages.read_page(rule.code)
    if page is None:
        print(f"{rule.code} {rule.symbol} ({rule.severity})\n\n{rule.summary}\n\nFix: {rule.fix}\n\n{rule.url}")
    else:
        page = rule_pages.for_reading(page)
        sys.stdout.write(page if page.endswith("\n") else page + "\n")
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
