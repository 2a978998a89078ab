"""The `mslint` command: arguments, configuration, exit status.

Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal error.
"""
from __future__ import annotations

import argparse
import codecs
import gc
import json
import os
import sys
from typing import List, Optional

from mslint import __version__
from mslint import config as config_module
from mslint import rule_pages
from mslint.cache import ResultCache
from mslint.fixes import FIXABLE
from mslint.reporters import REPORTERS, locations, statistics
from mslint.rules import INTERNAL_ERROR, registry
from mslint.runner import GC_THRESHOLDS, UsageError, discover, lint_paths

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


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
    parser.add_argument("--format", choices=sorted(REPORTERS), default="text", help="output format (default: text)")
    parser.add_argument("--select", metavar="CODES",
                        help="only these rules: comma-separated codes, prefixes (MS1, MS10) or symbols")
    parser.add_argument("--ignore", metavar="CODES", help="skip these rules (codes, prefixes or symbols)")
    parser.add_argument("--config", metavar="FILE",
                        help="pyproject.toml to read [tool.mslint] from (default: the nearest one with that table)")
    parser.add_argument("--target-version", choices=config_module.SUPPORTED_TARGET_VERSIONS,
                        help="MindSpore version the code runs on (default: from config, else "
                             f"{config_module.DEFAULT_TARGET_VERSION})")
    parser.add_argument("--graph-mode", choices=("auto", "always", "never"),
                        help="whether a plain construct is compiled (default: auto)")
    parser.add_argument("--syntax-level", choices=("lax", "strict"), help="jit_syntax_level to assume (default: lax)")
    parser.add_argument("--list-rules", action="store_true", help="list every rule (with --format json: as JSON)")
    parser.add_argument("--explain", metavar="CODE", help="print a rule's documentation page")
    parser.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                        help="worker processes (default: all cores)")
    parser.add_argument("--statistics", action="store_true",
                        help="print how many findings each rule has instead of the findings (text or json)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the result cache (.mslint_cache/, or $MSLINT_CACHE_DIR)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--version", action="version", version=f"mslint {__version__}")
    _add_fix_arguments(parser)
    return parser


# -- fixes (issue 15): the flags, and the run that applies fixes (mslint/fix_command.py) ------
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


def _run_fixes(args, files, config, cache) -> int:
    from mslint import fix_command

    if args.statistics:
        raise UsageError("--statistics does not combine with --fix, --diff or --fix-only")
    outcome = fix_command.fix_files(files, config, jobs=args.jobs or os.cpu_count() or 1, cache=cache,
                                    unsafe=args.unsafe_fixes, write=not args.diff)
    findings = [_display(f) for f in outcome.findings]
    failed = any(f.rule is INTERNAL_ERROR for f in findings)
    if args.diff:
        for path in sorted(outcome.changes):
            before, after = outcome.changes[path]
            sys.stdout.write(fix_command.unified_diff(_display_path(path), before, after))
        sys.stdout.flush()
        count = outcome.fixed_count
        print(f"Would fix {count} problem{'s' if count != 1 else ''}." if count else "No fixes to apply.",
              file=sys.stderr)
        return EXIT_ERROR if failed else EXIT_FINDINGS if outcome.changes else EXIT_CLEAN
    if args.fix_only:
        print(fix_command.fix_summary(outcome), file=sys.stderr)
        return EXIT_ERROR if failed else EXIT_CLEAN
    REPORTERS[args.format](findings, sys.stdout, {"files": len(files), "base": locations.base_directory(),
                                                  "unsafe_fixes": args.unsafe_fixes})
    sys.stdout.flush()
    if outcome.fixed_count:
        print(fix_command.fix_summary(outcome), file=sys.stderr)
    if failed and not args.exit_zero:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN

# -- end of fixes --------------------------------------------------------------------------


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
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as error:  # noqa: BLE001 - never a traceback to the user
        print(f"mslint: internal error: {type(error).__name__}: {error} (please report it)", file=sys.stderr)
        return EXIT_ERROR
    finally:
        gc.set_threshold(*saved_gc_thresholds)


