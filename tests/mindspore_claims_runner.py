"""Run rule-page examples with the real MindSpore and check what their claim block says.

Started by tests/test_mindspore_claims.py with the Python that has MindSpore:

    python tests/mindspore_claims_runner.py --serve    # JSON jobs on stdin, one result per line on stdout
    python tests/mindspore_claims_runner.py --one      # one JSON job on stdin (no fork, e.g. on Windows)

`--serve` imports MindSpore once (3-5 s) and forks a fresh child for every job, so each
example runs in its own process with a clean MindSpore state, in its own working directory
(MindSpore writes rank_0/ there). A job: {"id", "dir", "source", "mode", "drive", "outcome"}
(see scripts/generate_claim_tables.py for the drive keys and the outcomes); a result:
{"id", "ok", "detail", "seconds"}.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback

import numpy as np
import mindspore as ms
from mindspore import nn, ops

TIMEOUT = float(os.environ.get("MSLINT_CLAIM_TIMEOUT", "240"))
VARIES_CALLS = 5  # further calls a "varies" claim may take to show a different value


class ShapeProbe(nn.Cell):
    """`ops.isconstant` of the shape of the net's output (or of output `index`), in graph."""

    def __init__(self, net, index):
        super().__init__()
        self.net = net
        self.index = index

    def construct(self, *args):
        y = self.net(*args)
        if self.index >= 0:
            y = y[self.index]
        return ops.isconstant(y.shape)


class Failed(Exception):
    pass


def set_mode(mode):
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT if mode == "strict" else ms.LAX)


def pin_mode():
    """The runner decides the mode: the example's own set_context(mode=...) is ignored."""
    original = ms.set_context

    def set_context(**kwargs):
        kwargs.pop("mode", None)
        kwargs.pop("jit_syntax_level", None)
        if kwargs:
            original(**kwargs)

    ms.set_context = set_context
    if hasattr(ms, "context"):
        ms.context.set_context = set_context


class ConstructCounter:
    """Records the `self` of every Python-level call of a function named `construct`."""

    def __init__(self):
        self.selves = []

    def __call__(self, frame, event, arg):
        if event == "call" and frame.f_code.co_name == "construct" and "self" in frame.f_locals:
            self.selves.append(frame.f_locals["self"])

    def count(self, target):
        if isinstance(target, type):
            return sum(isinstance(s, target) for s in self.selves)
        return sum(s is target for s in self.selves)


def tensors(value):
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in tensors(item)]
    return [value] if isinstance(value, ms.Tensor) else []


def as_array(value):
    if isinstance(value, (tuple, list)):
        return [as_array(v) for v in value]
    return value.asnumpy() if isinstance(value, ms.Tensor) else value


def same(a, b):
    a, b = as_array(a), as_array(b)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(np.array_equal(a, b))


def shapes_constant(net, args, out):
    """For each tensor output: is its shape constant inside the graph?"""
    if isinstance(out, ms.Tensor):
        return [bool(ShapeProbe(net, -1)(*args))]
    return [bool(ShapeProbe(net, i)(*args)) for i, item in enumerate(out) if isinstance(item, ms.Tensor)]


def error_text(error):
    return f"{type(error).__name__}: {error}"


