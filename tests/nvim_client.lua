-- Drives `mslint server` from a real Neovim (headless), for tests/test_server_neovim.py.
--
--   nvim --headless --clean -l tests/nvim_client.lua SCENARIO ROOT OUT.json PYTHON [ENCODING]
--
-- Each scenario edits buffers as a user would (through Neovim's own buffer API, so Neovim
-- sends the didChange notifications), applies the server's code actions with Neovim's own
-- workspace-edit code, and writes what it saw to OUT.json; the Python test asserts on it.
local scenario, root, out, python, encoding = arg[1], arg[2], arg[3], arg[4], arg[5]
local TIMEOUT = 30000
local result = { events = {} }
local started = vim.uv.hrtime() / 1e6

local function finish(ok, err)
  result.ok = ok
  result.error = err
  local file = assert(io.open(out, "w"))
  file:write(vim.json.encode(result))
  file:close()
  vim.cmd("qall!")
end

local function note(name, value)
  result[name] = value
end

-- the server, one client for every buffer under ROOT
local capabilities = vim.lsp.protocol.make_client_capabilities()
if encoding then
  capabilities.general.positionEncodings = { encoding }
end
if scenario == "on_disk" then
  -- Neovim advertises dynamic file watching only on macOS and Windows: ask for it here to
  -- test the registration (the save fallback is tested with the default capabilities)
  capabilities.workspace.didChangeWatchedFiles.dynamicRegistration = true
end
vim.lsp.config("mslint", {
  cmd = { python, "-m", "mslint", "server" },
  cmd_env = { MSLINT_CACHE_DIR = root .. "/.cache" },
  root_dir = root,
  filetypes = { "python" },
  capabilities = capabilities,
  flags = { debounce_text_changes = 0 },
})
vim.lsp.enable("mslint")

local function open(relative)
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/" .. relative))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.wait(TIMEOUT, function()
    return #vim.lsp.get_clients({ bufnr = bufnr, name = "mslint" }) > 0
  end, 20), "mslint server did not attach to " .. relative)
  return bufnr
end

local function diagnostics(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    -- the text the diagnostic covers, through Neovim's own conversion of its range
    local text = table.concat(vim.api.nvim_buf_get_text(bufnr, d.lnum, d.col, d.end_lnum, d.end_col, {}), "\n")
    table.insert(found, { code = d.code, line = d.lnum + 1, text = text, message = d.message, namespace = d.namespace })
  end
  table.sort(found, function(a, b)
    return a.line < b.line or (a.line == b.line and a.code < b.code)
  end)
  return found
end

local function codes(bufnr)
  local list = {}
  for _, d in ipairs(diagnostics(bufnr)) do
    table.insert(list, d.code .. "@" .. d.line)
  end
  return table.concat(list, ",")
end

-- wait until the buffer's diagnostics are `wanted` ("MS101@3,MS711@8"), and the server idle
local function settle(bufnr, wanted, what)
  local ok = vim.wait(TIMEOUT, function()
    return codes(bufnr) == wanted
  end, 20)
  if not ok then
    error((what or "diagnostics") .. ": wanted [" .. wanted .. "], got [" .. codes(bufnr) .. "]")
  end
  table.insert(result.events, { what = what, at = vim.uv.hrtime() / 1e6 - started })
  vim.wait(200) -- a duplicate or a late outdated result would arrive now
  if codes(bufnr) ~= wanted then
    error((what or "diagnostics") .. " changed after settling: [" .. codes(bufnr) .. "]")
  end
end

local function lines(bufnr)
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

local function client_of(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = "mslint" })[1]
end

-- the server's code actions for the diagnostic at `line` (1-based), through Neovim's request
local function actions_at(bufnr, line, only)
  local client = client_of(bufnr)
  local d = vim.diagnostic.get(bufnr, { lnum = line - 1 })[1]
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.range = {
    start = { line = d.lnum, character = vim.str_utfindex(lines(bufnr)[d.lnum + 1], client.offset_encoding, d.col) },
    ["end"] = { line = d.end_lnum,
                character = vim.str_utfindex(lines(bufnr)[d.end_lnum + 1], client.offset_encoding, d.end_col) },
  }
  params.textDocument = { uri = vim.uri_from_bufnr(bufnr) }
  params.context = { diagnostics = { d.user_data.lsp }, only = only }
  local response = client:request_sync("textDocument/codeAction", params, TIMEOUT, bufnr)
  assert(response and not response.err, "codeAction failed")
  return response.result or {}
end

local function apply(bufnr, action)
  vim.lsp.util.apply_workspace_edit(action.edit, client_of(bufnr).offset_encoding)
end

local function undo_to(bufnr, original)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, original)
end

local scenarios = {}

