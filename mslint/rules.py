"""The Rule record and the one registry of every rule.

Rule metadata lives next to each rule's check (in the family modules of
``mslint.checkers``); this module only defines the record, the registry, and the
tool's own MS0xx rules.  Both front-ends (pylint plugin and ``mslint``) read the
same registry, so a rule has one code, one symbol and one message everywhere.
"""
from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional

# The `docs-url` setting of the run (mslint.config), set by the front-end: where rule pages are
# published.  None: the page installed with mslint (a file: URL), which `mslint --explain` prints.
_DOCS_URL: List[Optional[str]] = [None]


def set_docs_url(base: Optional[str]) -> None:
    _DOCS_URL[0] = base


def page_url(code: str) -> str:
    """A rule page's URL: docs-url with {code} filled in, or docs-url/CODE.md, or the installed page."""
    base = _DOCS_URL[0]
    if base:
        return base.replace("{code}", code) if "{code}" in base else f"{base.rstrip('/')}/{code}.md"
    from mslint import rule_pages

    path = rule_pages.page_path(code)
    return pathlib.Path(path).resolve().as_uri() if path else ""

SEVERITIES = ("error", "warning", "info")
_PYLINT_LETTER = {"error": "E", "warning": "W", "info": "C"}
_CODE_RE = re.compile(r"^MS(\d)(\d\d)$")
_SYMBOL_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# Rules read from a metadata snapshot and not yet defined by their checker module: the
# checker's `Rule(...)` of the same code takes this very object (see Rule.__new__), so the
# registry, cached findings and the checks agree on one object per rule.
_AWAITING_CHECKER: Dict[str, "Rule"] = {}


