-- Headless Neovim (0.7 or later) as a real editor of a .hand file: starts
-- `handsh --lsp` with vim.lsp.start_client, attaches it to the buffer, waits
-- for the diagnostics, then types a fix and waits for them to go away.
-- Writes what it saw to $HANDSH_NVIM_OUT, one line per step; exits 0.
local out = assert(io.open(os.getenv("HANDSH_NVIM_OUT"), "w"))
local function say(line) out:write(line .. "\n") out:flush() end

local client = vim.lsp.start_client({
  name = "handsh",
  cmd = { os.getenv("HANDSH_BIN"), "--lsp" },
  root_dir = vim.fn.getcwd(),
})
say("client " .. tostring(client ~= nil))
vim.lsp.buf_attach_client(0, client)

local function diagnostics()
  return vim.diagnostic.get(0)
end

local seen = vim.wait(10000, function() return #diagnostics() > 0 end, 20)
say("diagnostics " .. tostring(seen))
for _, d in ipairs(diagnostics()) do
  say(string.format("at %d:%d severity %d %s", d.lnum, d.col, d.severity,
    (d.message:gsub("\n", "|"))))
end

-- The fix, typed into the buffer: the block's expected line made right.
vim.api.nvim_buf_set_lines(0, 2, 3, false, { "#> 7♥" })
local cleared = vim.wait(10000, function() return #diagnostics() == 0 end, 20)
say("cleared " .. tostring(cleared))

local hints = nil
vim.lsp.buf_request(0, "textDocument/inlayHint", {
  textDocument = { uri = vim.uri_from_bufnr(0) },
  range = { start = { line = 0, character = 0 }, ["end"] = { line = 9, character = 0 } },
}, function(err, result) hints = result or {} end)
vim.wait(10000, function() return hints ~= nil end, 20)
for _, h in ipairs(hints or {}) do
  say(string.format("hint %d:%d %s", h.position.line, h.position.character, h.label))
end

vim.lsp.stop_client(client)
out:close()
vim.cmd("qa!")
