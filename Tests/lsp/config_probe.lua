-- Headless Neovim with a configuration of the man page as its init.lua:
-- the configuration, not this probe, starts `handsh --lsp` for the .hand
-- file given on the command line. Reports to $HANDSH_PROBE_OUT, one line
-- per step: the filetype, the client, the diagnostics, the hover on line 2,
-- the code actions there, the buffer after the preferred one, and the
-- diagnostics gone. Ends Neovim with 0.
local out = assert(io.open(os.getenv("HANDSH_PROBE_OUT"), "w"))
local function say(line) out:write(line .. "\n") out:flush() end

local function clients()
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = 0 }) end
  return vim.lsp.buf_get_clients(0)
end

say("filetype " .. vim.bo.filetype)
local function within(seconds, condition)
  return tostring(vim.wait(seconds * 1000, condition, 20))
end

say("client " .. within(10, function() return next(clients()) ~= nil end))
say("diagnostics " .. within(10, function() return #vim.diagnostic.get(0) > 0 end))
for _, d in ipairs(vim.diagnostic.get(0)) do
  local message = d.message:gsub("\n", "|")
  say(string.format("at %d:%d severity %d %s", d.lnum, d.col, d.severity, message))
end

local document = { uri = vim.uri_from_bufnr(0) }
local position = { textDocument = document, position = { line = 1, character = 0 } }
for _, answer in pairs(vim.lsp.buf_request_sync(0, "textDocument/hover", position, 10000) or {}) do
  local contents = answer.result and answer.result.contents
  if contents then say("hover " .. ((contents.value or contents):gsub("\n.*", ""))) end
end

local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0, { lnum = 1 })) do
  diagnostics[#diagnostics + 1] = d.user_data and d.user_data.lsp or nil
end
local request = {
  textDocument = document,
  range = { start = { line = 1, character = 0 }, ["end"] = { line = 1, character = 0 } },
  context = { diagnostics = diagnostics },
}
local answers = vim.lsp.buf_request_sync(0, "textDocument/codeAction", request, 10000)
for _, answer in pairs(answers or {}) do
  for _, action in ipairs(answer.result or {}) do
    say("action " .. action.title .. (action.isPreferred and " (preferred)" or ""))
    if action.isPreferred and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
    end
  end
end
say("line 3 " .. vim.api.nvim_buf_get_lines(0, 2, 3, false)[1])
say("cleared " .. within(10, function() return #vim.diagnostic.get(0) == 0 end))
out:close()
vim.cmd("qa!")
