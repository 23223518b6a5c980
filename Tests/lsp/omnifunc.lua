-- Headless Neovim (0.7.2 or later) completing as a user does with
-- omnifunc: `vim.lsp.omnifunc` itself runs, with its own filter of the
-- items (Neovim 0.7.2 keeps those whose inserted text starts with what was
-- typed); only the popup is replaced, by a capture of what it would show.
-- For each line typed, writes `TYPED: WORD WORD ...` to $HANDSH_NVIM_OUT.
local out = assert(io.open(os.getenv("HANDSH_NVIM_OUT"), "w"))
local function say(line) out:write(line .. "\n") out:flush() end

local client = vim.lsp.start_client({
  name = "handsh",
  cmd = { os.getenv("HANDSH_BIN"), "--lsp" },
  root_dir = vim.fn.getcwd(),
  -- Each change sent at once, as when the user pauses before asking.
  flags = { debounce_text_changes = 0 },
})
vim.lsp.buf_attach_client(0, client)
vim.wait(10000, function()
  local c = vim.lsp.get_client_by_id(client)
  return c ~= nil and c.initialized
end, 20)
vim.bo.omnifunc = "v:lua.vim.lsp.omnifunc"
-- The cursor after the last character, as in insert mode.
vim.o.virtualedit = "onemore"

local captured = nil
vim.fn.mode = function() return "i" end
vim.fn.complete = function(_, items) captured = items end

for _, typed in ipairs({ "add k", "add t", "add kh", "add qh", "add 1", "de" }) do
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { typed })
  vim.api.nvim_win_set_cursor(0, { 1, #typed })
  -- The user pauses before asking: the change has gone out.
  vim.wait(200)
  captured = nil
  -- What Ctrl-X Ctrl-O calls: findstart sends the request and returns -2;
  -- the answer, filtered by Neovim, goes to complete().
  vim.lsp.omnifunc(1, "")
  vim.wait(10000, function() return captured ~= nil end, 20)
  local words = {}
  for _, item in ipairs(captured or {}) do table.insert(words, item.word) end
  say(typed .. ": " .. table.concat(words, " "))
end

vim.lsp.stop_client(client)
out:close()
vim.cmd("qa!")
