"""Whether a project builds one of its classes only with a parameter's default.

`if self.output_type == "np":` in a Cell whose `__init__` has `output_type="ms"` is compiled
only for an instance built with another value.  When the project builds the class itself,
and that is all anybody can do with it, the calls say which: a class built only as
`SkyReelsV2Timesteps(num_channels=..., flip_sin_to_cos=True)` never compiles the "np"
branch, and a finding there would describe code that no program of the project compiles.

The calls decide only when every use of the class's name in the project can be read:
- every reference is a direct call `Name(...)` (or `module.Name(...)`) without `*args` or
  `**kwargs`, and the argument in question is left out or a literal (`True`, `"ms"`, `-1`);
- the class is defined once, is not subclassed, not stored or passed around (`{"1d": Name}`,
  `partial(Name, ...)`), not imported under another name, not re-exported by a package's
  `__init__.py` (by name, or with `from .module import *`) and not named in a string
  (`__all__`, a lazy-import table): those are how code outside the project, or code that
  cannot be read, builds it;
- the project builds it at least once (a class nobody builds here is a library's, whose
  users choose).
Type annotations and `isinstance` tests mention the class without building it, and
docstrings and comments do not count.

Only the standard library's `ast` is used, on the files whose text holds the name: the
answer depends on exactly those files, which the result cache records (mslint.cache).
"""
from __future__ import annotations

import ast
import bisect
import os
import re
from typing import Dict, List, Optional, Sequence, Set, Tuple

from mslint import module_files

LITERAL_TYPES = (type(None), bool, int, float, str)


class _Undecided(Exception):
    """A use of the class the calls cannot account for."""


def keeps_default(project, path: str, class_name: str, parameter: str, signature: Tuple[Sequence[str], Sequence[str]],
                  default: object) -> bool:
    """Whether the class `class_name` of file `path` is built in the project, and every call
    of it there gives `parameter` its default (leaves it out, or passes an equal literal).
    `signature`: the `__init__` parameters after `self` in order, and the keyword-only ones."""
    calls = _calls_of(project, class_name, path)
    if not calls:
        return False
    positional, keyword_only = signature
    for call in calls:
        value = _argument(call, parameter, positional, keyword_only, default)
        if value is UNREADABLE or type(value) is not type(default) or value != default:
            return False
    return True


UNREADABLE = object()  # an argument that is not a literal
# a call, as the literals it passes: positional arguments in order, keyword arguments by name
Call = Tuple[Tuple[object, ...], Dict[str, object]]


def _argument(call: Call, parameter: str, positional: Sequence[str], keyword_only: Sequence[str],
              default: object) -> object:
    """The literal a call gives a parameter (its default when the call leaves it out)."""
    arguments, keywords = call
    if parameter in keywords:
        return keywords[parameter]
    if parameter in positional:
        index = list(positional).index(parameter)
        return arguments[index] if index < len(arguments) else default
    return default if parameter in keyword_only else UNREADABLE


def _literal(node: ast.expr) -> object:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNREADABLE
    return value if isinstance(value, LITERAL_TYPES) else UNREADABLE


def _calls_of(project, class_name: str, path: str) -> Optional[List[Call]]:
    """Every call that builds the class of that name defined in `path`; None when some use is
    not such a call.  Read once a project (every analysis that reaches the class asks), and
    recorded for the result cache each time."""
    memo = project.memo.setdefault("instantiations", {})
    if class_name not in memo:
        files = project.files_mentioning(class_name)
        try:
            memo[class_name] = _read_calls(project, class_name, files) + (files,)
        except _Undecided:
            memo[class_name] = (None, None, files)
    calls, defined_in, files = memo[class_name]
    module_files.read_mentions(project.root, class_name, files)
    return calls if defined_in is not None and os.path.abspath(path) == defined_in else None


