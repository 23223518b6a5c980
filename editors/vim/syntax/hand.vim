" Vim syntax file for handsh(1) scripts (.hand files).
" Installed as share/vim/vimfiles/syntax/hand.vim; the language is described
" in handsh(1), THE LANGUAGE, and the expected-output lines in GOLDEN TESTS.
"
" Groups: handCommand (command names), handEmpty (`empty` after expect),
" handRedCard and handBlackCard (cards: hearts and diamonds are red),
" handNumber, handFile (a quoted file name), handSeparator (`;`),
" handComment, handShebang, and handExpectOut and handExpectErr: the lines
" that start with `#>` (an expected line of the standard output) and `#2>`
" (of the standard error), shown apart from plain comments.

if exists('b:current_syntax')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syntax case match

" A word starts at the start of a line or after a space, a tab or `;`, and
" ends before one of them, a `#` (which starts a comment even inside a word)
" or the end of the line.
let s:before = '\%(^\|[ \t;]\)\@<='
let s:after = '\ze\%([ \t;#]\|$\)'

" The command names, lowercase only (handsh(1), COMMANDS).
syntax keyword handCommand add del mv undo redo goto earlier later new limit expect show deck
syntax keyword handCommand history save source help quit exit
syntax keyword handEmpty empty

" A card: a rank, then a suit as a symbol (optionally followed by U+FE0F) or
" a letter, in any case.
let s:rank = '\%(10\|[2-9ajqkt]\)'
execute 'syntax match handRedCard /\c' . s:before . s:rank
      \ . '\%([hd]\|♥\|♦\|♡\|♢\)\%(\%uFE0F\)\=' . s:after . '/'
execute 'syntax match handBlackCard /\c' . s:before . s:rank
      \ . '\%([cs]\|♣\|♠\|♧\|♤\)\%(\%uFE0F\)\=' . s:after . '/'

" Positions, counts, limits and seeds: decimal digits.
execute 'syntax match handNumber /' . s:before . '\d\+' . s:after . '/'

" A quoted FILE: a double quote at the start of a word, up to the closing
" quote or the end of the line; \" and \\ stand for " and \.
execute 'syntax region handFile start=/' . s:before . '"/ skip=/\\[\\"]/ end=/"/ end=/$/ oneline contains=handFileEscape'
syntax match handFileEscape /\\[\\"]/ contained

syntax match handSeparator /;/

" Comments; the golden-test lines and the shebang start at the first byte of
" a line and are matched after (so before) a plain comment.
syntax match handComment /#.*$/ contains=@Spell
syntax match handExpectOut /^#>\%( .*\)\=$/ contains=handExpectOutMarker
syntax match handExpectOutMarker /^#>/ contained
syntax match handExpectErr /^#2>\%( .*\)\=$/ contains=handExpectErrMarker
syntax match handExpectErrMarker /^#2>/ contained
syntax match handShebang /\%1l^#!.*$/

highlight default link handCommand Statement
highlight default link handEmpty Constant
highlight default handRedCard ctermfg=Red guifg=#cc0000
highlight default link handBlackCard Identifier
highlight default link handNumber Number
highlight default link handFile String
highlight default link handFileEscape SpecialChar
highlight default link handSeparator Delimiter
highlight default link handComment Comment
highlight default link handExpectOut String
highlight default link handExpectOutMarker Special
highlight default link handExpectErr WarningMsg
highlight default link handExpectErrMarker Special
highlight default link handShebang PreProc

let b:current_syntax = 'hand'

let &cpo = s:cpo_save
unlet s:cpo_save