def _main(argv: Optional[List[str]]) -> int:
    args = build_parser().parse_args(argv)
    _tolerant_stdout()
    if args.list_rules:
        return _list_rules(args.format)
    if args.explain:
        return _explain(args.explain)
    if args.format not in REPORTERS:
        raise UsageError(f"--format {args.format} is not available")
    if args.statistics and args.format not in statistics.FORMATS:
        raise UsageError(f"--statistics prints text or json, not {args.format}")

    paths = args.paths or ["."]
    config = config_module.discover(_common_directory(paths), args.config)
    overrides = {
        "select": config_module.check_selectors(args.select, "--select", "--select") if args.select else None,
        "ignore": (config.ignore + config_module.check_selectors(args.ignore, "--ignore", "--ignore"))
        if args.ignore else None,
        "target_version": args.target_version,
        "graph_mode": args.graph_mode,
        "syntax_level": args.syntax_level,
    }
    config = config.with_overrides(**overrides)
    if args.jobs < 0:
        raise UsageError("--jobs must be 0 (all cores) or a positive number")

    files = discover(paths, config)
    cache = None if args.no_cache else ResultCache.for_config(config)
    gc.set_threshold(*GC_THRESHOLDS)  # until the output is written (main restores them): see mslint.runner
    if _wants_fixes(args):
        return _run_fixes(args, files, config, cache)
    findings = lint_paths(files, config, jobs=args.jobs or os.cpu_count() or 1, cache=cache)
    findings = [_display(f) for f in findings]
    if args.statistics:
        statistics.report(findings, sys.stdout, args.format)
    else:
        REPORTERS[args.format](findings, sys.stdout, {"files": len(files), "base": locations.base_directory(),
                                                      "unsafe_fixes": args.unsafe_fixes})
    sys.stdout.flush()

    if any(f.rule is INTERNAL_ERROR for f in findings) and not args.exit_zero:
        return EXIT_ERROR
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _json_escape(error: UnicodeEncodeError):
    """Codec error handler: unencodable characters as \\uXXXX (UTF-16 units, as JSON writes them)."""
    units = error.object[error.start:error.end].encode("utf-16-be", "surrogatepass")
    escaped = "".join(f"\\u{int.from_bytes(units[i:i + 2], 'big'):04x}" for i in range(0, len(units), 2))
    return escaped, error.end


def _tolerant_stdout() -> None:
    """A file name that is not valid UTF-8 (a lone surrogate in Python) or a character the terminal's
    encoding lacks is written as a \\uXXXX escape (valid inside JSON strings, readable in text) instead
    of failing the whole report with UnicodeEncodeError."""
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        codecs.register_error("mslint-json-escape", _json_escape)
        sys.stdout.reconfigure(errors="mslint-json-escape")


def _display(finding):
    """Paths as the user would type them: relative to the working directory when below it."""
    path = _display_path(finding.path)
    if path == finding.path:
        return finding
    from dataclasses import replace

    return replace(finding, path=path)


def _display_path(path: str) -> str:
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith(os.pardir) else relative


def _common_directory(paths: List[str]) -> str:
    absolute = [os.path.abspath(p) for p in paths]
    try:
        common = os.path.commonpath(absolute)
    except ValueError:
        return os.getcwd()
    return common if os.path.isdir(common) else os.path.dirname(common)


def _list_rules(output_format: str) -> int:
    rules = list(registry())
    if output_format == "json":
        json.dump([dict(r.as_dict(), fixable=FIXABLE.get(r.code)) for r in rules], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_CLEAN
    width = max(len(r.symbol) for r in rules)
    for rule in rules:
        default = "on " if rule.default_enabled else "off"
        fix = f"fix:{FIXABLE[rule.code]:<9}" if rule.code in FIXABLE else " " * 13
        print(f"{rule.code}  {rule.symbol:<{width}}  {rule.severity:<7}  {default}  {fix} {rule.summary}")
    return EXIT_CLEAN


def _explain(code: str) -> int:
    rule = registry().get(code)
    if rule is None:
        raise UsageError(f"--explain: {code!r} is not a rule code or symbol (see mslint --list-rules)")
    page = rule_pages.read_page(rule.code)
    if page is None:
        print(f"{rule.code} {rule.symbol} ({rule.severity})\n\n{rule.summary}\n\nFix: {rule.fix}\n\n{rule.url}")
    else:
        page = rule_pages.for_reading(page)
        sys.stdout.write(page if page.endswith("\n") else page + "\n")
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
