"""``python -m skillkit_core.protocol ENTRY [scripts/run arguments…]``: the protocol for a
skill file without typer (the light path a built ``scripts/run`` can use)."""

from __future__ import annotations

import sys

from skillkit_core.protocol.runner import run_entry
from skillkit_core.streams import claim_stdout

if __name__ == "__main__":
    arguments = sys.argv[1:]
    entry, rest = (arguments[0], arguments[1:]) if arguments else (None, [])
    sys.exit(run_entry(entry, rest, stdout=claim_stdout()))
