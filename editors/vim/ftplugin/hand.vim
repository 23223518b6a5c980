" Vim and Neovim file-type settings for handsh(1) scripts: `#` starts a
" comment, and in Neovim completion (Ctrl-X Ctrl-O) asks the language
" server (handsh --lsp) once one is attached. Installed as
" share/vim/vimfiles/ftplugin/hand.vim and share/nvim/site/ftplugin/hand.vim.
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1
setlocal commentstring=#\ %s comments=:#
if has("nvim-0.5")
  setlocal omnifunc=v:lua.vim.lsp.omnifunc
endif
let b:undo_ftplugin = "setlocal commentstring< comments< omnifunc<"
