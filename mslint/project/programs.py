"""The programs of a project: its entry scripts, the modes each runs in, and the modules
each reaches through imports.

Whether a plain `construct` is compiled is a property of the program that runs it, not of
the folder it sits in: `graph_app/train.py` may set GRAPH_MODE while `pyn_app/train.py`
beside it runs PyNative.  A program is

- a module with an `if __name__ == "__main__":` block, a `__main__.py`, or a console-script
  target declared in pyproject.toml or setup.py;
- a module that no project module imports and whose top level does work beyond definitions
  (`set_context(...)`, a training loop, `main()`).

A program's modes are those of its `set_context(mode=...)` calls (its own, and those in the
modules it imports outside their own `__main__` blocks), read through argparse defaults where
they are literal; a program that sets none runs MindSpore 2.x's default, PYNATIVE_MODE.  A
module's modes are the union of the modes of the programs that import it (directly or not);
a module that no program reaches is library code, checked as graph code.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from mslint.project.program_facts import GRAPH, PYNATIVE, UNKNOWN_MODE, FactStore, FileFacts

__all__ = ["GRAPH", "PYNATIVE", "UNKNOWN_MODE", "Program", "ProgramModel", "build_model"]


@dataclass(frozen=True)
class Program:
    path: str  # the entry script
    modes: FrozenSet[str]  # GRAPH, PYNATIVE, UNKNOWN_MODE (a mode read at run time: it may be GRAPH)
    why: str  # what makes it a program: "__main__ block", "console script", "top-level code"
    default_mode: bool  # it sets no mode: MindSpore 2.x's default, PYNATIVE_MODE

    @property
    def compiles_constructs(self) -> bool:
        """Whether a plain construct may be compiled in this program (any mode but PyNative)."""
        return self.modes != frozenset({PYNATIVE})

    def describe(self, base: str) -> str:
        modes = "/".join(sorted(m.upper() if m != UNKNOWN_MODE else "a mode read at run time"
                                for m in self.modes))
        if self.default_mode:
            modes = "PYNATIVE (MindSpore 2.x's default: it sets no mode)"
        return f"{os.path.relpath(self.path, base)} ({self.why}): {modes}"


class ProgramModel:
    """The programs of one project and, for each module, the programs that reach it."""

    def __init__(self, root: str, programs: List[Program], reached_by: Dict[str, Tuple[int, ...]]):
        self.root = root
        self.programs = programs
        self._reached_by = reached_by

    def programs_of(self, path: str) -> List[Program]:
        """The programs that import `path` (directly or not), or run it: empty for library code."""
        return [self.programs[i] for i in self._reached_by.get(os.path.abspath(path), ())]

    def mode_of(self, path: str) -> Optional[str]:
        """PYNATIVE when every program that reaches the module runs only PyNative; None when
        some program may compile its constructs, or none reaches it (library code: graph)."""
        programs = self.programs_of(path)
        if programs and not any(p.compiles_constructs for p in programs):
            return PYNATIVE
        return None

    def compiling_programs(self, path: str) -> List[Program]:
        """The programs that reach the module and may compile its constructs."""
        return [p for p in self.programs_of(path) if p.compiles_constructs]

    def identity(self, path: str) -> str:
        """What a cached analysis of the module depends on here: its mode, and when programs with
        different modes reach it, the first program that compiles it (findings name it)."""
        mode = self.mode_of(path)
        if mode == PYNATIVE:
            return "|pynative"
        mixed = self.mixed_note(path)
        return f"|{mixed}" if mixed else ""

    def note_for(self, path: str, compiling: FrozenSet[str]) -> Optional[str]:
        """The note of `mixed_note` for a cell that only the programs at the paths `compiling`
        compile (mslint.analysis.cell_uses): None when every program that reaches the module does."""
        programs = self.programs_of(path)
        chosen = [p for p in self.programs if p.path in compiling]
        if not chosen or {p.path for p in programs} <= compiling or self.mixed_note(path) is None:
            return None
        return self._compiled_by(chosen)

    def mixed_note(self, path: str) -> Optional[str]:
        """'Compiled by graph_app/train.py; not by PyNative programs' when a PyNative-only program also reaches the
        module: the finding then says which program compiles it."""
        programs = self.programs_of(path)
        compiling = [p for p in programs if p.compiles_constructs]
        if not compiling or len(compiling) == len(programs):
            return None
        return self._compiled_by(compiling)

    def _compiled_by(self, compiling: List[Program]) -> str:
        """The note's one wording, for a module (mixed_note) and for a cell (note_for)."""
        more = f" and {len(compiling) - 1} more" if len(compiling) > 1 else ""
        return f"Compiled by {os.path.relpath(compiling[0].path, self.root)}{more}; not by PyNative programs"


