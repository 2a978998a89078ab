"""Run every enabled rule over one module; one rule's crash is one MS003 finding."""
from __future__ import annotations

import traceback
from typing import Dict, Iterable, List, Optional

from mslint.run import budget
from mslint.analysis.context import ModuleContext
from mslint.findings import Finding
from mslint.messages import compose
from mslint.rules import ANALYSIS_INCOMPLETE, INTERNAL_ERROR, Rule, load_checks, registry


def check_module(context: ModuleContext, enabled: Dict[str, bool], rules: Iterable[Rule] = None) -> List[Finding]:
    """Findings of the enabled rules on a module (unsorted, unsuppressed)."""
    load_checks()  # (the registry may have come from a snapshot of the rules' metadata)
    path = context.path
    findings: List[Finding] = []
    try:
        context.scope
    except budget.BudgetExceeded:
        context.disable_scope()
        return findings + [_incomplete(path, f"{budget.describe(budget.seconds())} ran out in the graph-scope "
                                             "analysis; no rule checked the file")]
    except RecursionError:
        context.disable_scope()
        findings.append(_incomplete(path, "graph-scope analysis ran out of recursion depth"))
    except Exception as error:  # noqa: BLE001
        context.disable_scope()
        findings.append(internal_error(path, None, error))
    checked = [r for r in (rules if rules is not None else registry()) if r.check is not None and enabled.get(r.code)]
    for rule in checked:
        try:
            findings.extend(f for f in rule.check(context) if f.rule.code == rule.code)
        except budget.BudgetExceeded:  # keep what the finished rules found; skip the rest
            findings.append(_incomplete(path, f"{budget.describe(budget.seconds())} ran out in rule {rule.code} "
                                              f"({rule.symbol}); it and the rules after it did not finish"))
            return findings
        except RecursionError:
            findings.append(_incomplete(path, f"rule {rule.code} ({rule.symbol}) ran out of recursion depth"))
        except Exception as error:  # noqa: BLE001 - isolate one rule's bug to one finding
            findings.append(internal_error(path, rule, error))
    if context._scope is not None and context.scope.incomplete and enabled.get(ANALYSIS_INCOMPLETE.code):
        findings.append(_incomplete(path, "the graph-scope call graph exceeded its size limit"))
    return findings


def internal_error(path: str, rule: Optional[Rule], error: BaseException) -> Finding:
    where = ""
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        where = f" at {last.filename.rsplit('/', 1)[-1]}:{last.lineno}"
    what = f"rule {rule.code} ({rule.symbol})" if rule is not None else "the graph-scope analysis"
    detail = " ".join(str(error).split())  # one line: exception texts may hold newlines
    message = compose(f"internal error in {what}", f"{type(error).__name__}: {detail}{where}",
                      "The other rules still ran on this file")
    return Finding(INTERNAL_ERROR, path, 1, 0, None, None, message)


def _incomplete(path: str, why: str) -> Finding:
    return Finding(ANALYSIS_INCOMPLETE, path, 1, 0, None, None, f"analysis incomplete: {why}; findings may be missing")
