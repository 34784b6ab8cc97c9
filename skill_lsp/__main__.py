"""``python -m skill_lsp``: the language server over stdio."""

from skill_lsp.server import main

if __name__ == "__main__":
    main()
