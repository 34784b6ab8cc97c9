"""``skillkit check`` below the argument parser: run the check, print, return the exit code.

Two parsers feed :func:`execute`: the typer command in ``cli.py`` (for ``--help`` and the
command list) and :func:`main`, which the console script uses for ``skillkit check``
itself: importing typer (and the pydantic it pulls in) costs more than checking a few
hundred skills, and even ``argparse`` (with the ``gettext`` and ``locale`` lookups it makes
while building a parser) costs as much as checking ten, so :func:`parse_options` reads the
words itself, as the standard library's ``getopt.gnu_getopt`` reads long options (whose
import of ``gettext`` costs a one-folder check a fiftieth). Both parsers accept the same
options; tests keep them in step, and the reading equal to ``gnu_getopt``'s.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from skillkit_core.errors import SkillkitError

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any, NoReturn

    from skillkit_core.lint.check_paths import CheckOutcome
    from skillkit_core.lint.parallel import Helpers, Work

USAGE_ERROR = 2
# The report could not be written (a full disk): the check itself failed, as on misuse.
OUTPUT_ERROR = 2


def execute(
    paths: Sequence[str],
    *,
    output_format: str = "text",
    strict: bool = False,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    fix: bool = False,
    hosts: bool = False,
    config: str | None = None,
    no_cache: bool = False,
    helpers: Helpers | None = None,
) -> int:
    """Check ``paths``, print the result in ``output_format``, return the exit code.

    SKILL.md folders checked before and unchanged since are read back from the user's
    result cache (:mod:`~skillkit_core.lint.result_cache`) unless ``no_cache`` or the
    ``SKILLKIT_NO_CACHE`` environment variable turns it off. ``helpers`` are processes
    started early to share the folders (see :func:`_start_helpers`)."""
    from skillkit_core.lint import format as formats
    from skillkit_core.lint.check_paths import run_check
    from skillkit_core.lint.result_cache import ResultCache

    try:
        if output_format not in formats.FORMATS:
            raise SkillkitError(
                f"unknown format '{output_format}'; use {', '.join(formats.FORMATS)}",
                code="usage",
            )
        cache = None if no_cache else ResultCache.default()
        outcome = run_check(
            paths,
            select=select,
            ignore=ignore,
            strict=strict or None,
            fix=fix,
            config_file=config,
            hosts=hosts,
            helpers=helpers,
            cache=cache,
        )
    except SkillkitError as error:
        _usage_error(error)
        return USAGE_ERROR
    if cache is not None and cache.refused:
        _warn(f"results are not kept: {cache.refused}")
    for reason in outcome.fixes_refused:
        _warn(f"not fixed: {reason}")
    if sys.stdout is None:  # started without stdout: nobody reads the report
        return outcome.run.exit_code
    try:
        _report(outcome, output_format, fix=fix, hosts=hosts)
        sys.stdout.flush()
    except BrokenPipeError:
        raise  # the reader went away: the console script stops quietly
    except OSError as error:  # a full disk, say
        from skillkit_core.streams import cannot_write, send_to_null

        send_to_null(sys.stdout)
        _say(f"error[output]: {cannot_write(error)}")
        return OUTPUT_ERROR
    return outcome.run.exit_code


def _report(outcome: CheckOutcome, output_format: str, *, fix: bool, hosts: bool) -> None:
    """Print the findings of ``outcome`` in ``output_format``."""
    from skillkit_core.lint import format as formats
    from skillkit_core.streams import readable, utf8

    run = outcome.run
    # JSON, SARIF and annotations are read by programs, in UTF-8 (RFC 8259, SARIF 3.1);
    # a Windows code page or LC_ALL=C made them a UnicodeEncodeError and an empty file.
    if output_format == "text":
        readable(sys.stdout)
    else:
        utf8(sys.stdout)
    if output_format == "text":
        console = _text_console(hosts)
        if fix:
            fixes, files = outcome.fixes_applied, len(outcome.files_fixed)
            console.print(
                f"Applied {fixes} {'fix' if fixes == 1 else 'fixes'} "
                f"in {files} {'file' if files == 1 else 'files'}."
            )
        formats.render_text(run, console, fixed=fix)
        if hosts:
            formats.render_hosts(run, console)
    elif output_format == "json":
        print(formats.render_json(run, hosts=hosts))
    elif output_format == "sarif":
        print(formats.render_sarif(run))
    else:
        print(formats.render_github(run))


def _text_console(hosts: bool) -> Any:
    """rich on a terminal (colours) and for the hosts table; plain text otherwise, which
    prints the same characters without rich's import (a fifth of a one-folder check)."""
    import os

    wants_rich = hosts or sys.stdout.isatty()
    # rich colours a pipe too when asked (FORCE_COLOR, TTY_COMPATIBLE): keep it then.
    if wants_rich or os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1":
        from rich.console import Console

        return Console(highlight=False, soft_wrap=True)
    from skillkit_core.lint.format import PlainConsole

    return PlainConsole()


