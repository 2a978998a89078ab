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
from mslint.reporters import REPORTERS, locations, statistics
from mslint.rules import INTERNAL_ERROR, registry
from mslint.reporters.text import withheld_note
from mslint.runner import GC_THRESHOLDS, UsageError, discover, lint_run

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
    parser.add_argument("--show-settings", metavar="PATH",
                        help="print the configuration that applies to a file (and where it comes from)")
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
    config_for = config_module.PerFile(args.config, _command_line_settings(args))
    if args.show_settings:
        return _show_settings(args.show_settings, config_for)
    if args.jobs < 0:
        raise UsageError("--jobs must be 0 (all cores) or a positive number")

    files = discover(paths, config_for)
    caches = None if args.no_cache else _caches()
    gc.set_threshold(*GC_THRESHOLDS)  # until the output is written (main restores them): see mslint.runner
    run = lint_run(files, config_for, jobs=args.jobs or os.cpu_count() or 1, cache=caches)
    findings = [_display(f) for f in run.findings]
    if args.statistics:
        statistics.report(findings, sys.stdout, args.format)
    else:
        REPORTERS[args.format](findings, sys.stdout, {"files": len(files), "base": locations.base_directory(),
                                                      "withheld": run.withheld})
    sys.stdout.flush()
    if run.withheld and (args.statistics or args.format != "text"):
        print(f"mslint: {withheld_note(run.withheld)}", file=sys.stderr)

    if any(f.rule is INTERNAL_ERROR for f in findings) and not args.exit_zero:
        return EXIT_ERROR
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _command_line_settings(args):
    """What the command line sets, applied to each file's configuration."""
    select = config_module.check_selectors(args.select, "--select", "--select") if args.select else None
    ignore = config_module.check_selectors(args.ignore, "--ignore", "--ignore") if args.ignore else ()

    def apply(config: config_module.Config) -> config_module.Config:
        return config.with_overrides(select=select, ignore=(config.ignore + ignore) if ignore else None,
                                     target_version=args.target_version, graph_mode=args.graph_mode,
                                     syntax_level=args.syntax_level)

    return apply


def _caches():
    """The result cache of each configuration (one file per configuration), opened once."""
    opened = {}

    def cache_for(config: config_module.Config) -> ResultCache:
        key = (config.root, ResultCache.namespace(config))
        if key not in opened:
            opened[key] = ResultCache.for_config(config)
        return opened[key]

    return cache_for


def _show_settings(path: str, config_for) -> int:
    """Print the configuration that applies to a file, and where it comes from."""
    if not os.path.exists(path):
        raise UsageError(f"--show-settings: {path}: no such file or directory")
    config = config_for(path)
    from mslint import project

    model = project.project_for(path)
    rules = config_module.enabled_rules(config, path)
    print(f"settings for {path}")
    print(f"  configuration file: {config.source or '(none: defaults)'}")
    print(f"  configuration root: {config.root}")
    print(f"  project root: {model.root}")
    print(f"  select: {list(config.select) if config.select is not None else '(the default rules)'}")
    print(f"  ignore: {list(config.ignore)}")
    print(f"  per-file-ignores for this file: {list(config.ignored_for(path))}")
    print(f"  exclude: {list(config.exclude)}")
    print(f"  target-version: {config.target_version}")
    modes = sorted(model.modes()) or ["(never set)"]
    print(f"  graph-mode: {config.graph_mode} (the project's set_context modes: {', '.join(modes)})")
    print(f"  syntax-level: {config.syntax_level}")
    print(f"  allowed-constant-calls: {list(config.allowed_constant_calls)}")
    print(f"  extra-jit-decorators: {list(config.extra_jit_decorators)}")
    print(f"  enabled rules: {', '.join(code for code, on in sorted(rules.items()) if on)}")
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
    path = finding.path
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    if not relative.startswith(os.pardir):
        path = relative
    if path == finding.path:
        return finding
    from dataclasses import replace

    return replace(finding, path=path)


def _list_rules(output_format: str) -> int:
    rules = list(registry())
    if output_format == "json":
        json.dump([r.as_dict() for r in rules], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_CLEAN
    width = max(len(r.symbol) for r in rules)
    for rule in rules:
        default = "on " if rule.default_enabled else "off"
        print(f"{rule.code}  {rule.symbol:<{width}}  {rule.severity:<7}  {default}  {rule.summary}")
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
