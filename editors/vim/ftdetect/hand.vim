" Vim file-type detection for handsh(1) scripts: files named *.hand, and
" files whose first line is a shebang that runs handsh, such as
" `#!/usr/bin/env handsh` or `#!/usr/bin/env -S handsh --seed 42`.
" Installed as share/vim/vimfiles/ftdetect/hand.vim.
autocmd BufNewFile,BufRead *.hand setfiletype hand
autocmd BufNewFile,BufRead *
      \ if !did_filetype() && getline(1) =~# '^#!.*[/ \t]handsh\%([ \t]\|$\)' |
      \   setfiletype hand |
      \ endif
