"""Which MindSpore versions a piece of code runs on, as far as the version tests around it say.

Compatibility code tests the version and keeps one path per era:
`if ms.__version__ >= "2.0": nn.Dropout(p=...)` / `else: nn.Dropout(keep_prob=...)`, also
`MS_VERSION <= "1.10.1"`, `parse(ms.__version__) < parse("2.0")`, `not is_version_ge(ms.__version__,
"1.11")` and the conditional expression.  A node inside such a branch runs only on the versions its
test lets through; elsewhere it runs on the configured `target-version`.  A fix that writes an API
MindSpore added in some version, and a finding that an API is deprecated or removed, ask
`holds_from` first.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from astroid import nodes

Version = Tuple[int, ...]
# one side of a range: (which side, the version, whether the version itself is inside)
Bound = Tuple[str, Version, bool]
LOWER, UPPER = "lower", "upper"

_VERSION_TEXT = re.compile(r"^\d+(\.\d+)*")
_OPERATORS = {"<": (UPPER, False), "<=": (UPPER, True), ">": (LOWER, False), ">=": (LOWER, True)}
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
# is_version_ge(current, base) (mindformers, mindone and many model zoos define one) and kin
_HELPER_NAME = re.compile(r"version_?(ge|gt|le|lt)$", re.IGNORECASE)
_HELPER_OPERATORS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


def holds_from(node: nodes.NodeNG, version: str, target_version: str) -> bool:
    """Whether what MindSpore `version` brought (an API added, an API removed) holds wherever `node`
    runs: every version the branches around it allow is `version` or later; when they allow
    versions on both sides, or say nothing, the target version decides."""
    since = parse_version(version)
    lowest, highest = _range(node)
    if highest is not None and _below(highest, since):
        return False
    if lowest is not None and _compare(lowest[1], since) >= 0:
        return True
    return _compare(parse_version(target_version), since) >= 0


def parse_version(text: str) -> Version:
    found = _VERSION_TEXT.match(text.strip())
    return tuple(int(part) for part in found.group(0).split(".")) if found else ()


def _compare(a: Version, b: Version) -> int:
    width = max(len(a), len(b))
    a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (a > b) - (a < b)


def _below(upper: Bound, since: Version) -> bool:
    """Every version up to this upper bound is older than `since`."""
    order = _compare(upper[1], since)
    return order < 0 or (order == 0 and not upper[2])


def _range(node: nodes.NodeNG) -> Tuple[Optional[Bound], Optional[Bound]]:
    """The tightest (lower, upper) bounds the enclosing version tests put on `node`."""
    lowest: Optional[Bound] = None
    highest: Optional[Bound] = None
    child, parent = node, node.parent
    while parent is not None:
        for bound in _bounds_for(child, parent):
            if bound[0] == LOWER and (lowest is None or _compare(bound[1], lowest[1]) > 0):
                lowest = bound
            elif bound[0] == UPPER and (highest is None or _compare(bound[1], highest[1]) < 0):
                highest = bound
        child, parent = parent, parent.parent
    return lowest, highest


def _bounds_for(child, parent) -> List[Bound]:
    if isinstance(parent, nodes.If) and child is not parent.test:
        in_body = child in parent.body
    elif isinstance(parent, nodes.IfExp) and child is not parent.test:
        in_body = child is parent.body
    else:
        return []
    bounds = _test_bounds(parent.test)
    if in_body:
        return bounds
    # the else: the opposite of a single bound; of a range with two ends, nothing can be said
    return [_opposite(bounds[0])] if len(bounds) == 1 else []


def _opposite(bound: Bound) -> Bound:
    side, version, inclusive = bound
    return (UPPER if side == LOWER else LOWER, version, not inclusive)


def _test_bounds(test) -> List[Bound]:
    """The bounds a test puts on the version when it holds."""
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = _test_bounds(test.operand)
        return [_opposite(inner[0])] if len(inner) == 1 else []
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return [bound for value in test.values for bound in _test_bounds(value)]
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        return _comparison_bounds(test.left, test.ops[0][0], test.ops[0][1])
    if isinstance(test, nodes.Call):
        return _helper_bounds(test)
    return []


def _comparison_bounds(left, operator: str, right) -> List[Bound]:
    if operator not in _OPERATORS:
        return []
    if _literal_version(left) is not None and _literal_version(right) is None:
        left, right, operator = right, left, _MIRRORED[operator]
    version = _literal_version(right)
    if version is None or _literal_version(left) is not None or "version" not in left.as_string().lower():
        return []
    side, inclusive = _OPERATORS[operator]
    return [(side, version, inclusive)]


def _helper_bounds(call: nodes.Call) -> List[Bound]:
    """`is_version_ge(ms.__version__, "1.11")`: the current version first, the version it is compared with second."""
    name = call.func.attrname if isinstance(call.func, nodes.Attribute) else getattr(call.func, "name", "")
    found = _HELPER_NAME.search(name or "")
    if found is None or len(call.args) != 2 or call.keywords:
        return []
    return _comparison_bounds(call.args[0], _HELPER_OPERATORS[found.group(1).lower()], call.args[1])


def _literal_version(node) -> Optional[Version]:
    """The version a literal spells ("2.0", parse("2.0"), LooseVersion("1.10.1")); None for anything else."""
    texts = [c.value for c in node.nodes_of_class(nodes.Const) if isinstance(c.value, str)]
    if len(texts) != 1:
        return None
    version = parse_version(texts[0])
    return version or None
