#!/usr/bin/env python3
"""How fast `mslint server` answers an editor: time from `didChange` to published diagnostics.

    python benchmarks/server_latency.py PATH/TO/mindcv [--file models/resnet.py] [--edits 50]

Starts the real server over stdio (pygls's client, as an editor does), opens one model file
of the given project (default: the largest file under models/ of about 400 lines), waits for
its first diagnostics (reported: the time to first diagnostics after opening), then makes
`--edits` edits one after the other (each changes a comment at the end of the buffer, so the
analysis is redone from the unsaved text) and measures each edit's time until the server
publishes diagnostics for it. Prints the median and the 95th percentile. The project's code
is only read; nothing is written to it (the result cache goes to a temporary directory).
Goals (issue: mslint server): first diagnostics under 1 s in mindcv, median and p95 of an
edit under 150 ms on a 2-core machine.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPOSITORY)
from mslint.frontends.lsp_convert import path_to_uri  # noqa: E402


def pick_file(project: str) -> str:
    """The model file closest to 400 lines."""
    best, best_distance = None, None
    for folder, _, names in os.walk(project):
        for name in names:
            if name.endswith(".py") and os.sep + "models" in folder:
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().count("\n")
                distance = abs(lines - 400)
                if best is None or distance < best_distance:
                    best, best_distance = path, distance
    if best is None:
        raise SystemExit(f"no models/*.py under {project}")
    return best


async def measure(project: str, path: str, edits: int):
    client = LanguageClient("mslint-benchmark", "1")
    arrived = asyncio.Event()
    uri = path_to_uri(path)
    versions = {"published": 0}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(*args):
        if args[-1].uri == uri:
            versions["published"] += 1
            arrived.set()

    cache = tempfile.mkdtemp(prefix="mslint-server-bench-")
    await client.start_io(sys.executable, "-m", "mslint", "server", cwd=project,
                          env=dict(os.environ, MSLINT_CACHE_DIR=cache))
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                       root_uri=path_to_uri(project)))
    client.initialized(lsp.InitializedParams())
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    start = time.perf_counter()
    arrived.clear()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    await asyncio.wait_for(arrived.wait(), 120)
    first = time.perf_counter() - start
    timings = []
    for version in range(2, edits + 2):
        arrived.clear()
        start = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text + f"\n# edit {version}\n")]))
        await asyncio.wait_for(arrived.wait(), 120)
        timings.append(time.perf_counter() - start)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.1)
    await client.stop()
    return first, timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", help="a project directory, e.g. an extracted mindcv wheel's mindcv/ folder")
    parser.add_argument("--file", help="the file to open, relative to the project (default: a ~400-line model)")
    parser.add_argument("--edits", type=int, default=50)
    args = parser.parse_args()
    project = os.path.abspath(args.project)
    path = os.path.join(project, args.file) if args.file else pick_file(project)
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().count("\n")
    first, timings = asyncio.run(measure(project, path, args.edits))
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    print(f"file: {os.path.relpath(path, project)} ({lines} lines); machine load {os.getloadavg()[0]:.1f}")
    print(f"first diagnostics after opening: {first * 1000:.0f} ms (goal < 1000 ms)")
    print(f"didChange -> diagnostics over {len(timings)} edits: median {statistics.median(timings) * 1000:.0f} ms, "
          f"p95 {p95 * 1000:.0f} ms (goal < 150 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
