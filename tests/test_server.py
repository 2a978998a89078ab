"""`mslint server`, driven over stdio by pygls's language client as an editor would drive it."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the server extra (pygls) is not installed")
from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from mslint.frontends.lsp_convert import path_to_uri  # noqa: E402

HELPERS = """
def to_host(x):
    return x.asnumpy()
"""

MODEL = """
import mindspore as ms
from mindspore import nn
from pkg.helpers import to_host


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(keep_prob=0.9)

    def construct(self, x):
        return to_host(self.drop(x))
"""

TIMEOUT = 60


def make_project(root: Path) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'example'\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text(textwrap.dedent(HELPERS).lstrip())
    (root / "pkg" / "model.py").write_text(textwrap.dedent(MODEL).lstrip())


class Editor:
    """A language client with the diagnostics the server published, per document."""

    def __init__(self, root: Path, capabilities: lsp.ClientCapabilities = None):
        self.root = root
        self.capabilities = capabilities or lsp.ClientCapabilities()
        self.client = LanguageClient("mslint-tests", "1")
        self.published = {}
        self.arrived = asyncio.Event()
        self.versions = {}
        self.refreshes = 0
        self.registrations = []

        self.history = []  # (uri, version, codes) of every publication, in order

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(*args):
            params = args[-1]
            self.published[params.uri] = params.diagnostics
            self.history.append((params.uri, params.version, sorted(d.code for d in params.diagnostics)))
            self.arrived.set()

        @self.client.feature(lsp.WORKSPACE_DIAGNOSTIC_REFRESH)
        def on_refresh(*args):
            self.refreshes += 1
            self.arrived.set()

        @self.client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def on_register(*args):
            self.registrations.extend(args[-1].registrations)

    async def start(self):
        env = dict(os.environ, MSLINT_CACHE_DIR=str(self.root / ".cache"))
        await self.client.start_io(sys.executable, "-m", "mslint", "server", cwd=str(self.root), env=env)
        self.initialized = await self.client.initialize_async(lsp.InitializeParams(
            capabilities=self.capabilities, root_uri=path_to_uri(str(self.root)),
            workspace_folders=[lsp.WorkspaceFolder(uri=path_to_uri(str(self.root)), name="example")]))
        self.client.initialized(lsp.InitializedParams())

    async def stop(self):
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await asyncio.sleep(0.1)
        await self.client.stop()

    def uri(self, relative: str) -> str:
        return path_to_uri(str(self.root / relative))

    def open(self, relative: str, text: str = None):
        text = (self.root / relative).read_text() if text is None else text
        self.versions[relative] = 1
        self.arrived.clear()
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=self.uri(relative), language_id="python", version=1, text=text)))

    def change(self, relative: str, text: str):
        self.versions[relative] += 1
        self.arrived.clear()
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=self.uri(relative), version=self.versions[relative]),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics(self, relative: str, until=lambda found: True):
        """The next diagnostics published for a document that satisfy `until`."""
        uri = self.uri(relative)
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while True:
            if uri in self.published and until(self.published[uri]):
                return self.published[uri]
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError(f"no diagnostics for {relative} satisfying the test; last: "
                                     f"{self.published.get(uri)}")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), remaining)
            except asyncio.TimeoutError:
                pass


def run(coroutine_function, tmp_path, capabilities: lsp.ClientCapabilities = None):
    make_project(tmp_path)

    async def session():
        editor = Editor(tmp_path, capabilities)
        await editor.start()
        try:
            await coroutine_function(editor)
        finally:
            await editor.stop()

    asyncio.run(asyncio.wait_for(session(), 4 * TIMEOUT))


def cli_json(root: Path, *paths: str) -> list:
    result = subprocess.run([sys.executable, "-m", "mslint", "--format", "json", "--no-cache", *paths], cwd=root,
                            capture_output=True, text=True, timeout=300)
    return json.loads(result.stdout)


def as_rows(diagnostics) -> list:
    return sorted((d.code, d.range.start.line + 1, d.range.start.character + 1, d.message) for d in diagnostics)


def test_diagnostics_match_the_command_and_carry_code_url_and_chain(tmp_path):
    async def scenario(editor):
        editor.open("pkg/model.py")
        editor.open("pkg/helpers.py")
        model = await editor.diagnostics("pkg/model.py", lambda found: len(found) == 1)
        helpers = await editor.diagnostics("pkg/helpers.py", lambda found: len(found) == 1)
        expected = cli_json(editor.root, "pkg/model.py", "pkg/helpers.py")
        for relative, published in (("pkg/model.py", model), ("pkg/helpers.py", helpers)):
            rows = sorted((f["code"], f["line"], f["column"], f["message"]) for f in expected
                          if os.path.normpath(f["path"]) == os.path.normpath(relative))
            assert as_rows(published) == rows
        [dropout] = model
        assert dropout.code == "MS711" and dropout.source == "mslint"
        assert dropout.severity == lsp.DiagnosticSeverity.Information
        assert dropout.code_description.href.endswith("docs/rules/MS711.md")
        assert list(dropout.tags) == [lsp.DiagnosticTag.Deprecated]
        [to_host] = helpers
        assert to_host.code == "MS101" and to_host.severity == lsp.DiagnosticSeverity.Error
        [related] = to_host.related_information
        assert related.location.uri == editor.uri("pkg/model.py") and related.location.range.start.line == 11
        # a client that cannot pull gets pushed diagnostics only: no pull provider to double them
        assert editor.initialized.capabilities.diagnostic_provider is None
        assert editor.initialized.capabilities.position_encoding == "utf-16"

    run(scenario, tmp_path)


PULLING = lsp.ClientCapabilities(
    text_document=lsp.TextDocumentClientCapabilities(diagnostic=lsp.DiagnosticClientCapabilities()),
    workspace=lsp.WorkspaceClientCapabilities(
        diagnostics=lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
        did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)),
    general=lsp.GeneralClientCapabilities(position_encodings=["utf-32", "utf-16"]))


def test_a_client_that_pulls_gets_pulled_diagnostics_only_refreshes_and_watchers(tmp_path):
    async def scenario(editor):
        assert editor.initialized.capabilities.diagnostic_provider.inter_file_dependencies
        assert editor.initialized.capabilities.position_encoding == "utf-32"
        editor.open("pkg/model.py")
        editor.open("pkg/helpers.py")

        async def pull(relative):
            report = await editor.client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
                text_document=lsp.TextDocumentIdentifier(uri=editor.uri(relative))))
            return sorted(d.code for d in report.items)

        assert await pull("pkg/helpers.py") == ["MS101"]
        assert await pull("pkg/model.py") == ["MS711"]
        # editing the model changes the helper's findings: the server asks the client to pull again
        refreshes = editor.refreshes
        editor.change("pkg/model.py", (editor.root / "pkg/model.py").read_text().replace("to_host(", "(")
                      .replace("from pkg.helpers import to_host\n", ""))
        assert await pull("pkg/helpers.py") == []
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while editor.refreshes == refreshes and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        assert editor.refreshes > refreshes
        assert editor.published == {}  # one channel: nothing pushed

        [watchers] = editor.registrations
        assert watchers.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
        patterns = [w["globPattern"] for w in watchers.register_options["watchers"]]
        assert patterns == ["**/*.py", "**/pyproject.toml", "**/setup.cfg", "**/.gitignore"]

    run(scenario, tmp_path, PULLING)


def test_edits_quick_fixes_fix_all_hover_and_a_syntax_error(tmp_path):
    async def scenario(editor):
        editor.open("pkg/model.py")
        found = await editor.diagnostics("pkg/model.py", lambda found: any(d.code == "MS711" for d in found))
        dropout = next(d for d in found if d.code == "MS711")

        hover = await editor.client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=editor.uri("pkg/model.py")), position=dropout.range.start))
        assert "**MS711 dropout-keep-prob-deprecated**" in hover.contents.value
        assert "docs/rules/MS711.md" in hover.contents.value

        actions = await editor.client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=editor.uri("pkg/model.py")), range=dropout.range,
            context=lsp.CodeActionContext(diagnostics=[dropout])))
        titles = [a.title for a in actions]
        assert "Disable MS711 for this line" in titles
        fix = next(a for a in actions if a.title.startswith("MS711: use p"))
        assert fix.kind == lsp.CodeActionKind.QuickFix and fix.is_preferred
        assert any(a.kind == "source.fixAll.mslint" for a in actions)

        text = (editor.root / "pkg/model.py").read_text()
        [edit] = fix.edit.changes[editor.uri("pkg/model.py")]
        lines = text.split("\n")
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = line[:edit.range.start.character] + edit.new_text + line[edit.range.end.character:]
        fixed = "\n".join(lines)
        assert "nn.Dropout(p=0.1)" in fixed
        editor.change("pkg/model.py", fixed)
        after = await editor.diagnostics("pkg/model.py", lambda found: not any(d.code == "MS711" for d in found))
        assert all(d.code != "MS711" for d in after)

        disable = next(a for a in actions if a.title == "Disable MS711 for this line")
        [insert] = disable.edit.changes[editor.uri("pkg/model.py")]
        assert insert.new_text == "  # mslint: disable=MS711"

        editor.change("pkg/model.py", fixed + "\ndef broken(:\n")
        broken = await editor.diagnostics("pkg/model.py", lambda found: any(d.code == "MS001" for d in found))
        assert [d.code for d in broken] == ["MS001"]

    run(scenario, tmp_path)


def test_a_helper_changed_on_disk_updates_the_open_model(tmp_path):
    async def scenario(editor):
        editor.open("pkg/model.py")
        before = await editor.diagnostics("pkg/model.py", lambda found: any(d.code == "MS101" for d in found))
        call_site = next(d for d in before if d.code == "MS101")
        assert "to_host" in call_site.message and "helpers.py:2" in call_site.message  # routed to the call

        (editor.root / "pkg" / "helpers.py").write_text("def to_host(x):\n    return x * 2\n")
        editor.arrived.clear()
        editor.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
            lsp.FileEvent(uri=editor.uri("pkg/helpers.py"), type=lsp.FileChangeType.Changed)]))
        after = await editor.diagnostics("pkg/model.py", lambda found: not any(d.code == "MS101" for d in found))
        assert [d.code for d in after] == ["MS711"]

        (editor.root / "pyproject.toml").write_text("[project]\nname = 'example'\n\n[tool.mslint]\nignore = ['MS711']\n")
        editor.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
            lsp.FileEvent(uri=editor.uri("pyproject.toml"), type=lsp.FileChangeType.Changed)]))
        assert len(await editor.diagnostics("pkg/model.py", lambda found: len(found) == 0)) == 0

    run(scenario, tmp_path)


def test_the_command_says_when_the_server_cannot_start(tmp_path):
    result = subprocess.run([sys.executable, "-m", "mslint", "server", "--port", "1"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unrecognized arguments: --port 1" in result.stderr
    assert "Traceback" not in result.stderr


def test_fix_all_and_a_helper_edited_in_another_buffer(tmp_path):
    async def scenario(editor):
        editor.open("pkg/model.py")
        editor.open("pkg/helpers.py")
        await editor.diagnostics("pkg/helpers.py", lambda found: [d.code for d in found] == ["MS101"])
        model = await editor.diagnostics("pkg/model.py", lambda found: [d.code for d in found] == ["MS711"])

        actions = await editor.client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=editor.uri("pkg/model.py")), range=model[0].range,
            context=lsp.CodeActionContext(diagnostics=[], only=["source.fixAll.mslint"])))
        [fix_all] = actions
        [whole] = fix_all.edit.changes[editor.uri("pkg/model.py")]
        assert "nn.Dropout(p=0.1)" in whole.new_text and "keep_prob" not in whole.new_text
        editor.change("pkg/model.py", whole.new_text)
        await editor.diagnostics("pkg/model.py", lambda found: len(found) == 0)

        # the helper's unsaved buffer, not its file, is what the model's analysis reads
        editor.change("pkg/helpers.py", "def to_host(x):\n    return x * 2\n")
        assert len(await editor.diagnostics("pkg/helpers.py", lambda found: len(found) == 0)) == 0
        editor.change("pkg/helpers.py", "def to_host(x):\n    y = x * 2\n    return y.asnumpy()\n")
        [back] = await editor.diagnostics("pkg/helpers.py", lambda found: len(found) == 1)
        assert back.code == "MS101" and back.range.start.line == 2

    run(scenario, tmp_path)


def test_a_failing_run_is_one_ms003_per_document_and_the_server_keeps_serving(tmp_path, monkeypatch):
    from mslint.run import runner
    from mslint.frontends.server import MslintServer

    make_project(tmp_path)
    server = MslintServer()
    uri = path_to_uri(str(tmp_path / "pkg" / "model.py"))
    texts = {uri: (tmp_path / "pkg" / "model.py").read_text()}

    def broken(*args, **kwargs):
        raise RuntimeError("a rule's bug")

    monkeypatch.setattr(runner, "lint_run", broken)
    found = server.lint(texts)
    assert [(f.code, f.line) for f in found[uri]] == [("MS003", 1)]
    assert "RuntimeError: a rule's bug" in found[uri][0].message

    monkeypatch.undo()
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / ".cache"))
    assert sorted(f.code for f in server.lint(texts)[uri]) == ["MS101", "MS711"]  # the next run works again


def test_columns_in_each_position_encoding_never_split_a_character():
    from mslint.frontends.lsp_convert import client_column, units

    line = 'x = "随机😀" + y'
    y = len(line[:line.index("y")].encode("utf-8"))  # findings count UTF-8 bytes
    assert [client_column(line, y, encoding) for encoding in ("utf-8", "utf-16", "utf-32")] == [y, 13, 12]
    assert units(line, "utf-8") == len(line.encode("utf-8")) and units(line, "utf-32") == len(line)
    inside = len('x = "随'.encode("utf-8")) + 1  # a byte in the middle of 机
    assert [client_column(line, inside, encoding) for encoding in ("utf-8", "utf-16", "utf-32")] == [8, 6, 6]
    assert client_column(line, 10_000, "utf-16") == units(line, "utf-16")  # clamped to the line


def test_rapid_edits_publish_only_the_current_version_last(tmp_path):
    async def scenario(editor):
        text = (editor.root / "pkg/model.py").read_text()
        editor.open("pkg/model.py")
        await editor.diagnostics("pkg/model.py", lambda found: len(found) == 2)
        for i in range(30):
            editor.change("pkg/model.py", f"# edit {i}\n" + text)
        editor.change("pkg/model.py", text.replace("keep_prob=0.9", "p=0.1"))
        last = editor.versions["pkg/model.py"]
        await editor.diagnostics("pkg/model.py", lambda found: [d.code for d in found] == ["MS101"])
        await asyncio.sleep(0.5)  # an outdated run's results would arrive now
        versions = [(version, codes) for uri, version, codes in editor.history if uri == editor.uri("pkg/model.py")]
        assert versions[-1] == (last, ["MS101"])
        assert [v for v, _ in versions] == sorted(v for v, _ in versions)  # never an older version after a newer

    run(scenario, tmp_path)


def test_programs_and_related_locations_as_the_command_reports_them(tmp_path):
    """Issue 25/26 through the server: a PyNative program's module is quiet, the GRAPH one's is
    reported; MS101 carries the downstream NumPy calls as relatedInformation."""
    from test_programs import two_programs
    from test_related_locations import HELPERS as SCIPY_HELPERS, SAMPLER
    from test_project_model import write

    two_programs(tmp_path / "apps")
    write(tmp_path / "sampling", {"sampler.py": SAMPLER, "helpers.py": SCIPY_HELPERS})

    async def scenario(editor):
        editor.open("apps/graph_app/net.py")
        editor.open("apps/pyn_app/net.py")
        editor.open("sampling/sampler.py")
        graph = await editor.diagnostics("apps/graph_app/net.py", lambda found: len(found) == 1)
        assert [(d.code, d.range.start.line) for d in graph] == [("MS101", 7)]
        sampler = await editor.diagnostics("sampling/sampler.py", lambda found: len(found) == 1)
        related = [(r.location.uri.rsplit("/", 1)[-1], r.location.range.start.line, r.message)
                   for r in sampler[0].related_information]
        assert ("sampler.py", 13, "'np.where' (numpy.where) works on the converted data: use mindspore.ops.where "
                "or mindspore.numpy.where") in related
        assert ("helpers.py", 4, "'linear_sum_assignment' (scipy.optimize.linear_sum_assignment) works on the "
                "converted data: use mindspore.scipy.optimize.linear_sum_assignment") in related
        assert list(await editor.diagnostics("apps/pyn_app/net.py", lambda found: True)) == []

    run(scenario, tmp_path)


def test_a_fix_all_never_runs_beside_a_lint(monkeypatch, tmp_path):
    """Fix-all and a lint share the runner's session (its module store): a fix-all asked for
    while an edit's lint runs in the worker thread waits for it, and the other way round."""
    import threading
    import time

    from mslint.fix import apply
    from mslint.frontends import server as server_module

    ls = server_module.MslintServer()
    busy, overlaps = [], []

    def working(name, result):
        def run(*args, **kwargs):
            if busy:
                overlaps.append((busy[0], name))
            busy.append(name)
            time.sleep(0.2)
            busy.remove(name)
            return result(*args)
        return run

    monkeypatch.setattr(ls.linter, "lint", working("lint", lambda texts, outdated, early=None: {}))
    monkeypatch.setattr(apply, "fixed_text", working("fix-all", lambda path, text, *rest: text + "# fixed\n"))
    uri = path_to_uri(str(tmp_path / "net.py"))
    lint = threading.Thread(target=ls.lint, args=({uri: "x = 1\n"},))
    lint.start()
    time.sleep(0.05)
    action = server_module._fix_all_action(ls, uri, "x = 1\n")
    lint.join()
    assert overlaps == []
    assert action is not None and action.kind == server_module.convert.FIX_ALL_KIND


