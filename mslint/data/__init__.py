"""Tables generated from the real MindSpore API (scripts/generate_api_tables.py).

They are read lazily, once, so that mslint never needs MindSpore installed."""
from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import FrozenSet, List, Optional

_API_FILE = os.path.join(os.path.dirname(__file__), "mindspore_api.json")


@lru_cache(maxsize=1)
def api_tables() -> dict:
    with open(_API_FILE, encoding="utf-8") as handle:
        return json.load(handle)


@lru_cache(maxsize=1)
def third_party_whitelist() -> FrozenSet[str]:
    return frozenset(api_tables()["third_party_whitelist"])


@lru_cache(maxsize=1)
def cell_classes() -> FrozenSet[str]:
    return frozenset(api_tables()["cell_classes"])


def replacements_for(qualname: str) -> List[str]:
    """MindSpore functions with the same name and purpose as a third-party function."""
    return list(api_tables()["replacements"].get(qualname, ()))


@lru_cache(maxsize=1)
def tensor_attributes() -> FrozenSet[str]:
    """Every attribute name of mindspore.Tensor and mindspore.Parameter (methods, properties, dunders)."""
    return frozenset(api_tables()["tensor_attributes"])


@lru_cache(maxsize=1)
def jit_forbidden_methods() -> FrozenSet[str]:
    return frozenset(api_tables()["jit_forbidden_methods"])


@lru_cache(maxsize=1)
def jit_forbidden_modules() -> FrozenSet[str]:
    return frozenset(api_tables()["jit_forbidden_modules"])


def jit_forbidden_name(qualname: str) -> Optional[str]:
    """The name MindSpore reports for a function or class it forbids in graph code, in any public spelling."""
    return api_tables().get("jit_forbidden_aliases", {}).get(qualname)
