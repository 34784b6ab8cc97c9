" skillkit's server in Vim with ALE as its LSP client, in silent Ex mode.
"
" Sources $SKILLKIT_CONFIG (the ALE configuration of docs/guides/editors.md), opens
" $SKILLKIT_FILE (a SKILL.md), waits for the server's diagnostics in ALE's
" location list, asks for the hover on the `description' key with ALE's own
" hover (shown in the preview window), asks for its document links with ALE's
" request API, and writes what it saw as JSON to
" $SKILLKIT_OUT. Run by tests/editors/test_vim_ale.py.

let s:seen = {'errors': {}}

function! s:Wait(what, condition, seconds) abort
  let l:waited = 0
  while !eval(a:condition) && l:waited < a:seconds * 20
    sleep 50m
    let l:waited += 1
  endwhile
  if !eval(a:condition)
    let s:seen.errors[a:what] = 'timed out'
    return 0
  endif
  return 1
endfunction

function! s:Write() abort
  call writefile([json_encode(s:seen)], $SKILLKIT_OUT)
endfunction

try
  filetype plugin on
  " The guide's configuration, as a user's vimrc has it (the test's interpreter in place
  " of `python3').
  execute 'source' fnameescape($SKILLKIT_CONFIG)
  let g:ale_hover_to_preview = 1

  execute 'edit' fnameescape($SKILLKIT_FILE)
  let s:seen.filetype = &filetype
  let s:seen.root = ale#lsp_linter#FindProjectRoot(bufnr(''), ale#linter#Get('markdown')[0])
  ALELint
  if s:Wait('diagnostics', '!empty(ale#engine#GetLoclist(bufnr("")))', 60)
    let s:seen.diagnostics = map(copy(ale#engine#GetLoclist(bufnr(''))),
    \ {_, item -> {'code': get(item, 'code', ''), 'text': item.text,
    \              'type': item.type, 'lnum': item.lnum, 'col': item.col}})
  endif

  call cursor(search('^description:', 'w'), 1)
  call ale#hover#Show(bufnr(''), line('.'), col('.'), {})
  function! s:Preview() abort
    for l:window in range(1, winnr('$'))
      if getwinvar(l:window, '&previewwindow')
        return join(getbufline(winbufnr(l:window), 1, '$'), "\n")
      endif
    endfor
    return ''
  endfunction
  if s:Wait('hover', '!empty(s:Preview())', 30)
    let s:seen.hover = s:Preview()
  endif

  " Document links through ALE's request API (ALE has no document-link command).
  let s:links = v:null
  function! s:OnLinks(response) abort
    let s:links = get(a:response, 'result', [])
  endfunction
  call ale#lsp_linter#SendRequest(bufnr(''), 'skillkit', [0, 'textDocument/documentLink',
  \ {'textDocument': {'uri': ale#path#ToFileURI(expand('%:p'))}}],
  \ function('s:OnLinks'))
  if s:Wait('links', 's:links isnot v:null', 30)
    let s:seen.links = map(copy(s:links),
    \ {_, link -> {'target': link.target, 'line': link.range.start.line}})
  endif
catch
  let s:seen.errors.session = v:exception . ' at ' . v:throwpoint
endtry

call s:Write()
qall!
