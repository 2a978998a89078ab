"""Trainers built by a project helper with the level its caller gives (MS601, MS602).

    def create_trainer(network, loss, optimizer, **kwargs):      # trainer.py
        return Model(network, loss, optimizer, **kwargs)

    model = create_trainer(net, loss, opt, amp_level="O2")      # train.py

The Model call inside the helper has no literal level; the call of the helper has one. A
HelperTrainer stands for the Model at the helper's call: its level is the argument the call
passes (or the parameter's default), its network the Model's network (the helper's parameter,
which the instance tracker binds to what the caller passes).
"""
from __future__ import annotations

from typing import Iterator, Optional

from astroid import nodes

from mslint.analysis import instances as inst
from mslint.analysis.context import ModuleContext
from mslint.project.classes import keyword_value


class HelperTrainer:
    """The duck type of a trainer Instance that MS601/MS602 read: node, level, ms_name, role()."""

    def __init__(self, call: nodes.Call, level, trainer: inst.Instance, function: nodes.FunctionDef,
                 tracker: inst.InstanceTracker):
        self.node = call  # the helper's call: where the level is written, and where findings go
        self.level = level
        self.trainer = trainer
        self.ms_name = trainer.ms_name
        self._function = function
        self._tracker = tracker

    def role(self, name: str) -> Optional[inst.Instance]:
        """What this call passes for the role: the helper's parameter stands for every caller's argument
        at once (the tracker binds across functions without flow), so read this call's argument."""
        inner = self.trainer.role(name)
        binding = inner.node if inner is not None else None
        if not (isinstance(binding, nodes.AssignName) and binding.parent is self._function.args):
            return inner
        positional = [a.name for a in self._function.args.args or ()]
        index = positional.index(binding.name) if binding.name in positional else None
        argument = keyword_value(self.node, binding.name, index)
        return self._tracker.instance(argument) if argument is not None else None


def helper_trainers(ctx: ModuleContext) -> Iterator[HelperTrainer]:
    tracker = inst.tracker(ctx)
    for instance in tracker.instances:
        call = instance.node
        if instance.ms_class or not isinstance(call, nodes.Call) or call.root() is not ctx.module:
            continue
        function = ctx.resolver.resolve_callable(call.func)
        if not isinstance(function, nodes.FunctionDef):
            continue
        for source in instance.sources:
            if source.is_trainer and isinstance(source.node, nodes.Call) and source.node.scope() is function:
                level = _level_passed(call, function, source)
                if level is not None:
                    yield HelperTrainer(call, level, source, function, tracker)


def _level_passed(call: nodes.Call, function: nodes.FunctionDef, trainer: inst.Instance):
    """The argument of `call` that becomes the trainer's level: a parameter the trainer's level names
    (its argument, else its default), or, for `Model(..., **kwargs)` with the helper's own **kwargs, the
    level keyword the call passes."""
    name = inst.TRAINERS[trainer.ms_name][0]
    level = trainer.level
    if isinstance(level, nodes.Name):
        positional = [a.name for a in function.args.args or ()]
        if level.name not in positional + [a.name for a in function.args.kwonlyargs or ()]:
            return None
        index = positional.index(level.name) if level.name in positional else None
        passed = keyword_value(call, level.name, index)
        if passed is not None:
            return passed
        try:
            return function.args.default_value(level.name)
        except Exception:  # astroid: no default
            return None
    kwarg = function.args.kwarg
    if level is None and kwarg and any(k.arg is None and isinstance(k.value, nodes.Name) and k.value.name == kwarg
                                       for k in trainer.node.keywords or ()):
        return keyword_value(call, name)
    return None