def test_an_edit_after_a_quiet_spell_runs_at_once_and_a_burst_is_debounced(monkeypatch):
    """The debounce is for bursts: the first edit after DEBOUNCE_SECONDS without a change (and
    with no run under way) is linted at once; the edits right after it wait for the burst to
    end; an edit while a run is under way waits too."""
    from mslint.frontends import server as server_module

    async def scenario():
        loop = asyncio.get_running_loop()
        ls = server_module.MslintServer()
        started = []
        monkeypatch.setattr(ls, "_start", lambda: (setattr(ls, "pending", None), started.append(loop.time())))

        def delay_of_next_change():
            ls.schedule()
            return ls.pending.when() - loop.time()

        assert delay_of_next_change() < 0.01  # the first keystroke
        second = delay_of_next_change()  # right after it: part of a burst
        assert server_module.DEBOUNCE_SECONDS - 0.01 < second <= server_module.DEBOUNCE_SECONDS
        await asyncio.sleep(server_module.DEBOUNCE_SECONDS * 3)
        assert len(started) == 1  # the burst's one run (the first timer was replaced)
        assert delay_of_next_change() < 0.01  # quiet again
        await asyncio.sleep(server_module.DEBOUNCE_SECONDS * 3)
        ls.running = ls.generation  # a run under way: the next edit waits
        assert delay_of_next_change() > server_module.DEBOUNCE_SECONDS - 0.01

    asyncio.run(scenario())