def build_model(root: str, files: List[str], store: FactStore, read_text: Callable[[str], Optional[bytes]],
                imports_of: Callable[[str, FileFacts], FrozenSet[str]]) -> ProgramModel:
    """The program model of a project's files.  `imports_of(path, facts)`: the project files a
    module imports (resolved as the analysis resolves names)."""
    facts = {path: store.facts(path, read_text) for path in files}
    imports = {path: imports_of(path, facts[path]) for path in files}
    imported: Set[str] = set()
    for targets in imports.values():
        imported |= targets
    declared = declared_entry_modules(root, files)
    programs: List[Program] = []
    reached_by: Dict[str, List[int]] = {}
    for path in files:
        why = _why_a_program(path, facts[path], declared, imported, store, read_text)
        if why is None:
            continue
        reached = _reach(path, imports)
        modes: Set[str] = set(facts[path].modes | facts[path].main_modes)
        for module in reached:
            if module != path:
                modes |= facts[module].modes
        index = len(programs)
        programs.append(Program(path, frozenset(modes or {PYNATIVE}), why, not modes))
        for module in reached:
            reached_by.setdefault(module, []).append(index)
    store.save(frozenset(files))
    return ProgramModel(root, programs, {path: tuple(indices) for path, indices in reached_by.items()})


def _why_a_program(path: str, facts: FileFacts, declared: Set[str], imported: Set[str],
                   store: FactStore, read_text) -> Optional[str]:
    if facts.main_block:
        return "__main__ block"
    if path in declared:
        return "console script"
    if os.path.basename(path) == "__main__.py":
        return "python -m target"
    if path not in imported and store.top_level_work(path, read_text):
        return "top-level code"
    return None


def _reach(entry: str, imports: Dict[str, FrozenSet[str]]) -> Set[str]:
    reached = {entry}
    frontier = [entry]
    while frontier:
        current = frontier.pop()
        for module in imports.get(current, ()):
            if module not in reached:
                reached.add(module)
                frontier.append(module)
    return reached


# -- declared entry points -------------------------------------------------------------------
_SETUP_ENTRY = re.compile(r"""["']\s*[\w.-]+\s*=\s*([\w.]+)\s*:\s*[\w.]+\s*["']""")


def declared_entry_modules(root: str, files: Iterable[str]) -> Set[str]:
    """The project files named as console-script or GUI-script targets in pyproject.toml
    ([project.scripts], [project.gui-scripts]) or setup.py / setup.cfg (entry_points)."""
    targets: Set[str] = set()
    targets |= _pyproject_targets(os.path.join(root, "pyproject.toml"))
    for name in ("setup.py", "setup.cfg"):
        try:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as handle:
                targets |= set(_SETUP_ENTRY.findall(handle.read()))
        except OSError:
            continue
    if not targets:
        return set()
    by_module: Dict[str, str] = {}
    for path in files:
        relative = os.path.relpath(path, root)
        for base in ("", "src" + os.sep):
            if base and not relative.startswith(base):
                continue
            dotted = relative[len(base):][:-3].replace(os.sep, ".")
            if dotted.endswith(".__init__"):
                dotted = dotted[:-9]
            by_module.setdefault(dotted, path)
    return {by_module[target] for target in targets if target in by_module}


def _pyproject_targets(location: str) -> Set[str]:
    try:
        with open(location, "rb") as handle:
            data = handle.read()
    except OSError:
        return set()
    try:
        import tomllib as toml_reader  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        import tomli as toml_reader  # type: ignore[no-redef]
    try:
        table = toml_reader.loads(data.decode("utf-8", errors="replace"))
    except Exception:  # noqa: BLE001 - a broken pyproject is the configuration's problem, reported there
        return set()
    project = table.get("project") if isinstance(table, dict) else None
    found: Set[str] = set()
    for key in ("scripts", "gui-scripts"):
        scripts = project.get(key) if isinstance(project, dict) else None
        if isinstance(scripts, dict):
            found |= {value.split(":")[0].strip() for value in scripts.values() if isinstance(value, str)}
    return found