class Run:
    """One example, run once in this process; `check` evaluates one outcome against it."""

    def __init__(self, job, log_path):
        self.job, self.log_path = job, log_path
        self.drive = job["drive"]
        self.namespace = None
        self.net = self.out = None
        self.args = ()
        self.error = None
        self.counter = ConstructCounter() if "count" in self.drive else None

    def execute(self):
        directory = self.job["dir"]
        name = "example_" + self.job["id"].replace("-", "_").replace(".", "_")
        with open(os.path.join(directory, name + ".py"), "w", encoding="utf-8") as handle:
            handle.write(self.job["source"])
        sys.path.insert(0, directory)
        if self.counter:
            sys.setprofile(self.counter)
        try:
            module = importlib.import_module(name)
            self.namespace = dict(vars(module))
            self.namespace.update({"ms": ms, "np": np, "nn": nn, "ops": ops})
            if "cell" in self.drive:
                self.net = eval(self.drive["cell"], self.namespace)
                self.args = eval(f"({self.drive.get('args', '')},)", self.namespace)
                for _ in range(int(self.drive.get("calls", 1))):
                    self.out = self.net(*self.args)
        except Exception as error:  # the claim says which errors are expected
            self.error = error
            self.trace = traceback.format_exc()
        finally:
            sys.setprofile(None)

    def check(self, outcome):
        """None if the outcome holds, else what was observed."""
        if isinstance(outcome, list):
            for item in outcome:
                problem = self.check(item)
                if problem:
                    return problem
            return None
        if isinstance(outcome, str) and outcome.startswith("error: "):
            expected = outcome[len("error: "):]
            if self.error is None:
                return f"expected an error containing {expected!r}, but it ran (output {self.out!r})"
            if expected not in error_text(self.error):
                return f"expected an error containing {expected!r}, got {error_text(self.error)[:2000]}"
            return None
        if self.error is not None:
            return f"expected it to run, got {error_text(self.error)[:2000]}\n{self.trace[-3000:]}"
        try:
            return self._check_running(outcome)
        except Exception as error:
            return f"checking {outcome!r} raised {error_text(error)[:2000]}\n{traceback.format_exc()[-3000:]}"

    def _need_cell(self, outcome):
        if self.net is None:
            raise Failed(f"{outcome!r} needs a `cell` to call")

    def _check_running(self, outcome):
        if isinstance(outcome, dict):
            names = dict(self.namespace)
            if "cell" in self.drive:
                names.update(net=self.net, args=self.args, out=self.out)
            return None if eval(outcome["holds"], names) else f"{outcome['holds']!r} is false (out={self.out!r})"
        if outcome == "runs":
            return None
        if outcome in ("frozen", "varies"):
            self._need_cell(outcome)
            # a value drawn per call may repeat by chance (2 of 6 labels: 1 in 30), so "varies" asks
            # whether any of a few more calls differs; "frozen" asks that the next call is the same
            for _ in range(VARIES_CALLS if outcome == "varies" else 1):
                again = self.net(*self.args)
                equal = same(self.out, again)
                if not equal:
                    break
            if equal != (outcome == "frozen"):
                return f"two calls returned {as_array(self.out)!r} and {as_array(again)!r}"
            return None
        if outcome in ("dynamic shape", "static shape"):
            self._need_cell(outcome)
            if self.job["mode"] == "pynative":
                raise Failed("shapes are checked in graph mode only")
            constant = shapes_constant(self.net, self.args, self.out)
            if not constant:
                raise Failed("the cell returns no tensor")
            dynamic = not all(constant)
            if dynamic != (outcome == "dynamic shape"):
                return f"ops.isconstant(output.shape) per tensor output: {constant}"
            return None
        if outcome == "zero gradient":
            self._need_cell(outcome)
            grad = ms.grad(self.net, grad_position=0)(*self.args)
            return None if not np.any(grad.asnumpy()) else f"the gradient is {grad!r}"
        if outcome.startswith("ran "):
            expected = int(outcome.split()[1])
            target = self.namespace[self.drive["count"]]
            found = self.counter.count(target)
            return None if found == expected else f"construct of {self.drive['count']} ran {found} times"
        if outcome.startswith("log: "):
            sys.stderr.flush()
            with open(self.log_path, encoding="utf-8", errors="replace") as handle:
                log = handle.read()
            expected = outcome[len("log: "):]
            return None if expected in log else f"the log lacks {expected!r}:\n{log[-3000:]}"
        raise Failed(f"unknown outcome {outcome!r}")


def run_job(job):
    """Run one job in this process; the result dict."""
    started = time.time()
    os.makedirs(job["dir"], exist_ok=True)
    os.chdir(job["dir"])
    log_path = os.path.join(job["dir"], "output.log")
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)  # the example's prints and MindSpore's log lines must not reach the protocol
    os.dup2(log, 2)
    try:
        set_mode(job["mode"])
        pin_mode()
        run = Run(job, log_path)
        run.execute()
        problem = run.check(job["outcome"])
    except Exception as error:
        problem = f"the runner failed: {error_text(error)}\n{traceback.format_exc()}"
    sys.stdout.flush()
    sys.stderr.flush()
    return {"id": job["id"], "ok": problem is None, "detail": problem, "seconds": round(time.time() - started, 2)}


def serve():
    protocol = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        read_end, write_end = os.pipe()
        started = time.time()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            try:
                result = run_job(job)
            except BaseException as error:  # never fall back into the server loop
                result = {"id": job["id"], "ok": False, "detail": f"the runner failed: {error!r}"}
            with os.fdopen(write_end, "w") as out:
                out.write(json.dumps(result))
            os._exit(0)
        os.close(write_end)
        result = wait(pid, read_end, started, job)
        protocol.write(json.dumps(result) + "\n")
        protocol.flush()


def wait(pid, read_end, started, job):
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.time() - started > TIMEOUT:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            os.close(read_end)
            return {"id": job["id"], "ok": False, "detail": f"timed out after {TIMEOUT:.0f} s", "seconds": TIMEOUT}
        time.sleep(0.02)
    with os.fdopen(read_end) as handle:
        text = handle.read()
    if not text:
        return {"id": job["id"], "ok": False, "detail": f"the child died (status {status})",
                "seconds": round(time.time() - started, 2)}
    return json.loads(text)


def main(argv):
    if argv[1:] == ["--serve"]:
        serve()
    elif argv[1:] == ["--one"]:
        protocol = os.fdopen(os.dup(1), "w")
        result = run_job(json.loads(sys.stdin.read()))
        protocol.write(json.dumps(result) + "\n")
        protocol.flush()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
