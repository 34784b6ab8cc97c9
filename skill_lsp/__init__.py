"""skill_lsp: the skillkit language server (pygls), a thin layer over ``skillkit_core``.

Start it with ``skillkit lsp`` or ``python -m skill_lsp`` (stdio).
"""
