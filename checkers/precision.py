"""MS6xx: mixed precision. Custom `Cell.to_float` next to `amp_level`, a network converted
twice, a loss computed in float16.

MindSpore 2.10 (train/amp.py): `Model(..., amp_level=L)` and `amp.build_train_network(...,
level=L)` convert the network again; at O2 and O3 they cast it to float16 recursively, so
cells the user kept in float32 run in float16 (observed: `net.head.to_float(ms.float32)` is
Float16 after `Model(net, ..., amp_level="O2")`, kept at O1). A loss cell in float16
overflows (`nn.WithLossCell(net, nn.MSELoss()).to_float(ms.float16)` gives `inf`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Set

from astroid import nodes

from mslint.checkers import precision_cell_loops as cell_loops
from mslint.checkers import precision_losses as losses_run
from mslint import fixes
from mslint.analysis import instances as inst
from mslint.project import mindspore_names as msn
from mslint.analysis.context import ModuleContext
from mslint.project.classes import keyword_value
from mslint.messages import capitalized, compose, snippet
from mslint.findings import Finding, shown
from mslint.rules import Rule, implements
from mslint.checkers.precision_helper_trainers import helper_trainers
from mslint.checkers.precision_to_float import HALF as _HALF, float32_in_effect, runs_before

TO_FLOAT_WITH_AMP = Rule(
    "MS601", "to-float-with-amp-level", "warning",
    "A network with custom `to_float` precision is trained by Model/build_train_network with an amp_level "
    "other than \"O0\", which converts it again.",
    "Don't set amp_level in Model if you use custom mixed precision: keep amp_level=\"O0\" (the default); or drop "
    "the manual to_float and let amp_level decide (keep_batchnorm_fp32=, amp.custom_mixed_precision with "
    "white_list/black_list for exceptions).",
)
DOUBLE_MIXED_PRECISION = Rule(
    "MS602", "double-mixed-precision", "warning",
    "A network converted by amp.auto_mixed_precision/custom_mixed_precision is converted again (amp_level other "
    "than \"O0\", or a second conversion).",
    "After auto_mixed_precision or custom_mixed_precision, train the converted network with amp_level=\"O0\" "
    "(Model, build_train_network); convert a network once.",
)
LOSS_IN_FLOAT16 = Rule(
    "MS603", "loss-in-float16", "warning",
    "The loss is computed in float16 (a loss cell cast to float16, or float16 logits into a loss not kept in "
    "float32).",
    "Keep the loss in float32: `loss = nn.SoftmaxCrossEntropyWithLogits(...).to_float(ms.float32)` after casting "
    "the network with `net.to_float(ms.float16)`.",
)
RULES = (TO_FLOAT_WITH_AMP, DOUBLE_MIXED_PRECISION, LOSS_IN_FLOAT16)

_SINGLE = frozenset({"float32", "single"})
_OVERWRITING = frozenset({"O2", "O3"})
_LOSS_BASES = frozenset({"LossBase", "Cell"})
# the cells O2 keeps in float32 (mindspore/train/amp.py's black list, 2.10)
_KEPT_AT_O2 = frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm"})


def _trainers(ctx: ModuleContext):
    """(trainer instance, its literal level or None when unknown) for converting trainers in this module,
    and calls of project helpers that build one with the level they are given (`create_trainer(net, ...,
    amp_level="O2")` returning `Model(network, ..., **kwargs)`)."""
    for trainer in inst.tracker(ctx).instances:
        if trainer.is_trainer and trainer.level is not None and trainer.node.root() is ctx.module \
                and not _without_optimizer(trainer):
            level = inst.const_str(trainer.level)
            if level is None or level.upper() != "O0":
                yield trainer, level
    for helper in helper_trainers(ctx):
        if _without_optimizer(helper.trainer):
            continue
        level = inst.const_str(helper.level)
        if level is not None and level.upper() != "O0":
            yield helper, level


def _without_optimizer(trainer: inst.Instance) -> bool:
    """`Model(train_cell, amp_level="O3")` with no optimizer converts nothing: MindSpore 2.10 raises
    "Auto mixed precision will not work because 'optimizer' is None" at construction (a
    ValueError), before any level applies (checked: tests/test_mindspore_claims.py)."""
    call = trainer.node
    if trainer.ms_name != "Model" or not isinstance(call, nodes.Call):
        return False
    if any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
        return False  # *args / **kwargs may pass one
    optimizer = keyword_value(call, "optimizer", 2)
    return optimizer is None or (isinstance(optimizer, nodes.Const) and optimizer.value is None)


def _trainer_text(trainer: inst.Instance) -> str:
    argument = "amp_level" if trainer.ms_name == "Model" else "level"
    if isinstance(trainer.level.parent, nodes.Keyword):
        argument = trainer.level.parent.arg  # a helper's own keyword: build(net, ..., level="O3")
    return f"{trainer.node.func.as_string()}(..., {argument}={trainer.level.as_string()}) (line {trainer.node.lineno})"


# Levels after which a sub-cell's to_float(float32) still holds (checked on MindSpore 2.10 with a
# weight that rounds differently in float16: tests/test_precision.py); O2 and O3
# override it, for Model, build_train_network and auto_mixed_precision alike.
_KEEPING_LEVELS = frozenset({"O0", "O1", "AUTO"})


def _overrides(level: Optional[str]) -> bool:
    """Whether a level overrides to_float(float32): O2/O3 do; an unknown level may."""
    return level is None or level.upper() not in _KEEPING_LEVELS


def _effect(level: Optional[str]) -> str:
    if level is None:
        return ("Unless the level is \"O0\", \"O1\" or \"auto\", it overrides that (O2 and O3 cast the network "
                "to float16, this cell too)")
    if level.upper() == "O2":
        return ("O2 casts the whole network to float16 again and overwrites it: cells kept in float32 run in "
                "float16 (O2 keeps only BatchNorm and LayerNorm in float32, by its own rule)")
    if level.upper() == "O3":
        return "O3 casts every cell to float16 again and overwrites it: cells kept in float32 run in float16"
    return f"{level} converts the cells you did not set by its own lists: two mixed-precision policies on one network"


def _call_text(call: nodes.Call) -> str:
    return shown(call, 70)


@dataclass
class _Conversion:
    """Where a level converts a network: a trainer (Model, build_train_network) or
    amp.auto_mixed_precision; `anchor` is where a finding about it goes."""
    call: nodes.Call
    anchor: nodes.NodeNG
    level: Optional[str]
    network: inst.Instance
    trainer: Optional[inst.Instance] = None

    def on_the_network(self) -> str:
        if self.trainer is not None:
            return f"It is on the network trained by {_trainer_text(self.trainer)}"
        return f"It is on the network that '{_call_text(self.call)}' (line {self.call.lineno}) converts afterwards"

    def level_text(self) -> str:
        """'amp_level O2', 'level O3', or 'a level' when it is unknown."""
        if self.level is None:
            return "a level"
        return f"{'amp_level' if self.trainer is not None else 'level'} {self.level}"

    def guide(self) -> str:
        if self.trainer is not None:
            return "The migration guide: \"don't set amp_level in Model if you use custom mixed precision\" " \
                   "(keep the default \"O0\")"
        return "The migration guide: custom mixed precision and a level do not mix (convert with one of them)"

    def fix(self) -> Optional[fixes.Fix]:
        return _level_o0_fix(self.trainer) if self.trainer is not None else None


def _conversions(ctx: ModuleContext) -> Iterator[_Conversion]:
    """The overriding conversions (O2, O3 or an unknown level) made in this module."""
    for trainer, level in _trainers(ctx):
        network = trainer.role("network")
        if network is not None and _overrides(level):
            yield _Conversion(trainer.node, trainer.level, level, network, trainer)
    for instance in inst.tracker(ctx).instances:
        for amp in instance.events:
            if amp.kind != "amp" or amp.value != "auto_mixed_precision" or amp.node.root() is not ctx.module:
                continue
            level = inst.const_str(amp.uses[0]) if amp.uses else "O0"
            if _overrides(level):
                yield _Conversion(amp.node, amp.node, level, instance)


def _ran_before(conversion: _Conversion):
    """Whether a to_float ran before the level converts. A trainer converts when it is built
    (Model.__init__ calls build_train_network), so a to_float known to run after the trainer's
    call survives (checked on 2.10); an unknown order counts as before. For
    auto_mixed_precision, an unknown order is decided by position in one module."""
    if conversion.trainer is not None:
        return lambda event: not _after_in_one_function(conversion.call, event.node)

    def ordered(event: inst.Event) -> bool:
        known = runs_before(event.node, conversion.call)
        if known is not None:
            return known
        return event.node.root() is not conversion.call.root() or event.position < inst.position(conversion.call)
    return ordered


def _after_in_one_function(first: nodes.NodeNG, second: nodes.NodeNG) -> bool:
    return inst.frame_of(first) is inst.frame_of(second) and inst.position(first) < inst.position(second)


@implements(TO_FLOAT_WITH_AMP)
def check_to_float_with_amp(ctx: ModuleContext) -> Iterator[Finding]:
    reported: Set[nodes.NodeNG] = set()
    for conversion in _conversions(ctx):
        elsewhere = []
        for event, cell in float32_in_effect(conversion.network, conversion.call, _ran_before(conversion)):
            if event.node in reported or _kept_by_o2(event, cell, conversion.level):
                continue
            if event.node.root() is not ctx.module:
                elsewhere.append(event)
                continue
            reported.add(event.node)
            yield ctx.finding(
                TO_FLOAT_WITH_AMP, event.node,
                compose(f"{snippet(event.node)} sets custom mixed precision that {conversion.level_text()} "
                        f"{'may override' if conversion.level is None else 'overrides'}",
                        conversion.on_the_network(), _effect(conversion.level), conversion.guide()),
                fix=conversion.fix(),
            )
        if elsewhere:
            first = min(elsewhere, key=lambda e: (e.node.root().file or "", e.position))
            converts = _trainer_text(conversion.trainer) if conversion.trainer is not None \
                else f"'{_call_text(conversion.call)}'"
            yield ctx.finding(
                TO_FLOAT_WITH_AMP, conversion.anchor,
                compose(f"{capitalized(conversion.level_text())} here "
                        f"{'may override' if conversion.level is None else 'overrides'} the network's custom mixed "
                        "precision",
                        f"The network {'trained' if conversion.trainer is not None else 'converted'} here has custom "
                        f"mixed precision ('{_call_text(first.node)}' in {_file(first.node)}, line {first.node.lineno}), "
                        f"and {converts} converts it {'again' if conversion.trainer is not None else 'afterwards'}",
                        _effect(conversion.level), conversion.guide()),
                fix=conversion.fix(),
            )


def _level_o0_fix(trainer: inst.Instance) -> fixes.Fix:
    """amp_level="O2" -> "O0", as the migration guide says for custom mixed precision.  Unsafe: the
    to_float calls may be the mistake instead, and O2/O3 also set up loss scaling and BatchNorm rules."""
    return fixes.fix(fixes.UNSAFE, 'keep amp_level "O0" with custom mixed precision',
                     fixes.replace_node(trainer.level, '"O0"'))


def _file(node) -> str:
    import os

    return os.path.basename(node.root().file or "?")


def _converting(event: inst.Event) -> Optional[str]:
    """'auto_mixed_precision(net, "O2")' converts; level "O0" does not; None when it does not."""
    if event.value == "custom_mixed_precision":
        return "custom_mixed_precision"
    level = inst.const_str(event.uses[0]) if event.uses else "O0"
    if level is not None and level.upper() == "O0":
        return None
    return f"auto_mixed_precision (level {level or 'unknown'})"


@implements(DOUBLE_MIXED_PRECISION)
def check_double_mixed_precision(ctx: ModuleContext) -> Iterator[Finding]:
    for trainer, level in _trainers(ctx):
        network = trainer.role("network")
        if network is None:
            continue
        conversions = [e for cell in inst.walk_inside(network) for e in cell.events
                       if e.kind == "amp" and not e.path and _converting(e)]
        if conversions:
            first = min(conversions, key=lambda e: e.position)
            yield ctx.finding(
                DOUBLE_MIXED_PRECISION, trainer.level,
                compose(f"The network is converted twice: at line {first.node.lineno} and by this level",
                        f"'{_call_text(first.node)}' converted it; {_trainer_text(trainer)} converts it again",
                        _effect(level),
                        "MindSpore: after custom_mixed_precision or auto_mixed_precision \"amp_level need to be "
                        "configured to O0 to avoid the duplicated accuracy conversion\""),
            )
    for instance in inst.tracker(ctx).instances:
        conversions = sorted((e for e in instance.events if e.kind == "amp" and _converting(e)),
                             key=lambda e: e.position)
        for earlier, later in zip(conversions, conversions[1:]):
            if later.node.root() is ctx.module and later.scope is earlier.scope and \
                    not _exclusive_branches(earlier.node, later.node):
                yield ctx.finding(
                    DOUBLE_MIXED_PRECISION, later.node,
                    compose(f"{snippet(later.node)} converts again a network converted at line {earlier.node.lineno}",
                            f"The first conversion is '{_call_text(earlier.node)}'",
                            "MindSpore logs \"repeated calls to mixed-precision interfaces can cause performance "
                            "degradation\" and the later level wins"),
                )


def _exclusive_branches(first, second) -> bool:
    """Whether the two nodes sit in different arms of one `if` (or one `try`'s handlers): never both run."""
    child = first
    for ancestor in first.node_ancestors():
        if isinstance(ancestor, (nodes.If, nodes.IfExp)):
            arms = [ancestor.body, ancestor.orelse]
            arms = [[arm] if isinstance(arm, nodes.NodeNG) else list(arm) for arm in arms]
            mine = [i for i, arm in enumerate(arms) if child in arm]
            other = [i for i, arm in enumerate(arms) if any(_within(second, node) for node in arm)]
            if mine and other and mine[0] != other[0]:
                return True
        child = ancestor
    return False


def _within(node, root) -> bool:
    return node is root or any(a is root for a in node.node_ancestors())


# -- MS603 ----------------------------------------------------------------------------------------
_LOSS_CLASS_NAME = re.compile(r"(Loss|Criterion)$")


def _is_loss_name(qualname: str) -> bool:
    last = qualname.rsplit(".", 1)[-1]
    return (last.endswith("Loss") or last == "LossBase" or last.startswith("SoftmaxCrossEntropy")) \
        and msn.is_mindspore(qualname)


def _is_loss(ctx: ModuleContext, instance: inst.Instance) -> bool:
    if any(_is_loss_name(q) for q in instance.ms_classes()):
        return True
    for cls in instance.classes():
        if not ctx.classes.is_cell(cls):
            continue
        for klass in ctx.classes.mro(cls):
            if any(isinstance(b, str) and _is_loss_name(b) for b in ctx.classes.base_entries(klass)):
                return True
            if _LOSS_CLASS_NAME.search(klass.name):
                return True  # a project Cell named as a loss (FocalLoss(nn.Cell), DiceLoss, YoloLoss)
    return False


def _kept_in_float32(loss: inst.Instance, after: Optional[inst.Event] = None,
                     network: Optional[inst.Instance] = None) -> bool:
    for event in inst.own_events(loss, "to_float"):
        if event.value in _SINGLE and losses_run.later(event, after):
            return True
    return _kept_by_cell_loop(loss, after, network)


def _kept_by_cell_loop(loss: inst.Instance, after: Optional[inst.Event],
                       network: Optional[inst.Instance] = None) -> bool:
    """`for _, cell in net.cells_and_names(): if isinstance(cell, nn.MSELoss): cell.to_float(ms.float32)`
    on a network holding the loss (a wrapper of it, or `network`, the cell cast to float16 whose
    class holds it), in place or in a helper the network is passed to (the loop MS601 follows
    too): the loss is set back to float32 when the loop's isinstance guard names its class, a
    loss base class, or there is no guard."""
    names = {q.rsplit(".", 1)[-1] for q in loss.ms_classes()} | {c.name for c in loss.classes()} | _LOSS_BASES
    for outer in [loss] + [wrapper for _, wrapper in loss.outer()] + ([network] if network is not None else []):
        for event in cell_loops.loop_casts(outer):
            if event.value in _SINGLE and losses_run.later(event, after) and cell_loops.admits(event.node, names):
                return True
    return False


def _kept_by_o2(event: inst.Event, cell: inst.Instance, level: Optional[str]) -> bool:
    """O2 keeps BatchNorm and LayerNorm in float32 itself (it wraps them to compute in float32;
    checked on 2.10), so their to_float(float32) is not overridden there; O3 casts them too."""
    if level is None or level.upper() != "O2":
        return False
    if event.path[-1:] == ("*",):
        guards = cell_loops.guard_classes(event.node)
        return bool(guards) and any(classes <= _KEPT_AT_O2 for classes in guards)
    return cell.ms_name in _KEPT_AT_O2


def _wraps_a_network(ctx: ModuleContext, instance: inst.Instance) -> bool:
    """A project Cell holding a loss beside other cells (`NetWithLoss` keeping `self.net` and
    `self.loss`): a wrapper, whose loss is the one to keep in float32."""
    held = [cell for origin in instance.origins() if origin.cls is not None
            for cell in losses_run.direct_cells(origin) if cell is not origin]
    return any(_is_loss(ctx, cell) for cell in held) and any(not _is_loss(ctx, cell) for cell in held)


def _half_casts(instance: inst.Instance) -> List[inst.Event]:
    return [e for e in inst.own_events(instance, "to_float") if e.value in _HALF]


@implements(LOSS_IN_FLOAT16)
def check_loss_in_float16(ctx: ModuleContext) -> Iterator[Finding]:
    tracker = inst.tracker(ctx)
    reported: Set[nodes.NodeNG] = set()
    for instance in tracker.instances:
        # the casts made on this very instance: a helper's parameter stands for the arguments of every
        # call, and their casts are checked with their own instance, not mixed through it
        for cast in [e for e in instance.events if e.kind == "to_float" and not e.path and e.value in _HALF]:
            if cast.node.root() is not ctx.module or cast.node in reported:
                continue
            if _is_loss(ctx, instance) and not _wraps_a_network(ctx, instance):
                # (a level does not help: Model at O2 trains a loss cast to float16 in float16, checked on
                # 2.10 with MSE 90000: inf, 90000.0 with the loss left alone; tests/test_precision.py)
                if _kept_in_float32(instance, cast):
                    continue
                reported.add(cast.node)
                yield ctx.finding(
                    LOSS_IN_FLOAT16, cast.node,
                    compose(f"{snippet(cast.node)} computes the loss in {cast.value}",
                            "Large values overflow to inf (MindSpore 2.10: MSELoss on outputs of magnitude 100 gives "
                            "inf in Float16)", "Keep the loss in float32 with .to_float(ms.float32)"),
                )
                continue
            itself = {id(same) for same in inst.same_object(instance)}
            losses = [c for c in inst.walk_inside(instance, losses_run.computed)
                      if id(c) not in itself and _is_loss(ctx, c) and not _wraps_a_network(ctx, c)]
            unprotected = [loss for loss in losses if not _kept_in_float32(loss, cast, instance)]
            if unprotected:
                reported.add(cast.node)
                yield ctx.finding(
                    LOSS_IN_FLOAT16, cast.node,
                    compose(f"{snippet(cast.node)} also casts the loss inside it to {cast.value}",
                            f"The loss is '{unprotected[0].display}'; large values overflow to inf (MindSpore "
                            "2.10: WithLossCell(net, MSELoss()) in float16 gives inf)",
                            "Keep the loss in float32: loss.to_float(ms.float32) after this call"),
                )
    yield from _float16_logits_into_loss(ctx, tracker)


# Losses whose labels are class indices (ints): nothing in them promotes float16 logits
# (checked on 2.10: sparse SoftmaxCrossEntropyWithLogits and CrossEntropyLoss give Float16 losses)
_INDEX_LABEL_LOSSES = frozenset({"CrossEntropyLoss", "NLLLoss"})


def _takes_class_indices(loss: inst.Instance) -> bool:
    if loss.ms_name in _INDEX_LABEL_LOSSES:
        return True
    if loss.ms_name == "SoftmaxCrossEntropyWithLogits" and isinstance(loss.node, nodes.Call):
        sparse = keyword_value(loss.node, "sparse", 0)
        return isinstance(sparse, nodes.Const) and sparse.value is True
    return False


def _float16_logits_into_loss(ctx: ModuleContext, tracker: inst.InstanceTracker) -> Iterator[Finding]:
    """net.to_float(ms.float16) combined with a loss left in its input dtype (WithLossCell, Model at O0)."""
    for combiner in tracker.instances:
        if combiner.node is None or not isinstance(combiner.node, nodes.Call) \
                or combiner.node.root() is not ctx.module:
            continue
        if combiner.ms_name == "WithLossCell":
            network, loss = combiner.role("backbone"), combiner.role("loss_fn")
        elif combiner.is_trainer:
            level = inst.const_str(combiner.level) if combiner.level is not None else "O0"
            if level is None or level.upper() != "O0":
                continue
            network, loss = combiner.role("network"), combiner.role("loss_fn")
        else:
            continue
        if network is None or loss is None or not _is_loss(ctx, loss) or not _takes_class_indices(loss):
            continue  # a loss whose labels are floats computes in float32: float32 labels promote it
        casts = _half_casts(network)
        if not casts or inst.own_events(loss, "to_float") or _kept_by_cell_loop(loss, casts[0]) \
                or losses_run.logits_restored(network, casts[0]):
            continue  # the loss is set to float32, or the logits are (a loop over the Dense cells)
        argument = inst.argument_for(combiner.node, tracker, loss)
        yield ctx.finding(
            LOSS_IN_FLOAT16, argument if argument is not None else combiner.node,
            compose(f"The loss {snippet(loss.display)} computes in {casts[0].value}: its logits come from a "
                    f"{casts[0].value} network",
                    f"'{network.display}' runs in {casts[0].value} ('{_call_text(casts[0].node)}', line "
                    f"{casts[0].node.lineno}); the loss's labels are class indices, so nothing promotes it (MindSpore "
                    "2.10: a Float16 loss; a loss with float32 labels, such as MSELoss, is promoted to float32)",
                    "The migration guide keeps the loss in float32: \"Otherwise, float16 is used for calculation of "
                    "the loss part, which may cause overflow\" -> loss.to_float(ms.float32)"),
        )
