"""``python -m skill_lsp``: the language server over stdio."""

if __name__ == "__main__":
    # Before the server's imports compile their patterns (see skill_lsp.server.main).
    from skillkit_core.lint.result_cache import open_patterns

    open_patterns()

    from skill_lsp.server import main

    main()