@dataclass(frozen=True)
class Rule:
    """Everything the front-ends need to know about one rule."""

    code: str
    symbol: str
    severity: str
    summary: str  # one line: what the rule finds
    fix: str  # how to fix it, from MindSpore's documentation
    default_enabled: bool = True
    # the function that finds this rule's problems in a module context; None for MS0xx
    check: Optional[Callable] = field(default=None, compare=False, repr=False)

    def __new__(cls, code: str, *args, **kwargs):
        # a checker defining a rule the snapshot already made: the same object, filled in again
        awaiting = _AWAITING_CHECKER.pop(code, None)
        return awaiting if awaiting is not None else super().__new__(cls)

    def __post_init__(self):
        if not _CODE_RE.match(self.code):
            raise ValueError(f"bad rule code {self.code!r}")
        if not _SYMBOL_RE.match(self.symbol):
            raise ValueError(f"bad rule symbol {self.symbol!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"bad severity {self.severity!r} for {self.code}")

    @property
    def family(self) -> str:
        return self.code[:3]

    @property
    def pylint_id(self) -> str:
        """MSabc -> E8abc / W8abc / C8abc by severity."""
        return f"{_PYLINT_LETTER[self.severity]}8{self.code[2:]}"

    @property
    def url(self) -> str:
        return page_url(self.code)

    def __reduce__(self):
        # findings cross process boundaries (--jobs); a rule travels as its code
        return (rule_for_code, (self.code,))

    def as_dict(self) -> dict:
        return {
            "code": self.code,
            "symbol": self.symbol,
            "severity": self.severity,
            "pylint_id": self.pylint_id,
            "default_enabled": self.default_enabled,
            "summary": self.summary,
            "fix": self.fix,
            "url": self.url,
        }


# The tool's own rules (family MS0): they describe a file, not the code in it.
SYNTAX_ERROR = Rule(
    "MS001", "file-unparsable", "error",
    "The file cannot be parsed as Python; no other rule could check it.",
    "Fix the syntax error (the message gives the parser's reason and position).",
)
FILE_UNREADABLE = Rule(
    "MS002", "file-unreadable", "error",
    "The file cannot be read or decoded; no other rule could check it.",
    "Make the file readable and save it as UTF-8 (or declare its encoding with a coding cookie).",
)
INTERNAL_ERROR = Rule(
    "MS003", "internal-error", "error",
    "A rule failed with an internal error on this file; the other rules still ran.",
    "Please report it with the file (or a reduced example); disable the named rule meanwhile.",
)
ANALYSIS_INCOMPLETE = Rule(
    "MS004", "analysis-incomplete", "warning",
    "The analysis of this file hit a limit (nesting depth or time) and is incomplete.",
    "Split the file or simplify the construct the message names; findings may be missing.",
)
BAD_CONFIGURATION = Rule(
    "MS005", "bad-configuration", "error",
    "The [tool.mslint] configuration is invalid; pylint ran mslint with its defaults instead.",
    "Fix the key the message names (`mslint` itself refuses to run with it and exits 2).",
)
USELESS_SUPPRESSION = Rule(
    "MS006", "unused-suppression", "info",
    "A `# mslint: disable` comment suppresses nothing: no finding of the rule it names is there.",
    "Remove the comment, or the rule names in it that no longer apply (pylint pragmas: use pylint's own "
    "useless-suppression).",
    default_enabled=False,
)
TOOL_RULES = (SYNTAX_ERROR, FILE_UNREADABLE, INTERNAL_ERROR, ANALYSIS_INCOMPLETE, BAD_CONFIGURATION,
              USELESS_SUPPRESSION)


class Registry:
    """Every rule, by code and by symbol."""

    def __init__(self, rules: Iterable[Rule]):
        self._by_code: Dict[str, Rule] = {}
        self._by_symbol: Dict[str, Rule] = {}
        self._by_pylint_id: Dict[str, Rule] = {}
        for rule in rules:
            if rule.code in self._by_code:
                raise ValueError(f"duplicate rule code {rule.code}")
            if rule.symbol in self._by_symbol:
                raise ValueError(f"duplicate rule symbol {rule.symbol}")
            self._by_code[rule.code] = rule
            self._by_symbol[rule.symbol] = rule
            self._by_pylint_id[rule.pylint_id] = rule

    def __iter__(self):
        return iter(sorted(self._by_code.values(), key=lambda r: r.code))

    def __len__(self):
        return len(self._by_code)

    def get(self, name: str) -> Optional[Rule]:
        """The rule a code (MS101), symbol or pylint id (E8101) names."""
        key = name.strip()
        return (self._by_code.get(key.upper()) or self._by_symbol.get(key.lower())
                or self._by_pylint_id.get(key.upper()))

    def matching(self, selector: str) -> List[Rule]:
        """Rules a selector names: ALL, a code prefix (MS1, MS10, MS101), a symbol or a pylint id."""
        sel = selector.strip()
        if sel.upper() == "ALL":
            return list(self)
        rule = self._by_symbol.get(sel.lower()) or self._by_pylint_id.get(sel.upper())
        if rule is not None:
            return [rule]
        sel = sel.upper()
        return [r for r in self if r.code.startswith(sel)] if sel.startswith("MS") else []


def implements(rule: Rule):
    """Decorator: `fn(context)` is the check of `rule` (it yields the rule's findings)."""

    def attach(check: Callable) -> Callable:
        object.__setattr__(rule, "check", check)  # Rule is frozen for users, not for its own module
        return check

    return attach


_REGISTRY: Optional[Registry] = None


def rule_for_code(code: str) -> Rule:
    rule = registry().get(code)
    if rule is None:
        raise KeyError(code)
    return rule


def registry() -> Registry:
    """The registry of every rule (the tool's own and every checker family's).  Its rules
    may come from a metadata snapshot, without their checks: `load_checks()` before running
    them."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _registry_from_snapshot() or _registry_from_checkers()
    return _REGISTRY


def load_checks() -> None:
    """Import the checkers (once): every rule in the registry then has its check."""
    import mslint.checkers  # noqa: F401 - the registration: its Rule(...) calls fill in the snapshot's rules

    if _REGISTRY is None:
        registry()


def _registry_from_checkers() -> Registry:
    from mslint import rule_snapshot
    from mslint.checkers import all_family_rules  # the registration: the one import of checkers

    family = list(all_family_rules())
    if _SNAPSHOT_WANTED:
        rule_snapshot.save(family)
    return Registry(list(TOOL_RULES) + family)


def _registry_from_snapshot() -> Optional[Registry]:
    import sys

    if not _SNAPSHOT_WANTED or "mslint.checkers" in sys.modules:
        return None
    from mslint import rule_snapshot

    records = rule_snapshot.load()
    if not records:
        return None
    try:
        rules = [Rule(**record) for record in records]
    except (TypeError, ValueError):
        return None
    _AWAITING_CHECKER.update((rule.code, rule) for rule in rules)
    return Registry(list(TOOL_RULES) + rules)


# The command turns snapshots on (mslint.frontends.cli); the library and the pylint plugin import the
# checkers anyway and do not write into a user's cache directory on their own.
_SNAPSHOT_WANTED = False


def use_snapshots() -> None:
    global _SNAPSHOT_WANTED
    _SNAPSHOT_WANTED = True
