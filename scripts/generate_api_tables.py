"""Generate mslint/data/mindspore_api.json from the installed MindSpore.

mslint ships this table so that it never needs MindSpore at run time.  Run it with
the `mindspore` extra installed after upgrading MindSpore:

    python scripts/generate_api_tables.py            # rewrite the shipped file
    python scripts/generate_api_tables.py --check    # exit 1 if the shipped file is stale

tests/test_api_tables.py (and tests/test_migration.py) run the --check comparison when MindSpore is importable.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import os
import sys

OUTPUT = os.path.join(os.path.dirname(__file__), os.pardir, "mslint", "data", "mindspore_api.json")

# Modules whose public classes users subclass or instantiate as Cells.
CELL_MODULES = (
    "mindspore.nn", "mindspore.nn.cell", "mindspore.nn.wrap", "mindspore.nn.layer", "mindspore.nn.loss",
    "mindspore.nn.optim", "mindspore.mint.nn", "mindspore.nn.probability.distribution",
)
# Third-party modules whose functions we suggest replacements for, and where to look.
# Public namespaces whose re-exports of forbidden functions and classes get their own
# spelling in the table (`mindspore.set_context` is `mindspore.context.set_context`).
FORBIDDEN_ALIAS_NAMESPACES = ("mindspore", "mindspore.common", "mindspore.nn", "mindspore.graph", "mindspore.graph.api")
REPLACEMENT_SOURCES = {
    "numpy": ("mindspore.ops", "mindspore.numpy"),
    "scipy.special": ("mindspore.ops",),
    "scipy.linalg": ("mindspore.scipy.linalg", "mindspore.ops"),
    "scipy.optimize": ("mindspore.scipy.optimize",),
    "math": ("mindspore.ops",),
}


def _public_functions(module) -> set:
    return {name for name in dir(module) if not name.startswith("_") and callable(getattr(module, name, None))}


def _numpy_names(name: str) -> set:
    if name == "math":
        return {n for n in dir(math) if not n.startswith("_") and callable(getattr(math, n))}
    try:
        module = importlib.import_module(name)
    except ImportError:
        return set()
    return {n for n in dir(module) if not n.startswith("_") and inspect.isroutine(getattr(module, n, None))}


def _forbidden_aliases(forbidden) -> dict:
    """Every public spelling of a function or class the JIT registry forbids -> the name MindSpore reports.

    Members of a forbidden module (defined there, not merely imported) and module-level
    functions / classes (through `Class.__init__`) of the forbidden-method registry."""
    targets = {}  # id(object) -> reported name
    for modname in sorted(forbidden.get_jit_forbidden_module()):
        module = importlib.import_module(modname)
        for name in dir(module):
            value = getattr(module, name, None)
            if not name.startswith("_") and callable(value) and getattr(value, "__module__", None) == modname:
                targets[id(value)] = f"{modname}.{name}"
    for entry in forbidden.get_jit_forbidden_method():
        parts = entry.split(".")
        if parts[-1] == "__init__":  # creating the class is forbidden
            parts = parts[:-1]
        modname, name = ".".join(parts[:-1]), parts[-1]
        try:  # module-level functions and classes only; methods are matched by their class
            module = importlib.import_module(modname)
        except ImportError:
            continue
        if hasattr(module, name):
            targets[id(getattr(module, name))] = f"{modname}.{name}"
    aliases = {reported: reported for reported in targets.values()}
    for namespace in FORBIDDEN_ALIAS_NAMESPACES:
        module = importlib.import_module(namespace)
        for name in dir(module):
            value = getattr(module, name, None)
            if value is not None and id(value) in targets:
                aliases[f"{namespace}.{name}"] = targets[id(value)]
    return aliases


def build_tables() -> dict:
    import mindspore  # noqa: F401  (the extra must be installed)
    from mindspore import nn
    from mindspore.graph._parse.jit_fallback_modules import third_party_modules
    from mindspore.graph._utils import check_jit_forbidden_api as forbidden

    cell_classes = set()
    for modname in CELL_MODULES:
        try:
            module = importlib.import_module(modname)
        except ImportError:
            continue
        for name in dir(module):
            value = getattr(module, name, None)
            if inspect.isclass(value) and issubclass(value, nn.Cell) and not name.startswith("_"):
                cell_classes.add(f"{modname}.{name}")

    replacements = {}
    for source, targets in REPLACEMENT_SOURCES.items():
        target_functions = {t: _public_functions(importlib.import_module(t)) for t in targets}
        for fname in sorted(_numpy_names(source)):
            found = [f"{t}.{fname}" for t in targets if fname in target_functions[t]]
            if found:
                replacements[f"{source}.{fname}"] = found

    # What a Tensor (or a Parameter) has: a method call of any other name is not on a tensor
    tensor_attributes = set(dir(mindspore.Tensor)) | set(dir(mindspore.Parameter))

    return {
        "mindspore_version": mindspore.__version__,
        "tensor_attributes": sorted(tensor_attributes),
        "third_party_whitelist": sorted(set(third_party_modules.third_party_modules_whitelist)),
        "cell_classes": sorted(cell_classes),
        "jit_forbidden_methods": sorted(forbidden.get_jit_forbidden_method()),
        "jit_forbidden_modules": sorted(forbidden.get_jit_forbidden_module()),
        "jit_forbidden_aliases": _forbidden_aliases(forbidden),
        "replacements": replacements,
    }


def render(tables: dict) -> str:
    return json.dumps(tables, indent=1, sort_keys=True) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing it")
    args = parser.parse_args(argv)
    text = render(build_tables())
    if args.check:
        with open(OUTPUT, encoding="utf-8") as handle:
            if handle.read() != text:
                print("mslint/data/mindspore_api.json is stale: run scripts/generate_api_tables.py", file=sys.stderr)
                return 1
        return 0
    with open(OUTPUT, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {os.path.normpath(OUTPUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
