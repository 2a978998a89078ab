#!/usr/bin/env python3
"""How fast `mslint server` answers an editor: first diagnostics, each edit, a burst of edits.

    python benchmarks/server_latency.py PATH/TO/PROJECT [--file F] [--lines 3000] [--edits 50] [--burst 50]

Starts the real server over stdio (pygls's client, as an editor does; it cannot pull, so the
server pushes), opens one file of the given project (default: the Python file whose length is
closest to --lines, under a `models` folder if there is one), and reports:

- the time to its first diagnostics after opening;
- `--edits` edits one after the other, each waiting for its diagnostics: the time from each
  `didChange` to the diagnostics of that version (median, p95).  Each edit changes a comment
  at the end of the buffer, so every run reads the unsaved text (and the file's importers);
- a burst of `--burst` edits sent within about a second (a fast typist, an editor that does
  not debounce): the time from the last edit to the diagnostics of its version.

The load average is printed next to the figures: on a busy machine they are not comparable.
The project's code is only read (the result cache goes to a temporary directory).
Goals (issue 28): first diagnostics under 1 s and p95 of an edit under 150 ms on a 3k-line
file at low load, and a burst's diagnostics within 1 s of its last edit.
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


def pick_file(project: str, lines_wanted: int) -> str:
    """The Python file closest to `lines_wanted` lines, preferring those under a models folder."""
    best, best_key = None, None
    for folder, subfolders, names in os.walk(project):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().count("\n")
                key = (os.sep + "models" not in folder, abs(lines - lines_wanted))
                if best is None or key < best_key:
                    best, best_key = path, key
    if best is None:
        raise SystemExit(f"no Python file under {project}")
    return best


async def measure(project: str, path: str, edits: int, burst: int):
    client = LanguageClient("mslint-benchmark", "1")
    arrived = asyncio.Event()
    uri = path_to_uri(path)
    published = {"version": None}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(*args):
        if args[-1].uri == uri:
            published["version"] = args[-1].version
            arrived.set()

    async def diagnostics_of(version: int) -> None:
        while published["version"] != version:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 120)

    def change(version: int, text: str) -> None:
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text + f"\n# edit {version}\n")]))

    cache = tempfile.mkdtemp(prefix="mslint-server-bench-")
    await client.start_io(sys.executable, "-m", "mslint", "server", cwd=project,
                          env=dict(os.environ, MSLINT_CACHE_DIR=cache))
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                       root_uri=path_to_uri(project)))
    client.initialized(lsp.InitializedParams())
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    start = time.perf_counter()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    await diagnostics_of(1)
    first = time.perf_counter() - start
    timings = []
    version = 1
    for _ in range(edits):
        version += 1
        start = time.perf_counter()
        change(version, text)
        await diagnostics_of(version)
        timings.append(time.perf_counter() - start)
    burst_time = None
    if burst:
        for _ in range(burst):
            version += 1
            change(version, text)
            await asyncio.sleep(1.0 / burst)
        start = time.perf_counter()
        await diagnostics_of(version)
        burst_time = time.perf_counter() - start
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.1)
    await client.stop()
    return first, timings, burst_time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", help="a project directory, e.g. mindone's source tree")
    parser.add_argument("--file", help="the file to open, relative to the project (default: see --lines)")
    parser.add_argument("--lines", type=int, default=3000, help="the length of the file to pick (default 3000)")
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--burst", type=int, default=50, help="edits in the burst, sent within a second (0: none)")
    args = parser.parse_args()
    project = os.path.abspath(args.project)
    path = os.path.join(project, args.file) if args.file else pick_file(project, args.lines)
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().count("\n")
    load_before = os.getloadavg()
    first, timings, burst_time = asyncio.run(measure(project, path, args.edits, args.burst))
    load_after = os.getloadavg()
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    print(f"file: {os.path.relpath(path, project)} ({lines} lines)")
    print(f"machine: {os.cpu_count()} cores; load average (1 min) {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after")
    print(f"first diagnostics after opening: {first * 1000:.0f} ms (goal < 1000 ms)")
    print(f"didChange -> diagnostics over {len(timings)} edits: median {statistics.median(timings) * 1000:.0f} ms, "
          f"p95 {p95 * 1000:.0f} ms (goal < 150 ms)")
    if burst_time is not None:
        print(f"{args.burst} edits in about 1 s: the last edit's diagnostics {burst_time * 1000:.0f} ms after it "
              "(goal < 1000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
