"""What a skill's own code raised, said in a result whatever it was.

A callback (a prompt, ``next``, an action, ``save``, a validator) that raises
``SystemExit``, ``KeyboardInterrupt`` or any other ``BaseException`` ends the call as an
``Exception`` does: a ``runtime`` result. It used to end the process with no result at
all (exit 0 for ``sys.exit(0)``), and over MCP the whole server with every session in it.
Only an asyncio cancellation passes through: it belongs to the event loop running the
call, not to the skill.
"""

from __future__ import annotations

import sys


def skill_raised(error: BaseException) -> str:
    """What skill code raised, for its error result (:func:`described`), called in the
    ``except BaseException`` around the skill's code: an asyncio cancellation is not the
    skill's to report, and is raised again."""
    asyncio = sys.modules.get("asyncio")  # not imported: nothing can be cancelled
    if asyncio is not None and isinstance(error, asyncio.CancelledError):
        raise error
    return described(error)


def described(error: BaseException) -> str:
    """``Type: message`` of an error skill code raised, whatever its ``__str__`` does
    (one that raises, or exits, is named by its type alone); ``sys.exit`` is named so.
    A group of one error (a task group's, around an action run in a thread) is that
    error."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    name = type(error).__name__
    try:
        if isinstance(error, SystemExit):
            return f"{name} (sys.exit({error.code!r}))"
        text = str(error)
    except BaseException:  # the skill's __str__ or __repr__, whatever it raised
        return f"{name} (its message cannot be read: its __str__ raised)"
    return f"{name}: {text}" if text else name


def import_failure(error: BaseException) -> str:
    """What stopped a skill's module while it was imported (``skillkit run`` and a built
    skill say it alike)."""
    if isinstance(error, SystemExit):
        return f"the module called exit({error.code!r}) while being imported"
    return described(error)
