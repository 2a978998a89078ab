"""`mslint server`: a language server over stdio (pygls), with live diagnostics and quick fixes.

Every open Python document is linted together with the others, as the command would lint
them if they were saved (mslint/frontends/buffers.py): a helper edited in one buffer updates
the findings of the models that reach it in another, and importers outside the open files
count too.

- Positions are counted in the encoding negotiated at initialisation (UTF-8, UTF-16 or
  UTF-32: the client's first preference the server knows), for every range and edit.
- One diagnostic channel per client: pull (`textDocument/diagnostic`) when the client can
  pull and can be told to pull again (`workspace/diagnostic/refresh`: a buffer's edit
  changes other buffers' findings); push (`textDocument/publishDiagnostics`) otherwise.
- Edits in a burst are debounced (DEBOUNCE_SECONDS); an edit after a quiet spell starts its
  run at once.  A newer edit stops the run under way (between files), and results are only
  ever sent for the documents' current versions.
- Files changed on disk: watched through `workspace/didChangeWatchedFiles` where the client
  can register watchers dynamically; otherwise every save checks again.

The configuration is looked up afresh for every run, so a change to pyproject.toml applies
without a restart.  Nothing a document contains can stop the server: a syntax error is
MS001, a failing rule MS003, and anything else is logged and the server keeps serving.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from typing import Callable, Dict, List, Optional, Tuple

from mslint import __version__
from mslint import config as config_module
from mslint.frontends.heap import HeapKeeper

try:  # the server extra; without it main() says how to install it
    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

    from mslint.frontends import lsp_convert as convert  # imports lsprotocol too
except ImportError:
    lsp = convert = None
    LanguageServer = object

DEBOUNCE_SECONDS = 0.05
# What is watched on disk: a helper's change, a configuration's, the files a run skips.
WATCHED = ("**/*.py", "**/pyproject.toml", "**/setup.cfg", "**/.gitignore")
log = logging.getLogger("mslint.frontends.server")


class MslintServer(LanguageServer):
    def __init__(self):
        super().__init__("mslint", __version__)
        from mslint.frontends.buffers import BufferLinter

        self.linter = BufferLinter()
        self.heap = HeapKeeper()  # main() starts its policy (mslint/frontends/heap.py)
        self.idle: Optional[asyncio.TimerHandle] = None  # the collection after a quiet spell
        self.encoding = convert.UTF16 if convert else "utf-16"
        self.pull = False  # the diagnostic channel: pull, else push
        self.generation = 0  # bumped by every change: results of an older one are never sent
        self.current = -1  # the generation self.findings are for
        self.findings: Dict[str, list] = {}  # uri -> findings of the last run of the current generation
        self.diagnostics: Dict[str, list] = {}  # uri -> those findings as diagnostics
        self.versions: Dict[str, Optional[int]] = {}  # uri -> the document version they are for
        self.pending: Optional[asyncio.TimerHandle] = None
        self.running: Optional[int] = None  # the generation of the run under way
        self.last_change = float("-inf")  # the event loop's time of the last change
        self._settled: Optional[asyncio.Event] = None
        # a lint (in an executor thread) and a fix-all share the runner's session state: one at a time
        self.analysis = threading.Lock()

    # -- documents ------------------------------------------------------------------------------
    def open_documents(self) -> Dict[str, Tuple[str, Optional[int]]]:
        """uri -> (text, version) of every open document that is a Python file."""
        found = {}
        for uri, document in list(self.workspace.text_documents.items()):
            if uri.startswith("file:") and uri.endswith((".py", ".pyi")):
                found[uri] = (document.source, document.version)
        return found

    def lines_of_file(self, path: str) -> Optional[List[str]]:
        uri = convert.path_to_uri(path)
        if uri in self.workspace.text_documents:
            return convert.lines_of(self.workspace.text_documents[uri].source)
        from mslint.run.runner import read_source

        try:
            return convert.lines_of(read_source(path))  # decoded as the run decoded it (coding cookie)
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            return None

    # -- linting --------------------------------------------------------------------------------
    def lint(self, texts: Dict[str, str], generation: Optional[int] = None,
             early: Optional[Callable[[Dict[str, list]], None]] = None) -> Optional[Dict[str, list]]:
        """uri -> findings for the given texts (every uri has an entry); None when a newer
        change made the run outdated before it finished.  `early` may get the buffers' own
        findings first (see BufferLinter.lint), in this thread."""
        paths = {convert.uri_to_path(uri): uri for uri in texts}
        outdated = (lambda: False) if generation is None else (lambda: generation != self.generation)
        by_uri = None if early is None else (
            lambda by_path: early({paths[path]: found for path, found in by_path.items()}))
        with self.analysis:
            by_path = self.linter.lint({path: texts[uri] for path, uri in paths.items()}, outdated, by_uri)
        if by_path is None:
            return None
        return {paths[path]: found for path, found in by_path.items()}

    async def refresh(self) -> None:
        """Lint the open documents and, if nothing changed meanwhile, send the results: the
        buffers' own findings as soon as they are known, when the analyses of their importers
        still to run showed nothing in them last time (mslint.run.kept_projects), then all."""
        generation = self.generation
        snapshot = self.open_documents()
        loop = asyncio.get_running_loop()

        def early(results: Dict[str, list]) -> None:  # (in the run's thread)
            loop.call_soon_threadsafe(self.publish, generation, results, snapshot)

        self.running = generation
        try:
            results = await loop.run_in_executor(None, self.lint, {uri: text for uri, (text, _) in snapshot.items()},
                                                 generation, early)
        finally:
            if self.running == generation:
                self.running = None
        if results is None or generation != self.generation:
            return  # outdated: the newer change's own run sends its results
        self.publish(generation, results, snapshot)
        await self.tend_heap(generation)

    def publish(self, generation: int, results: Dict[str, list], snapshot: Dict[str, Tuple[str, Optional[int]]]
                ) -> None:
        """Make these the findings of the documents (unless a newer change came in), and send
        what changed: the diagnostics (push), or a request to pull again (pull)."""
        if generation != self.generation or (generation == self.current and results == self.findings):
            return  # outdated, or what the early findings of this run already said
        previous, previous_versions = self.diagnostics, self.versions
        self.findings = results
        self.diagnostics = self.as_diagnostics(results, snapshot)
        self.versions = {uri: version for uri, (_, version) in snapshot.items()}
        self.current = generation
        self.settled.set()
        changed = [uri for uri in list(self.diagnostics) + [uri for uri in previous if uri not in self.diagnostics]
                   if self.diagnostics.get(uri) != previous.get(uri)
                   or self.versions.get(uri) != previous_versions.get(uri)]
        if self.pull:
            if changed:
                self.workspace_diagnostic_refresh(None)  # other buffers' findings may have changed
        else:
            for uri in changed:
                self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                    uri=uri, diagnostics=self.diagnostics.get(uri, []), version=self.versions.get(uri)))

    def as_diagnostics(self, results: Dict[str, list], snapshot: Dict[str, Tuple[str, Optional[int]]]
                       ) -> Dict[str, list]:
        """uri -> diagnostics; each buffer and each other file a call chain names is split into
        lines once (a buffer of 3,000 lines, split again for every finding, cost an edit ~20 ms)."""
        other_files: Dict[str, Optional[List[str]]] = {}

        def lines_of_file(path: str) -> Optional[List[str]]:
            if path not in other_files:
                other_files[path] = self.lines_of_file(path)
            return other_files[path]

        diagnostics = {}
        for uri, found in results.items():
            lines = convert.lines_of(snapshot[uri][0])
            diagnostics[uri] = [convert.diagnostic(f, lines, lines_of_file, self.encoding) for f in found]
        return diagnostics

    async def tend_heap(self, generation: int) -> None:
        """After results went out: freeze what the lint left, and collect when it stays quiet."""
        if not self.heap.started:
            return
        loop = asyncio.get_running_loop()

        def freeze() -> None:
            with self.analysis:
                self.heap.after_lint()
        await loop.run_in_executor(None, freeze)
        if self.idle is not None:
            self.idle.cancel()

        def quiet() -> None:
            self.idle = None
            if generation == self.generation and self.running is None:
                loop.run_in_executor(None, self.heap.when_idle, self.analysis)
        self.idle = loop.call_later(self.heap.idle_seconds(), quiet)

    @property
    def settled(self) -> asyncio.Event:
        """Set when the findings are those of the current generation (made in the event loop)."""
        if self._settled is None:
            self._settled = asyncio.Event()
        return self._settled

    async def up_to_date(self) -> None:
        """Wait until the findings are those of the documents as they are now."""
        while self.current != self.generation:
            if self.pending is None and self.running != self.generation:
                self.schedule(0, changed=False)
            self.settled.clear()
            await self.settled.wait()

    def schedule(self, delay: float = DEBOUNCE_SECONDS, changed: bool = True) -> None:
        """Run again after `delay` seconds without a change (a change makes earlier runs outdated).

        The debounce only holds back edits that come in a burst: an edit after a quiet spell
        (no run under way or waiting, no change for DEBOUNCE_SECONDS) starts its run at once,
        so a single keystroke does not wait out a delay meant for fast typing."""
        loop = asyncio.get_running_loop()
        if changed:
            self.generation += 1
            if self.idle is not None:  # not quiet after all
                self.idle.cancel()
                self.idle = None
            now = loop.time()
            quiet = (self.pending is None and self.running is None
                     and now - self.last_change >= DEBOUNCE_SECONDS)
            self.last_change = now
            if quiet:
                delay = 0
        if self.pending is not None:
            self.pending.cancel()
        self.pending = loop.call_later(delay, self._start)

    def _start(self) -> None:
        self.pending = None
        asyncio.ensure_future(self._guarded())

    async def _guarded(self) -> None:
        generation = self.generation
        try:
            await self.refresh()
        except Exception:  # noqa: BLE001 - never stop serving
            log.exception("publishing diagnostics failed")
            if generation == self.generation:  # no findings rather than requests waiting for ever
                self.findings, self.diagnostics, self.current = {}, {}, generation
                self.settled.set()

    # -- initialisation -------------------------------------------------------------------------
    def choose_channel(self, capabilities: "lsp.ClientCapabilities") -> None:
        """Pull when the client pulls and accepts refresh requests, else push; the server
        then advertises the pull provider only to a client that will use it (a client that
        gets both shows each finding twice)."""
        text_document = capabilities.text_document
        workspace = capabilities.workspace
        self.pull = bool(text_document is not None and text_document.diagnostic is not None
                         and workspace is not None and workspace.diagnostics is not None
                         and workspace.diagnostics.refresh_support)
        if not self.pull:
            self.protocol.fm.features.pop(lsp.TEXT_DOCUMENT_DIAGNOSTIC, None)
            self.protocol.fm.feature_options.pop(lsp.TEXT_DOCUMENT_DIAGNOSTIC, None)

    def watch_files(self, capabilities: "lsp.ClientCapabilities") -> bool:
        """Ask the client to report changes on disk, if it can register watchers dynamically."""
        workspace = capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is None or not watched.dynamic_registration:
            return False
        options = lsp.DidChangeWatchedFilesRegistrationOptions(
            watchers=[lsp.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED])
        self.client_register_capability(lsp.RegistrationParams(registrations=[lsp.Registration(
            id="mslint-watched-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)]))
        return True


def build_server() -> "MslintServer":
    server = MslintServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: MslintServer, params: lsp.InitializeParams) -> None:
        chosen = ls.workspace.position_encoding  # pygls's choice, which it announces (a str or its enum)
        ls.encoding = next((e for e in convert.ENCODINGS if chosen == e), convert.UTF16)
        ls.choose_channel(params.capabilities)

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: MslintServer, params: lsp.InitializedParams) -> None:
        ls.watch_files(ls.client_capabilities)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MslintServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MslintServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule()

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MslintServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(0)  # (also what catches changes on disk when the client watches no files)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MslintServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.linter.forget(convert.uri_to_path(params.text_document.uri))
        ls.schedule(0)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: MslintServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        ls.schedule(0)  # a helper or pyproject.toml changed on disk

    @server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC,
                    lsp.DiagnosticOptions(identifier="mslint", inter_file_dependencies=True,
                                          workspace_diagnostics=False))
    async def pull_diagnostics(ls: MslintServer, params: lsp.DocumentDiagnosticParams):
        await ls.up_to_date()  # (cancelled with the request when the client cancels it)
        return lsp.RelatedFullDocumentDiagnosticReport(items=ls.diagnostics.get(params.text_document.uri, []))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, convert.FIX_ALL_KIND]))
    async def code_actions(ls: MslintServer, params: lsp.CodeActionParams):
        await ls.up_to_date()  # edits are computed on the text the findings are for
        actions, fix_all = _code_actions(ls, params)
        if fix_all is not None:  # off the event loop, and never beside a lint
            action = await asyncio.get_running_loop().run_in_executor(None, _fix_all_action, ls, *fix_all)
            if action is not None:
                actions.append(action)
        return actions

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: MslintServer, params: lsp.HoverParams):
        await ls.up_to_date()
        uri = params.text_document.uri
        lines = convert.lines_of(ls.open_documents().get(uri, ("", None))[0])
        here = [f for f in ls.findings.get(uri, [])
                if convert.contains(convert.finding_range(f, lines, ls.encoding), params.position)]
        if not here:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=convert.hover_text(here)))

    return server


def _code_actions(ls: MslintServer, params: lsp.CodeActionParams) -> Tuple[list, Optional[Tuple[str, str]]]:
    """The quick fixes and disable comments for the range, and (uri, text) when a fix-all
    should be offered too (it is computed by _fix_all_action)."""
    uri = params.text_document.uri
    text = ls.open_documents().get(uri, (None, None))[0]
    if text is None:
        return [], None
    lines = convert.lines_of(text)
    only = params.context.only or []
    actions = []
    encoding = ls.encoding
    wants_quick_fixes = not only or any(kind.startswith(lsp.CodeActionKind.QuickFix) for kind in only)
    if wants_quick_fixes:
        for finding in ls.findings.get(uri, []):
            found_range = convert.finding_range(finding, lines, encoding)
            if not convert.overlaps(found_range, params.range):
                continue
            diagnostic = convert.diagnostic(finding, lines, ls.lines_of_file, encoding)
            fix = convert.quick_fix(finding, uri, lines, diagnostic, encoding)
            if fix is not None:
                actions.append(fix)
            actions.append(convert.disable_for_line(finding, uri, lines, diagnostic, encoding))
    wants_fix_all = not only or any(convert.FIX_ALL_KIND.startswith(kind) for kind in only)
    if wants_fix_all and any(f.fix is not None and f.fix.applicability == "safe" for f in ls.findings.get(uri, [])):
        return actions, (uri, text)
    return actions, None


def _fix_all_action(ls: MslintServer, uri: str, text: str) -> Optional["lsp.CodeAction"]:
    """The whole-file safe fixes as one action, or None when they change nothing."""
    from mslint.fix.apply import fixed_text

    path = convert.uri_to_path(uri)
    try:
        with ls.analysis:
            after = fixed_text(path, text, config_module.PerFile(), unsafe=False)
    except Exception:  # noqa: BLE001 - no fix-all then, and the server keeps serving
        log.exception("fix-all failed")
        return None
    if after == text:
        return None
    return lsp.CodeAction(title="Fix all mslint problems in file (safe fixes)", kind=convert.FIX_ALL_KIND,
                          edit=convert.whole_document_edit(uri, text, after, ls.encoding))


def main(argv: Optional[List[str]] = None) -> int:
    """`mslint server [--stdio]`."""
    arguments = list(argv or [])
    if any(a in ("-h", "--help") for a in arguments):
        print("usage: mslint server [--stdio]\n\nA language server for editors, over standard input and output "
              "(docs/editors.md). Needs the server extra: pip install \"mslint[server]\".")
        return 0
    unknown = [a for a in arguments if a != "--stdio"]
    if unknown:
        print(f"mslint server: error: unrecognized arguments: {' '.join(unknown)}", file=__import__("sys").stderr)
        return 2
    if lsp is None:
        print("mslint server: error: the language server needs pygls and lsprotocol: "
              "pip install \"mslint[server]\"", file=__import__("sys").stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    server = build_server()
    server.heap.start()  # the collector's policy for the server's life (mslint/frontends/heap.py)
    server.start_io()
    return 0