def test_diagnostics_split_each_text_once_and_match_the_per_finding_conversion(tmp_path, monkeypatch):
    """Converting a run's findings splits each buffer, and reads each other file a call chain
    names, once per run, not once per finding; the diagnostics are those of the plain
    per-finding conversion."""
    from mslint.frontends import lsp_convert as convert
    from mslint.frontends import server as server_module

    make_project(tmp_path)
    model = tmp_path / "pkg" / "model.py"
    text = model.read_text() + "\n\nclass Twice(nn.Cell):\n    def construct(self, x):\n        return to_host(x)\n"
    monkeypatch.chdir(tmp_path)
    ls = server_module.MslintServer()
    uri = path_to_uri(str(model))
    results = ls.lint({uri: text})
    assert len(results[uri]) >= 2 and any(f.calls for f in results[uri])
    split, read = [], []
    real_split = convert.lines_of
    real_read = lambda p: real_split(Path(p).read_text())  # noqa: E731 - (the workspace needs a client)
    monkeypatch.setattr(convert, "lines_of", lambda t: split.append(t) or real_split(t))
    monkeypatch.setattr(ls, "lines_of_file", lambda p: read.append(p) or real_read(p))
    made = ls.as_diagnostics(results, {uri: (text, 3)})
    assert len(split) == 1 and sorted(read) == sorted(set(read)) and read
    expected = [convert.diagnostic(f, real_split(text), real_read, ls.encoding) for f in results[uri]]
    assert made == {uri: expected}


