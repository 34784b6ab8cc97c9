"""The semantic layer's isolated worker process and the server-side manager that drives it.

The worker (``python -m skill_lsp.worker``) executes the author's module, so it runs in its
own process: a hang, a crash or a ``sys.exit`` there costs a restart, never the server.
Importing this package is free; the server imports :mod:`skill_lsp.worker.manager`.
"""
