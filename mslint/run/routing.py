"""Where a run shows each finding: once, in a file of the run, where the user can fix it.

An analysis starts at one module's graph roots and reports on every function they reach,
wherever it is defined.  So a helper in `helpers.py` reached from `model.py` yields a
finding whose path is `helpers.py`, and a helper reached from two roots yields two.  This
module turns the findings of all of a run's analyses into what the run reports:

- a finding in a file of the run is reported there (at the helper's line);
- a finding in a project file outside the run (one staged file in pre-commit, a helper
  outside the linted paths) is reported at the last call on its way that is in a file of
  the run, its message saying so after its first sentence ("It is at helpers.py:5, a file
  not in this run, reached by this call to to_host.");
- a finding outside the project (an installed library) is not the user's to fix: dropped;
- the same problem (one rule, one place) found by several analyses or roots is reported
  once, with its shortest reach and how many other routes reach it (and as compiled in any
  mode when one of them says so).

Both front-ends use it, so they report the same findings whatever the file order, the
number of jobs or the cache.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from mslint.findings import COMPILED_ONLY_WHEN, REACH_SENTENCE, Finding
from mslint.messages import extend, first_sentence, has_sentence, rest, without_sentence


def route(findings: Iterable[Finding], run_paths: Dict[str, str], in_project: Callable[[str], bool]) -> List[Finding]:
    """The findings a run reports.  `run_paths`: each file of the run, absolute path -> the
    path to show; `in_project`: whether an absolute path is project code."""
    chosen: Dict[tuple, Finding] = {}
    routes: Dict[tuple, set] = {}
    for finding in findings:
        routed = _routed(finding, run_paths, in_project)
        if routed is None:
            continue
        key = _identity(routed, finding)
        routes.setdefault(key, set()).add(finding.reach)
        best = chosen.get(key)
        if best is None or _preference(routed) < _preference(best):
            chosen[key] = routed
    return sorted((_with_route_count(found, len(routes[key]) - 1) for key, found in chosen.items()),
                  key=Finding.sort_key)


def _with_route_count(finding: Finding, others: int) -> Finding:
    """The finding of one problem reached from several roots says how many other ways reach it."""
    if others <= 0 or not finding.reach:
        return finding
    more = "1 more route reaches it" if others == 1 else f"{others} more routes reach it"
    return replace(finding, message=extend(finding.message, more))


def _routed(finding: Finding, run_paths: Dict[str, str], in_project: Callable[[str], bool]) -> Optional[Finding]:
    absolute = os.path.abspath(finding.path)
    shown = run_paths.get(absolute)
    if shown is not None:
        return finding if shown == finding.path else replace(finding, path=shown)
    if not finding.calls or not in_project(absolute):
        return None
    for site in reversed(finding.calls):  # the call nearest to the problem that the run holds
        shown = run_paths.get(site.path)
        if shown is None:
            continue
        where = f"{os.path.basename(absolute)}:{finding.line}"
        said = _without_reach(finding)  # the reach is said by the call itself
        message = extend(first_sentence(said),
                         f"It is at {where}, a file not in this run, reached by this call to {site.callee}", rest(said))
        return replace(finding, path=shown, line=site.line, column=site.column, end_line=site.end_line,
                       end_column=site.end_column, message=message,
                       origin=(absolute, finding.line, finding.column),
                       fix=None)  # its edits are in the file not in this run
    return None


def may_show(finding: Finding, run_paths: Dict[str, str]) -> bool:
    """Whether a run of these files (absolute paths) may show the finding (see _routed): it is
    in one of them, or a call on its way is."""
    return (os.path.abspath(finding.path) in run_paths
            or any(os.path.abspath(site.path) in run_paths for site in finding.calls))


def _identity(routed: Finding, original: Finding) -> tuple:
    """One problem: the rule, where it is reported and where the problem itself is.  What is
    said of it may differ from one root to another (the reach, what a caller passes); the
    user still has one thing to fix there."""
    origin = routed.origin or (os.path.abspath(original.path), original.line, original.column)
    return (routed.code, routed.path, routed.line, routed.column, origin)


def _preference(finding: Finding) -> Tuple:
    """Of two reports of one problem: compiled in any mode first, then compiled whatever the
    caller passes, then the shortest reach."""
    return (finding.graph_mode_only, has_sentence(finding.message, COMPILED_ONLY_WHEN), len(finding.reach),
            finding.reach, finding.message)


def _without_reach(finding: Finding) -> str:
    """The message without its sentence 'In helper, called from Net.construct (line 5).'; the
    other notes ('Net is taken for a Cell: ...', 'Only compiled when ...') are kept."""
    if not finding.reach:
        return finding.message
    return without_sentence(finding.message, f"{REACH_SENTENCE}{finding.reach[-1]}, called from ")


def withheld(findings: Iterable[Finding]) -> Tuple[List[Finding], List[Finding]]:
    """(kept, withheld): a finding in code compiled only in GRAPH_MODE, in a program that only
    runs PyNative (the analysis marks it), is withheld."""
    kept: List[Finding] = []
    held: List[Finding] = []
    for finding in findings:
        (held if finding.graph_mode_only else kept).append(finding)
    return kept, held