-- Chinese text: ranges, quick fix, disable-for-line and fix-all in the negotiated encoding
function scenarios.chinese()
  local bufnr = open("pkg/zh.py")
  note("offset_encoding", client_of(bufnr).offset_encoding)
  settle(bufnr, "MS711@8", "first diagnostics")
  note("diagnostics", diagnostics(bufnr))
  local original = lines(bufnr)

  local titles = {}
  for _, action in ipairs(actions_at(bufnr, 8)) do
    table.insert(titles, action.title)
    if action.title:match("^MS711") then
      apply(bufnr, action)
      note("quick_fix", lines(bufnr)[8])
      undo_to(bufnr, original)
    end
  end
  note("titles", titles)
  settle(bufnr, "MS711@8", "after undoing the quick fix")
  for _, action in ipairs(actions_at(bufnr, 8)) do
    if action.title == "Disable MS711 for this line" then
      apply(bufnr, action)
      note("disabled", lines(bufnr)[8])
    end
  end
  settle(bufnr, "", "after disabling for the line")
  undo_to(bufnr, original)
  settle(bufnr, "MS711@8", "after undoing the disable comment")
  for _, action in ipairs(actions_at(bufnr, 8, { "source.fixAll.mslint" })) do
    apply(bufnr, action)
  end
  note("fixed_all", lines(bufnr))
  settle(bufnr, "", "after fix-all")
  -- keep typing Chinese on the line: the server's copy of the buffer stays in step
  vim.api.nvim_buf_set_text(bufnr, 7, #lines(bufnr)[8], 7, #lines(bufnr)[8], { "，已修复" })
  vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { "# 模型定义" })
  settle(bufnr, "", "after typing Chinese")
end

-- cross-module: unsaved edits of a helper update the importer; a syntax error is MS001 only
function scenarios.modules()
  local helpers = open("pkg/helpers.py")
  -- only the helper is open: its finding is reached from model.py on disk
  settle(helpers, "MS101@5", "helper alone")
  vim.api.nvim_buf_set_lines(helpers, 0, 0, false, { "# a comment line, unsaved" })
  settle(helpers, "MS101@6", "helper with an unsaved line on top")
  local model = open("pkg/model.py")
  settle(model, "MS711@11,MS101@16", "model")
  settle(helpers, "MS101@6", "helper beside the model")
  -- the helper's unsaved buffer decides whether the model's Base is a Cell
  local original = lines(helpers)
  for index, text in ipairs(original) do
    if text:match("^class Base") then
      vim.api.nvim_buf_set_lines(helpers, index - 1, index, false, { "class Base:" })
    end
  end
  settle(model, "MS711@11", "model once Base is no Cell (unsaved helper)")
  settle(helpers, "", "helper once Base is no Cell")
  vim.api.nvim_buf_set_lines(helpers, 0, -1, false, original)
  settle(model, "MS711@11,MS101@16", "model once Base is a Cell again")
  -- a syntax error in the helper: MS001 there, the model keeps its last good findings
  vim.api.nvim_buf_set_lines(helpers, -1, -1, false, { "def broken(:" })
  settle(helpers, "MS001@" .. (#original + 1), "helper with a syntax error")
  settle(model, "MS711@11,MS101@16", "model while the helper does not parse")
  note("syntax", diagnostics(helpers))
  vim.api.nvim_buf_set_lines(model, 0, 0, false, { "", "" })
  settle(model, "MS711@13,MS101@18", "model edited while the helper does not parse")
  settle(helpers, "MS001@" .. (#original + 1), "helper still broken")
end

-- many quick edits to a long file end in the right diagnostics
function scenarios.rapid()
  local bufnr = open("pkg/long.py")
  local expected = vim.env.MSLINT_EXPECTED
  settle(bufnr, vim.env.MSLINT_FIRST or "", "first diagnostics")
  local count = tonumber(vim.env.MSLINT_EDITS)
  for i = 1, count do
    -- each edit is its own didChange (debounce 0), as fast as Neovim sends them
    vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, { "# edit " .. i })
    vim.wait(5)
  end
  local target = tonumber(vim.env.MSLINT_TARGET_LINE)
  vim.api.nvim_buf_set_lines(bufnr, target - 1, target, false, { vim.env.MSLINT_TARGET_TEXT })
  local ok = vim.wait(TIMEOUT, function()
    return codes(bufnr) == expected
  end, 10)
  note("final", codes(bufnr))
  assert(ok, "rapid edits: wanted [" .. expected .. "], got [" .. codes(bufnr) .. "]")
  vim.wait(500)
  note("after", codes(bufnr))
end

-- files changed on disk update the open model: a configuration through watched files (Neovim's
-- Linux backend without inotifywait watches the workspace's top folder only), a helper on save
function scenarios.on_disk()
  local model = open("pkg/model.py")
  settle(model, "MS711@11,MS101@15,MS101@16", "model")
  local client = client_of(model)
  note("watching", client.dynamic_capabilities:get("workspace/didChangeWatchedFiles") ~= nil)
  vim.fn.writefile({ "[project]", "name = 'example'", "", "[tool.mslint]", "ignore = ['MS711']" },
                   root .. "/pyproject.toml")
  settle(model, "MS101@15,MS101@16", "model after pyproject.toml changed on disk")
  -- a helper in a subfolder: no event on Linux without inotifywait, but a save checks again
  vim.fn.writefile({ "import mindspore as ms", "from mindspore import nn", "", "", "def to_host(x):",
                     "    return x * 2", "", "", "class Base(nn.Cell):", "    pass" }, root .. "/pkg/helpers.py")
  vim.cmd("write")
  settle(model, "MS101@16", "model after the helper changed on disk and the model was saved")
end

local ok, err = xpcall(scenarios[scenario], debug.traceback)
finish(ok, err)