# The long options of ``skillkit check``: the parameter of :func:`execute` each sets, and
# whether it takes a value (repeatable ones collect a list).
OPTIONS: dict[str, tuple[str, bool]] = {
    "format": ("output_format", True),
    "strict": ("strict", False),
    "select": ("select", True),
    "ignore": ("ignore", True),
    "fix": ("fix", False),
    "hosts": ("hosts", False),
    "config": ("config", True),
    "no-cache": ("no_cache", False),
}
_REPEATABLE = frozenset({"select", "ignore"})


def parse_options(argv: Sequence[str]) -> dict[str, Any]:
    """The keyword arguments of :func:`execute` for ``argv`` (the words after ``check``).

    Options may come before, between or after the paths, as ``--name value`` or
    ``--name=value``, abbreviated to any unique prefix; ``--`` ends them. Raises
    :class:`SkillkitError` (code ``usage``) for an unknown or malformed option.
    """
    found, paths = read_words(argv)
    options: dict[str, Any] = {"paths": paths}
    for name, value in found:
        parameter, takes_value = OPTIONS[name]
        if name in _REPEATABLE:
            options.setdefault(parameter, []).append(value)
        else:
            options[parameter] = value if takes_value else True
    return options


def read_words(argv: Sequence[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """``argv`` split into options (full name, value; ``""`` for a flag) and other words,
    the way ``getopt.gnu_getopt(argv, "", spec)`` splits it for :data:`OPTIONS` (same
    order, same values, same error messages): options anywhere unless the environment
    sets ``POSIXLY_CORRECT`` (then the first other word ends them), ``--`` ends them, a
    lone ``-`` is a word, and there are no one-letter options."""
    import os

    options_first = bool(os.environ.get("POSIXLY_CORRECT"))
    found: list[tuple[str, str]] = []
    words: list[str] = []
    at = 0
    while at < len(argv):
        word = argv[at]
        at += 1
        if word == "--":
            words += argv[at:]
            break
        if word.startswith("--"):
            written, equals, value = word[2:].partition("=")
            name, takes_value = _long_option(written)
            if takes_value and not equals:
                if at == len(argv):
                    raise SkillkitError(f"option --{name} requires argument", code="usage")
                value = argv[at]
                at += 1
            elif equals and not takes_value:
                raise SkillkitError(f"option --{name} must not have an argument", code="usage")
            found.append((name, value))
        elif word.startswith("-") and word != "-":
            raise SkillkitError(f"option -{word[1]} not recognized", code="usage")
        elif options_first:
            words += argv[at - 1 :]
            break
        else:
            words.append(word)
    return found, words


def _long_option(written: str) -> tuple[str, bool]:
    """The option ``--written`` names (exactly, or as the unique prefix of one) and
    whether it takes a value."""
    if written in OPTIONS:
        return written, OPTIONS[written][1]
    names = [name for name in OPTIONS if name.startswith(written)]
    if not names:
        raise SkillkitError(f"option --{written} not recognized", code="usage")
    if len(names) > 1:
        raise SkillkitError(f"option --{written} not a unique prefix", code="usage")
    return names[0], OPTIONS[names[0]][1]


def main(argv: Sequence[str], helpers: Helpers | None = None) -> int:
    """Parse ``argv`` (the words after ``check``) and run :func:`execute`."""
    try:
        options = parse_options(argv)
    except SkillkitError as error:
        _usage_error(error)
        return USAGE_ERROR
    return execute(**options, helpers=helpers)


def _warn(message: str) -> None:
    _say(f"warning: {message}")


def _usage_error(error: SkillkitError) -> None:
    _say(f"error[{error.code}]: {error.message}")


def _say(line: str) -> None:
    # The line can quote a path from the command line, control characters and all.
    from skillkit_core.safe_text import escape_controls

    print(escape_controls(line), file=sys.stderr)


def _start_helpers() -> Helpers:
    """Helpers for the folders, forked before anything else is imported: they import the
    rules while this process reads the options and walks the folders (and the less
    memory they share with it, the less either copies on write). One per usable CPU
    beyond the first, up to :data:`~skillkit_core.lint.parallel.MAX_EARLY_HELPERS`.
    """
    from skillkit_core.lint.parallel import MAX_EARLY_HELPERS, Helpers, usable_cpus

    return Helpers.start(_folder_work, min(usable_cpus() - 1, MAX_EARLY_HELPERS))


def _may_walk_many(argv: Sequence[str]) -> bool:
    """Whether helpers may pay for ``argv``: a folder to walk (one that is not a skill
    folder itself) or many paths. Checking one skill folder, or a few, never forks (a
    fork, and the imports the helper then makes on the other CPU, cost more than the
    check)."""
    import os

    from skillkit_core.lint.parallel import MIN_ITEMS

    try:
        paths = parse_options(argv)["paths"]
    except SkillkitError:
        return False  # main reports the misuse
    if len(paths) >= MIN_ITEMS:
        return True
    return any(os.path.isdir(path) and not _holds_manifest(path) for path in paths)


def _holds_manifest(folder: str) -> bool:
    import os

    return any(os.path.isfile(os.path.join(folder, name)) for name in ("SKILL.md", "skill.md"))


def _folder_work() -> Work:
    from skillkit_core.lint.check_paths import prepare_folder_work

    return prepare_folder_work()


def main_and_exit(argv: Sequence[str]) -> NoReturn:
    """:func:`main` as a whole process (the console script's ``skillkit check``).

    A check leaves no reference cycles behind, so it runs without the cyclic collector
    (which would only walk the imported modules' objects again and again); and it exits
    once output is flushed and exit handlers have run, skipping the interpreter's
    teardown (freeing every module and object one by one costs a tenth of checking 200
    skills, and nothing else happens in it for this command). Helpers for a walk of many
    folders start first of all, so their imports overlap the parsing and the walk; before
    them, the patterns compiled by earlier runs are loaded
    (:mod:`~skillkit_core.pattern_cache`), and those this run compiled are kept once the
    output is out.
    """
    import atexit
    import gc
    import os

    from skillkit_core.lint.result_cache import open_patterns

    gc.disable()
    patterns = open_patterns()
    helpers = _start_helpers() if _may_walk_many(argv) else None
    try:
        code = main(argv, helpers)
    finally:
        if helpers is not None:
            helpers.dismiss()
    _flush_streams()
    if patterns is not None:
        patterns.save()
    atexit._run_exitfuncs()
    _flush_streams()
    os._exit(code)


def _flush_streams() -> None:
    """Flush stdout and stderr, either of which the process may have been started
    without (``None``); what fails to be written was reported by :func:`main`."""
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


if __name__ == "__main__":
    main_and_exit(sys.argv[1:])
