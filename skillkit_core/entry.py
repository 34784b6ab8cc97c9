"""The ``skillkit`` console script (and ``python -m skillkit_core``).

``skillkit run`` and ``skillkit check`` are dispatched before typer is imported: importing
it (and rich) costs more than a protocol step or checking 200 skills. Every other command,
and ``--help`` everywhere, goes through the typer app in :mod:`skillkit_core.cli`.
``skillkit check`` also runs without the cyclic garbage collector and exits without the
interpreter's teardown, for the same reason.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Console-script entry point."""
    try:
        sys.exit(_dispatch(sys.argv[1:]))
    except BrokenPipeError:
        # The reader went away (`skillkit check | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except KeyboardInterrupt:
        # Ctrl-C: stop without a traceback, with the shell's code for it (128 + SIGINT).
        sys.exit(130)
    except OSError as error:
        if not _failed_writing(error):
            raise
        # Output cannot be written (a full disk): say so, as the error of the command.
        import contextlib

        from skillkit_core.streams import cannot_write, send_to_null

        send_to_null(sys.stdout)
        with contextlib.suppress(OSError, ValueError, AttributeError):  # stderr may fail too
            print(f"error[output]: {cannot_write(error)}", file=sys.stderr)
        sys.exit(1)


def _failed_writing(error: OSError) -> bool:
    """Whether ``error`` stopped the command's output: stdout fails again (what it
    could not write stays in its buffer), or an error that only writing gives came
    from an open stream (an unbuffered stdout, a file being written), which names no
    file as opening one does."""
    from skillkit_core.streams import failed_on_stream

    if failed_on_stream(error):
        return True
    if sys.stdout is None:  # started without stdout: the error was another
        return False
    try:
        sys.stdout.flush()
    except OSError:
        return True
    except ValueError:  # closed
        return False
    return False


def _dispatch(words: list[str]) -> int | None:
    if words[:1] == ["run"]:
        # The agent protocol's arguments pass through exactly as given (no option parsing).
        from skillkit_core.protocol.runner import run_entry
        from skillkit_core.streams import claim_stdout

        rest = words[1:]
        return run_entry(rest[0] if rest else None, rest[1:], stdout=claim_stdout())
    if not _only_informs(words) and not _in_a_folder_that_exists():
        return 2
    if words[:1] == ["check"] and not {"-h", "--help"} & set(words):
        from skillkit_core.lint.check_command import main_and_exit

        main_and_exit(words[1:])
    from skillkit_core.cli import app

    app()
    return None


def _only_informs(words: list[str]) -> bool:
    """Whether the command line only asks for help or the version (no paths read)."""
    return not words or words[0] in ("version", "--version") or bool({"-h", "--help"} & set(words))


def _in_a_folder_that_exists() -> bool:
    """Whether the current folder is still there. Every command but ``run`` (whose agent
    may stand anywhere, and which names its files absolutely) reads paths relative to it
    and its configuration above it: in a deleted folder, say so once, as git does."""
    try:
        os.getcwd()
    except OSError as error:
        print(
            f"error[usage]: the current folder cannot be found ({error.strerror}); "
            "change to a folder that exists",
            file=sys.stderr,
        )
        return False
    return True