def _read_calls(project, class_name: str, files: Sequence[str]) -> Tuple[List[Call], str]:
    """The calls that build the class, and the file that defines it (_Undecided: see above)."""
    # The text answers most classes without parsing a file: a name defined twice (`Attention`
    # in every model), quoted (`__all__`), or never followed by "(" but where it is defined.
    name = re.escape(class_name.encode("utf-8"))
    occurrence = re.compile(rb"\b" + name + rb"\b(?P<after>[\"']|[ \t]*\()?")  # (a literal first: a fast scan)
    definitions = calls = 0
    defined_in = None
    for path in files:
        text = project.text(path) or b""
        for match in occurrence.finditer(text):
            if text[match.start() - 1:match.start()] in (b'"', b"'") or match.group("after") in (b'"', b"'"):
                raise _Undecided
            line_start = text.rfind(b"\n", 0, match.start()) + 1
            if _CLASS_STATEMENT.fullmatch(text, line_start, match.start()):
                definitions += 1
                defined_in = path
            elif match.group("after"):
                calls += 1
    if definitions != 1:
        raise _Undecided
    if not calls:
        return [], defined_in
    if defined_in in project.star_exported():
        raise _Undecided  # `from .module import *` in a package: every public name is exported
    # a package's __init__.py most often re-exports the class: read those first
    files = sorted(files, key=lambda path: os.path.basename(path) != "__init__.py")
    found: List[Call] = []
    for path in files:
        text = project.text(path) or b""
        tree = project.tree(path)
        if tree is None:
            raise _Undecided  # a file that does not parse may build it any way
        uses = _Uses(class_name, os.path.basename(path) == "__init__.py", _lines_of(text, name))
        uses.visit(tree)
        found.extend(uses.calls)
    return found, defined_in


def _lines_of(text: bytes, name: bytes) -> List[int]:
    """The numbers of the lines (as Python's parser counts them) where the word occurs."""
    starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
    return sorted({bisect.bisect_right(starts, match.start()) for match in re.finditer(rb"\b" + name + rb"\b", text)})


_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_CLASS_STATEMENT = re.compile(rb"[ \t]*class[ \t]+")


class _Uses(ast.NodeVisitor):
    """The uses of one name in a module: definitions, calls, and any other use (_Undecided)."""

    def __init__(self, name: str, package_init: bool, lines: Sequence[int]):
        self.name = name
        self.word = re.compile(rf"\b{re.escape(name)}\b")
        self.package_init = package_init
        self.lines = lines  # where the name occurs: only nodes spanning one of them are visited
        self.calls: List[Call] = []
        self._harmless: Set[int] = set()  # ids of references that do not build the class

    def generic_visit(self, node) -> None:
        for child in ast.iter_child_nodes(node):
            first, last = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
            if first is not None and last is not None:
                index = bisect.bisect_left(self.lines, first)
                if index == len(self.lines) or self.lines[index] > last:
                    continue  # the name does not occur in it
            self.visit(child)

    def _refers(self, node) -> bool:
        return (isinstance(node, ast.Name) and node.id == self.name) or \
            (isinstance(node, ast.Attribute) and node.attr == self.name)

    def _mark_harmless(self, node) -> None:
        if node is not None:
            self._harmless.update(id(n) for n in ast.walk(node))

    # -- what builds it ------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        if self._refers(node.func):
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                raise _Undecided  # `Name(*args, **config)`: its arguments cannot be read
            self.calls.append((tuple(_literal(a) for a in node.args),
                               {k.arg: _literal(k.value) for k in node.keywords}))
            self._harmless.add(id(node.func))
        elif isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
            self._mark_harmless(node.args[1])
        self.generic_visit(node)

    # -- what only mentions it -----------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._docstring(node)
        self.generic_visit(node)

    def visit_FunctionDef(self, node) -> None:
        self._docstring(node)
        for argument in node.args.posonlyargs + node.args.args + node.args.kwonlyargs + \
                [node.args.vararg, node.args.kwarg]:
            if argument is not None:
                self._mark_harmless(argument.annotation)
        self._mark_harmless(node.returns)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Module(self, node: ast.Module) -> None:
        self._docstring(node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._mark_harmless(node.annotation)
        self.generic_visit(node)

    def _docstring(self, node) -> None:
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            self._harmless.add(id(body[0].value))

    # -- every other use -----------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id == self.name and id(node) not in self._harmless:
            raise _Undecided  # stored, passed, subclassed, rebound

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == self.name and id(node) not in self._harmless:
            raise _Undecided
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self._harmless and self.word.search(node.value):
            raise _Undecided  # `__all__`, a lazy-import table, getattr(module, "Name")

    def visit_alias(self, node: ast.alias) -> None:
        if node.name == self.name or node.name.endswith("." + self.name):
            if self.package_init or (node.asname is not None and node.asname != self.name):
                raise _Undecided  # re-exported by a package, or called by another name
