"""`mslint server`: a language server over stdio (pygls), with live diagnostics and quick fixes.

Every open document is linted together with the other open documents, so a helper edited in
one buffer updates the findings of the models that reach it in another:

- when every open buffer matches its file on disk, through the command's own run
  (`runner.lint_run`: the project model, the importers outside the run, the result cache),
  so the diagnostics are exactly `mslint --format json` on those files;
- when a buffer has unsaved changes, on the buffers' texts (`runner.lint_sources`).

Edits are debounced (DEBOUNCE_SECONDS) and linted off the event loop, one run at a time.
The configuration is looked up afresh for every run, so a change to pyproject.toml applies
without a restart.  Nothing a document contains can stop the server: a syntax error is
MS001, a failing rule MS003, and anything else is logged and the server keeps serving.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Dict, List, Optional

from mslint import __version__
from mslint import config as config_module

try:  # the server extra; without it main() says how to install it
    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

    from mslint.frontends import lsp_convert as convert  # imports lsprotocol too
except ImportError:
    lsp = convert = None
    LanguageServer = object

DEBOUNCE_SECONDS = 0.05
log = logging.getLogger("mslint.frontends.server")


class MslintServer(LanguageServer):
    def __init__(self):
        super().__init__("mslint", __version__)
        self.findings: Dict[str, list] = {}  # uri -> the findings last published for it
        self.lint_lock = threading.Lock()
        self.pending: Optional[asyncio.TimerHandle] = None
        self.generation = 0  # bumped by every edit: a run started before it is stale

    # -- documents ------------------------------------------------------------------------------
    def open_documents(self) -> Dict[str, str]:
        """uri -> text of every open document that is a Python file."""
        found = {}
        for uri, document in list(self.workspace.text_documents.items()):
            if uri.startswith("file:") and uri.endswith((".py", ".pyi")):
                found[uri] = document.source
        return found

    def lines_of_file(self, path: str) -> Optional[List[str]]:
        uri = convert.path_to_uri(path)
        if uri in self.workspace.text_documents:
            return convert.lines_of(self.workspace.text_documents[uri].source)
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as handle:
                return convert.lines_of(handle.read())
        except OSError:
            return None

    # -- linting --------------------------------------------------------------------------------
    def lint(self) -> Dict[str, list]:
        """Lint every open document; uri -> findings (every open document has an entry)."""
        from mslint.run import runner
        from mslint.run.cache import caches_by_configuration
        from mslint.findings import Finding
        from mslint.rules import BAD_CONFIGURATION, INTERNAL_ERROR

        texts = self.open_documents()
        paths = {convert.uri_to_path(uri): uri for uri in texts}
        by_uri: Dict[str, list] = {uri: [] for uri in texts}
        if not texts:
            return by_uri
        with self.lint_lock:
            try:
                config_for = config_module.PerFile()  # afresh: an edited pyproject.toml applies now
                for path in paths:
                    config_for(path)
                if all(_on_disk(path) == texts[uri] for path, uri in paths.items()):
                    findings = runner.lint_run(sorted(paths), config_for, jobs=1,
                                               cache=caches_by_configuration()).findings
                else:
                    findings = runner.lint_sources([(path, texts[uri]) for path, uri in sorted(paths.items())],
                                                   config_for)
            except config_module.ConfigError as error:
                findings = [Finding(BAD_CONFIGURATION, path, 1, 0, None, None, str(error)) for path in paths]
            except Exception as error:  # noqa: BLE001 - the server keeps serving
                log.exception("mslint failed")
                findings = [Finding(INTERNAL_ERROR, path, 1, 0, None, None,
                                    f"mslint failed on this run: {type(error).__name__}: {error}") for path in paths]
        for finding in findings:
            uri = paths.get(os.path.abspath(finding.path))
            if uri is not None:
                by_uri[uri].append(finding)
        return by_uri

    def diagnostics_for(self, uri: str) -> list:
        text = self.open_documents().get(uri)
        lines = convert.lines_of(text) if text is not None else (self.lines_of_file(convert.uri_to_path(uri)) or [])
        return [convert.diagnostic(f, lines, self.lines_of_file) for f in self.findings.get(uri, [])]

    async def lint_and_publish(self) -> None:
        generation = self.generation
        loop = asyncio.get_running_loop()
        results = await loop.run_in_executor(None, self.lint)
        if generation != self.generation:
            return  # an edit came in meanwhile: its own run publishes
        closed = [uri for uri in self.findings if uri not in results]
        self.findings = results
        for uri in list(results) + closed:
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=self.diagnostics_for(uri) if uri in results else []))

    def schedule(self, delay: float = DEBOUNCE_SECONDS) -> None:
        self.generation += 1
        if self.pending is not None:
            self.pending.cancel()
        loop = asyncio.get_running_loop()
        self.pending = loop.call_later(delay, lambda: asyncio.ensure_future(self._guarded()))

    async def _guarded(self) -> None:
        try:
            await self.lint_and_publish()
        except Exception:  # noqa: BLE001 - never stop serving
            log.exception("publishing diagnostics failed")


def _on_disk(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
            return handle.read()
    except OSError:
        return None


def build_server() -> "MslintServer":
    server = MslintServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MslintServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MslintServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule()

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MslintServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MslintServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.schedule(0)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: MslintServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        ls.schedule(0)  # a helper or pyproject.toml changed on disk

    @server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC,
                    lsp.DiagnosticOptions(identifier="mslint", inter_file_dependencies=True,
                                          workspace_diagnostics=False))
    def pull_diagnostics(ls: MslintServer, params: lsp.DocumentDiagnosticParams):
        ls.findings.update(ls.lint())
        return lsp.RelatedFullDocumentDiagnosticReport(items=ls.diagnostics_for(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, convert.FIX_ALL_KIND]))
    def code_actions(ls: MslintServer, params: lsp.CodeActionParams):
        return _code_actions(ls, params)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: MslintServer, params: lsp.HoverParams):
        uri = params.text_document.uri
        lines = convert.lines_of(ls.open_documents().get(uri, ""))
        here = [f for f in ls.findings.get(uri, []) if convert.contains(convert.finding_range(f, lines), params.position)]
        if not here:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=convert.hover_text(here)))

    return server


def _code_actions(ls: MslintServer, params: lsp.CodeActionParams) -> list:
    uri = params.text_document.uri
    text = ls.open_documents().get(uri)
    if text is None:
        return []
    lines = convert.lines_of(text)
    only = params.context.only or []
    actions = []
    wants_quick_fixes = not only or any(kind.startswith(lsp.CodeActionKind.QuickFix) for kind in only)
    if wants_quick_fixes:
        for finding in ls.findings.get(uri, []):
            found_range = convert.finding_range(finding, lines)
            if not convert.overlaps(found_range, params.range):
                continue
            diagnostic = convert.diagnostic(finding, lines, ls.lines_of_file)
            fix = convert.quick_fix(finding, uri, lines, diagnostic)
            if fix is not None:
                actions.append(fix)
            actions.append(convert.disable_for_line(finding, uri, lines, diagnostic))
    wants_fix_all = not only or any(convert.FIX_ALL_KIND.startswith(kind) for kind in only)
    if wants_fix_all and any(f.fix is not None and f.fix.applicability == "safe" for f in ls.findings.get(uri, [])):
        from mslint.fix.apply import fixed_text

        path = convert.uri_to_path(uri)
        try:
            after = fixed_text(path, text, config_module.PerFile(), unsafe=False)
        except Exception:  # noqa: BLE001 - no fix-all then, and the server keeps serving
            log.exception("fix-all failed")
            after = text
        if after != text:
            actions.append(lsp.CodeAction(title="Fix all mslint problems in file (safe fixes)",
                                          kind=convert.FIX_ALL_KIND,
                                          edit=convert.whole_document_edit(uri, text, after)))
    return actions


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
    build_server().start_io()
    return 0
