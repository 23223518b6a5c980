Content-Length: 259

{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///fuzz/a.hand", "languageId": "hand", "version": 1, "text": "#!/usr/bin/env -S handsh --seed 42\nadd; add\n#> 7♥\n#> 3♣ 8♥\ndel 2\nsource x.hand\ngoto 1\n"}}}Content-Length: 160

{"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///fuzz/a.hand"}, "position": {"line": 4, "character": 4}}}Content-Length: 252

{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "file:///fuzz/a.hand", "version": 2}, "contentChanges": [{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 3}}, "text": "del 1"}]}}Content-Length: 241

{"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction", "params": {"textDocument": {"uri": "file:///fuzz/a.hand"}, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 3, "character": 0}}, "context": {"diagnostics": []}}}Content-Length: 165

{"jsonrpc": "2.0", "id": 4, "method": "textDocument/completion", "params": {"textDocument": {"uri": "file:///fuzz/a.hand"}, "position": {"line": 6, "character": 5}}}Content-Length: 208

{"jsonrpc": "2.0", "id": 5, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "file:///fuzz/a.hand"}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}}}Content-Length: 77

{"jsonrpc": "2.0", "id": 6, "method": "$/cancelRequest", "params": {"id": 7}}Content-Length: 49

{"jsonrpc": "2.0", "id": 7, "method": "shutdown"}