"""The Finding record: one problem at one place, as every reporter sees it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Tuple

from mslint.rules import Rule

if TYPE_CHECKING:
    from mslint.fixes import Fix

# how the sentence of a finding's message begins that says only a non-default argument compiles
# the code ("Only compiled when the caller passes use_mask other than its default False."), and
# the one that says how graph code reaches it ("In helper, called from Net.construct (line 5)."):
# written by the analysis, read by the routing of findings between files
COMPILED_ONLY_WHEN = "Only compiled when the caller passes "
REACH_SENTENCE = "In "


@dataclass(frozen=True)
class CallSite:
    """A call on the way from a graph root to a finding: where it is, and what it calls."""

    path: str  # absolute
    line: int
    column: int  # 0-based
    end_line: Optional[int]
    end_column: Optional[int]
    callee: str  # 'to_host', 'Net.helper'


@dataclass(frozen=True)
class Related:
    """Another place that the same problem reaches and that needs its own change: a NumPy call on
    the data a `.asnumpy()` converted, with its replacement."""

    path: str
    line: int  # 1-based
    column: int  # 0-based (UTF-8 bytes, as Finding.column)
    message: str


@dataclass(frozen=True)
class Finding:
    rule: Rule
    path: str
    line: int  # 1-based
    column: int  # 0-based (astroid's col_offset); reporters add 1 where the format is 1-based
    end_line: Optional[int]
    end_column: Optional[int]  # 0-based, exclusive
    message: str
    # how the code is reached from a graph root, outermost first: ("MySampler.construct (line 32)", ...)
    reach: Tuple[str, ...] = field(default=())
    # the calls of that chain, with their files and spans (to report at a call site, mslint.run.routing)
    calls: Tuple[CallSite, ...] = field(default=(), compare=False)
    # reached only from a plain construct/bprop: a finding only if the program runs in GRAPH_MODE
    graph_mode_only: bool = False
    # where the problem itself is, when the finding is reported at a call site leading to it
    origin: Optional[Tuple[str, int, int]] = None
    fix: Optional["Fix"] = None  # text edits that remove the problem (mslint --fix), or None
    related: Tuple[Related, ...] = field(default=(), compare=False)  # the places the problem reaches

    @property
    def code(self) -> str:
        return self.rule.code

    @property
    def symbol(self) -> str:
        return self.rule.symbol

    def sort_key(self):
        return (self.path, self.line, self.column, self.rule.code, self.message)

    def as_dict(self) -> dict:
        return {
            "code": self.rule.code,
            "symbol": self.rule.symbol,
            "message": self.message,
            "severity": self.rule.severity,
            "path": self.path,
            "line": self.line,
            "column": self.column + 1,
            "end_line": self.end_line,
            "end_column": None if self.end_column is None else self.end_column + 1,
            "help": self.rule.fix or None,
            "fix": None,  # the JSON reporter fills it in (edit columns need the file's text)
            "reach": list(self.reach),
            "related": [{"path": r.path, "line": r.line, "column": r.column + 1, "message": r.message}
                        for r in self.related],
            "url": self.rule.url,
        }


def shown(code, limit: int = 60, keep_end: bool = False) -> str:
    """Source text (a node's or a string) for a one-line message: line breaks folded, and cut
    to `limit` characters, keeping its start (or, with keep_end, its end: `...nn.Conv2d`)."""
    text = code if isinstance(code, str) else code.as_string()
    text = " ".join(text.split()) if "\n" in text else text
    if len(text) <= limit:
        return text
    return "..." + text[-(limit - 3):] if keep_end else text[:limit - 3] + "..."


def finding_at(rule: Rule, node, message: str, path: str, reach: Tuple[str, ...] = (),
               fix: Optional["Fix"] = None) -> Finding:
    """A finding spanning an astroid node; a def or class spans only its `def name` part
    (not its decorators and body), so editors do not highlight a whole function."""
    span = getattr(node, "position", None) or node
    return Finding(
        rule=rule,
        path=path,
        line=span.lineno or 1,
        column=span.col_offset or 0,
        end_line=getattr(span, "end_lineno", None),
        end_column=getattr(span, "end_col_offset", None),
        message=message,
        reach=reach,
        fix=fix,
    )