def test_a_buffers_own_findings_are_published_before_its_importers_analyses_end(tmp_path, monkeypatch):
    """In a project where importers of the edited file must be analysed again, the server sends
    the buffer's own findings as soon as they are known (the importers showed nothing in it
    before), and does not send the same again when the importers' analyses end."""
    import threading

    from mslint.frontends import server as server_module
    from mslint.run import runner

    make_project(tmp_path)
    helpers = tmp_path / "pkg" / "helpers.py"
    model = tmp_path / "pkg" / "model.py"
    model.write_text(model.read_text().replace("return to_host(self.drop(x))", "return self.drop(x)"))
    text = helpers.read_text() + "\n\nfrom mindspore import nn\n\n\nclass Own(nn.Cell):\n" \
                                 "    def construct(self, x):\n        return x.asnumpy()\n"
    uri = path_to_uri(str(helpers))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MSLINT_CACHE_DIR", str(tmp_path / "cache"))
    release = threading.Event()
    original = runner._analyse

    def importer_waits(path, *rest):
        if path.endswith("model.py"):
            release.wait(TIMEOUT)
        return original(path, *rest)

    monkeypatch.setattr(runner, "_analyse", importer_waits)

    async def scenario():
        ls = server_module.MslintServer()
        published = []
        monkeypatch.setattr(ls, "text_document_publish_diagnostics",
                            lambda params: published.append((params.uri, params.version,
                                                             sorted(d.code for d in params.diagnostics))))
        monkeypatch.setattr(ls, "open_documents", lambda: {uri: (text, 7)})
        run = asyncio.ensure_future(ls.refresh())
        for _ in range(TIMEOUT * 20):
            if published or run.done():
                break
            await asyncio.sleep(0.05)
        assert published == [(uri, 7, ["MS101"])] and not run.done()  # model.py's analysis still waits
        release.set()
        await run
        assert published == [(uri, 7, ["MS101"])] and ls.current == ls.generation

    asyncio.run(scenario())
