"""``python -m skillkit_core``: the ``skillkit`` command."""

from skillkit_core.entry import main

main()
