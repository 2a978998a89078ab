"""Keep rates and drop rates: what nn.Dropout's keep_prob argument is spelled as, read from its
expression tree, and `p = 1 - keep_prob` written back as source.

MindSpore's `nn.Dropout` binds its first positional argument to the deprecated `keep_prob`;
PyTorch's binds the drop probability.  Ported code passes either, and the spelling tells which:
`1 - drop_rate` (also `1 - a - b`, which is `1 - (a + b)`) or a name with "keep" is a keep
rate, a name with "drop" or a number below 0.5 a drop rate, and a conditional expression is
whatever all its arms are (`1 - r if r > 0 else 1.0` is a keep rate; arms that disagree leave it
to the spelling, as for any other expression).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from astroid import nodes
from astroid.nodes.node_classes import OP_PRECEDENCE

from mslint.analysis.literal_values import number

KEEP = "keep"
DROP = "drop"

_SUM = OP_PRECEDENCE["+"]  # `a + b` and `a - b`
_CONDITIONAL = OP_PRECEDENCE["IfExp"]  # `a if c else b`; only a lambda binds looser
_ATOM = len(OP_PRECEDENCE)  # a number, a name: binds tighter than any operator


def rate_kind(value) -> Optional[str]:
    """KEEP or DROP by the expression's spelling; None when it reads as neither."""
    if isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name) and value.func.name in ("float", "int") \
            and len(value.args) == 1 and not value.keywords:
        return rate_kind(value.args[0])  # float(1 - dropout) is spelled as what it converts
    found = number(value)
    if found is not None:
        return DROP if found < 0.5 else KEEP
    if _taken_from_one(value) is not None:
        return KEEP
    if isinstance(value, nodes.IfExp):
        arms = {rate_kind(value.body), rate_kind(value.orelse)}
        if len(arms) == 1:
            return arms.pop()  # (both arms the same kind, or neither reads as one)
    text = value.as_string().lower()  # (arms that disagree: the spelling decides, as for any expression)
    if isinstance(value, (nodes.Name, nodes.Attribute)) and "keep" in text:
        return KEEP
    return DROP if "drop" in text else None


def one_minus(value) -> str:
    """`1 - value` as source text, simplified per part: a number is computed, `1 - a - b` gives
    `a + b`, a conditional gives the conditional of its arms' complements; parenthesised where
    Python's precedence needs it, and anything looser than `a + b` always (`p=(r if r > 0 else 0.0)`)."""
    return argument(*_one_minus(value))


def argument(text: str, precedence: int) -> str:
    """Text to write after `p=` (or in a message): in parentheses when it binds looser than
    `a + b`, so that `p=(r if r > 0 else 0.0)` reads as one value."""
    return f"({text})" if precedence < _SUM else text


def spelled(value) -> str:
    return argument(value.as_string(), value.op_precedence())


def _one_minus(value) -> Tuple[str, int]:
    found = number(value)
    if found is not None:
        return repr(round(1.0 - found, 6)), _ATOM
    terms = _taken_from_one(value)
    if terms is not None:
        if len(terms) == 1:
            return terms[0].as_string(), terms[0].op_precedence()
        # 1 - a - b is 1 - (a + b): a later term like `b - c` keeps its parentheses
        return " + ".join(_wrapped(term, _SUM if i else _SUM - 1) for i, term in enumerate(terms)), _SUM
    if isinstance(value, nodes.IfExp):
        body, orelse = _one_minus(value.body), _one_minus(value.orelse)
        return (f"{_wrapped_text(*body, _CONDITIONAL)} if {_wrapped(value.test, _CONDITIONAL)} "
                f"else {_wrapped_text(*orelse, _CONDITIONAL)}"), _CONDITIONAL
    return f"1 - {_wrapped(value, _SUM)}", _SUM


def _taken_from_one(value) -> Optional[List[nodes.NodeNG]]:
    """[a, b] for `1 - a - b` (the left-nested subtractions from the number 1); else None."""
    terms = []
    while isinstance(value, nodes.BinOp) and value.op == "-":
        terms.append(value.right)
        value = value.left
    return terms[::-1] if terms and number(value) == 1 else None


def _wrapped(node, at_most: int) -> str:
    return _wrapped_text(node.as_string(), node.op_precedence(), at_most)


def _wrapped_text(text: str, precedence: int, at_most: int) -> str:
    """Parenthesised when the part binds no tighter than `at_most` (its place would regroup it)."""
    return f"({text})" if precedence <= at_most else text
