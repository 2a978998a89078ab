"""Resolver: classes made by namedtuple / typing.NamedTuple calls resolve like class statements."""
from __future__ import annotations

from astroid import nodes

from mslint.project.resolve import Resolver, load_module


def test_namedtuple_factories_resolve_locally_and_across_modules(project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/shapes.py", """
        import collections
        from typing import NamedTuple
        Point = collections.namedtuple("Point", ["a", "b"])
        Box = NamedTuple("Box", [("w", int)])
        NOT_A_CLASS = dict(a=1)
    """)
    path = project.write("main.py", """
        from collections import namedtuple
        from pkg.shapes import Point, NOT_A_CLASS
        from pkg import shapes
        Local = namedtuple("Local", "x")
        Point(1, 2)
        shapes.Box(1)
        Local(3)
        NOT_A_CLASS(1)
    """)
    module = load_module(str(path))
    resolver = Resolver()
    calls = {c.func.as_string(): c for c in module.body[-1].nodes_of_class(nodes.Call)}
    calls.update({c.func.as_string(): c for s in module.body[-4:-1] for c in s.nodes_of_class(nodes.Call)})
    resolved = {name: resolver.resolve_callable(call.func) for name, call in calls.items()}
    assert isinstance(resolved["Point"], nodes.ClassDef) and resolved["Point"].name == "Point"
    assert isinstance(resolved["shapes.Box"], nodes.ClassDef) and resolved["shapes.Box"].name == "Box"
    assert isinstance(resolved["Local"], nodes.ClassDef) and resolved["Local"].name == "Local"
    assert resolved["NOT_A_CLASS"] is None
    # the same ClassDef every time, so per-class caches keep working
    assert resolver.resolve_callable(calls["Local"].func) is resolved["Local"]
