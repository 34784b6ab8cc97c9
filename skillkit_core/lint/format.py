"""Output of ``skillkit check``: text (grouped by file, code frames), JSON, SARIF and
GitHub Actions annotations, plus the host compatibility matrix.

Positions in JSON are the core's (0-based lines and code-point columns, fields ``line``,
``column``, ``end_line``, ``end_column``); text, SARIF and GitHub show 1-based ones.

Every format is safe to print whatever the skill folders hold: each shows at most
:data:`~skillkit_core.lint.capping.MAX_PER_RULE` findings of one rule in one file (then how
many more there are), messages are cut at
:data:`~skillkit_core.lint.capping.MAX_MESSAGE` characters, code frames show a window of
:data:`FRAME_WIDTH` characters around the finding instead of whole lines, and control
characters are escaped (:mod:`skillkit_core.safe_text`). The summary counts every finding.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator

from skillkit_core.lint.capping import Capped, shown
from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange
from skillkit_core.safe_text import escape_controls, escape_json_controls

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any, TextIO

    from rich.console import Console

    from skillkit_core.lint.check_paths import CheckRun

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
# Characters of a source line shown in a code frame, around the finding.
FRAME_WIDTH = 120


def _more_text(capped: Capped) -> str:
    return f"… and {capped.more} more [{capped.rule}] in this file"


# ---------------------------------------------------------------- text


class Styled:
    """A line of output as ``(text, style)`` segments (rich style names), printed in
    colour by rich on a terminal and as plain text elsewhere without importing rich."""

    def __init__(self, text: str = "", style: str | None = None) -> None:
        self.segments: list[tuple[str, str | None]] = [(text, style)] if text else []

    def append(self, text: str, style: str | None = None) -> None:
        self.segments.append((text, style))

    def rstrip(self) -> None:
        """Drop trailing whitespace (and segments left empty)."""
        while self.segments:
            text, style = self.segments[-1]
            if text.rstrip():
                self.segments[-1] = (text.rstrip(), style)
                return
            self.segments.pop()

    def __str__(self) -> str:
        return "".join(text for text, _ in self.segments)

    def rich(self) -> Any:
        """The same line as a :class:`rich.text.Text`."""
        from rich.text import Text

        line = Text()
        for text, style in self.segments:
            line.append(text, style=style)
        return line


class PlainConsole:
    """Prints :class:`Styled` lines and strings as plain text, the way a rich console
    without colour and with soft wrapping prints them (a test holds the two equal)."""

    def __init__(self, file: TextIO | None = None) -> None:
        self.file = file

    def print(self, line: Styled | str = "") -> None:
        print(str(line), file=self.file or sys.stdout)


def render_text(
    run: CheckRun, console: Console | PlainConsole, *, context: int = 1, fixed: bool = False
) -> None:
    """Print diagnostics grouped by file, each with ``file:line:col`` and a code frame;
    ``fixed``: the run is what ``--fix`` left (see :func:`summary`)."""
    show = console.print if isinstance(console, PlainConsole) else _rich_printer(console)
    bar = "│" if _takes(console, "│") else "|"
    sources = _SourceCache()
    diagnostics, capped = shown(run.diagnostics)
    more: dict[str | None, list[Capped]] = {}
    for item in capped:
        more.setdefault(item.file, []).append(item)
    for file, group in _by_file(diagnostics):
        show(Styled(_shown_path(file), style="bold underline"))
        for diagnostic in group:
            show(_headline(diagnostic))
            if diagnostic.range is not None:
                upto = diagnostic.range.line + context + 1
                lines = sources.lines(diagnostic.file, upto)
                frame = _frame(lines, diagnostic.range, context, bar)
                if frame is not None:
                    show(frame)
        for item in more.get(group[0].file, ()):
            show(Styled(f"  {_more_text(item)}", style="dim"))
        show("")
    show(Styled(summary(run, fixed=fixed), style="bold"))


def _rich_printer(console: Console) -> Callable[[Styled | str], None]:
    def show(line: Styled | str) -> None:
        console.print(line.rich() if isinstance(line, Styled) else line)

    return show


def _headline(diagnostic: LintDiagnostic) -> Styled:
    where = diagnostic.file or "<unknown>"
    if diagnostic.range is not None:
        where += f":{diagnostic.range.line + 1}:{diagnostic.range.column + 1}"
    line = Styled(f"  {_shown_path(where)}: ")
    line.append(diagnostic.severity, style=_STYLES[diagnostic.severity])
    line.append(f" [{diagnostic.rule}] ", style="dim")
    first, *more = _shown(diagnostic.message).split("\n")
    line.append(first)
    if diagnostic.step:
        line.append(f" (step '{_shown(diagnostic.step, line_breaks=True)}')", style="dim")
    if diagnostic.fix is not None:
        line.append(" (fixable)", style="green")
    elif diagnostic.suggestions:
        # Fixes that may change the skill's meaning: named, never applied by --fix.
        count = len(diagnostic.suggestions)
        line.append(f" ({count} suggested fix{'es' if count > 1 else ''})", style="dim")
    for text in more:  # a message over several lines (an exception's, say)
        line.append(f"\n{_CONTINUED}{text}")
    return line


# Where the later lines of a message start. The GitHub runner reads a line that starts,
# after its leading blanks, with "::" as a command (actions/runner ActionCommand
# .TryParseV2), and one holding "##[" anywhere as an older one (TryParse): text a skill
# controls must start no line and hold no "##[" (see _shown).
_CONTINUED = "      | "


def _shown(text: str, *, line_breaks: bool = False) -> str:
    """Text a skill controls, for the text format: control characters escaped, and the
    "##[" of the runner's older commands written ``#\x23[`` (``##[error]`` in a folder
    name or a frontmatter value made an annotation of its own)."""
    return escape_controls(text, line_breaks=line_breaks).replace("##[", "#\\x23[")


def _shown_path(path: str) -> str:
    """``path`` on one line, written from ``./`` when it would start a runner command
    once its leading blanks are trimmed (a folder named ``::error file=README.md::forged``
    made its own annotation, and `` ::error`` with a space did too)."""
    return _not_a_command(_shown(path, line_breaks=True))


def _not_a_command(shown: str) -> str:
    """A shown path written from ``./`` when its line would start a runner command."""
    return f"./{shown}" if shown.lstrip().startswith("::") else shown


def _takes(console: Console | PlainConsole, text: str) -> bool:
    """Whether ``console``'s stream can encode ``text`` (a Windows code page cannot take
    the frame's bar)."""
    try:
        text.encode(getattr(console.file or sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _frame(
    lines: list[str] | None, where: SourceRange, context: int, bar: str = "│"
) -> Styled | None:
    """The finding's line and ``context`` lines around it, each cut to the same window of
    :data:`FRAME_WIDTH` characters around the finding's column, with a caret line."""
    if not lines or where.line >= len(lines):
        return None
    first = max(0, where.line - context)
    last = min(len(lines) - 1, where.line + context)
    width = len(str(last + 1))
    # The window starts a third of its width before the finding, or earlier so as to be
    # full (a line that fits is shown whole).
    start = max(0, min(where.column - FRAME_WIDTH // 3, len(lines[where.line]) - FRAME_WIDTH))
    stop = start + FRAME_WIDTH
    frame = Styled()
    for number in range(first, last + 1):
        content = lines[number]
        marker = ">" if number == where.line else " "
        frame.append(f"  {marker} {number + 1:>{width}} {bar} ", style="dim")
        before = "…" if start > 0 and content else ""
        after = "…" if len(content) > stop else ""
        frame.append(before + _shown_source(content[start:stop]) + after + "\n")
        if number == where.line:
            end = where.end_column if where.end_line == where.line else len(content)
            end = min(max(end, where.column + 1), stop, max(len(content), where.column + 1))
            column = min(where.column, len(content))
            indent = len(before) + len(_shown_source(content[start:column]))
            length = max(1, len(_shown_source(content[column:end])))
            frame.append(f"    {'':>{width}} {bar} " + " " * indent, style="dim")
            frame.append("^" * length + "\n", style="bold red")
    frame.rstrip()
    return frame


def _shown_source(text: str) -> str:
    return _shown(text.replace("\t", " "), line_breaks=True)


class _SourceCache:
    """File texts read once per render (code frames of many diagnostics share them)."""

    def __init__(self) -> None:
        self._texts: dict[str, str | None] = {}

    def lines(self, file: str | None, count: int) -> list[str] | None:
        """The first ``count`` lines of ``file`` (fewer when it has fewer): a frame
        needs the lines up to its last, not a split of the whole file."""
        if file is None:
            return None
        if file not in self._texts:
            self._texts[file] = _frame_text(file)
        text = self._texts[file]
        return None if text is None else text.split("\n", count)[:count]


# The most of a file a code frame is drawn from: a frame needs lines near the top of a
# text file, and a diagnostic's file may be anything (a device, a FIFO, huge).
_FRAME_BYTES = 8 << 20


def _frame_text(file: str) -> str | None:
    """The text of a regular ``file`` with universal newlines, or ``None``: a FIFO is
    not waited on (``check`` hung for good drawing a frame in one), a device is not read
    (one linked to ``/dev/zero`` was read until memory ran out), and a symbolic link is not
    followed (a finding on a link to ``/etc/passwd`` printed its lines, which the check
    itself never reads)."""
    from skillkit_core.regular_file import read_regular_file

    try:
        data = read_regular_file(file, _FRAME_BYTES, follow=False)
    except OSError:
        return None
    if data is None:
        return None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def summary(run: CheckRun, *, fixed: bool = False) -> str:
    """One line: counts by severity, files, fixable and suppressed findings. ``fixed``:
    the run is what ``--fix`` left, so a fixable finding is one it refused to fix (each
    refusal has its warning)."""
    targets = len(run.reports)
    noun = "target" if targets == 1 else "targets"
    if not run.diagnostics:
        text = f"No problems found in {targets} {noun}."
    else:
        parts = [
            f"{run.count(s)} {s}{'s' if run.count(s) != 1 and s != 'info' else ''}"
            for s in ("error", "warning", "info")
            if run.count(s)
        ]
        text = f"Found {', '.join(parts)} in {targets} {noun}."
    extras = []
    if run.fixable:
        extras.append(
            f"{run.fixable} fixable but not fixed" if fixed else f"{run.fixable} fixable with --fix"
        )
    if run.suppressed:
        extras.append(f"{run.suppressed} suppressed inline")
    return text + (f" ({'; '.join(extras)})" if extras else "")


def _by_file(diagnostics: list[LintDiagnostic]) -> Iterator[tuple[str, list[LintDiagnostic]]]:
    groups: dict[str, list[LintDiagnostic]] = {}
    for diagnostic in diagnostics:
        groups.setdefault(diagnostic.file or "<unknown>", []).append(diagnostic)
    yield from groups.items()


# ---------------------------------------------------------------- hosts


def render_hosts(run: CheckRun, console: Console) -> None:
    """Print the host compatibility matrix and the reasons behind each refusal.

    Folders are named relative to the folder they share (named above the table), and
    the folder column keeps what room it needs: the verdict columns give way first, so
    at 80 columns each name stays readable (wrapped after a '/', never cut to
    ``/work/shared…``)."""
    from rich.table import Table
    from rich.text import Text

    from skillkit_core.manifest.compat import CONSUMERS

    reports = [r for r in run.reports if r.hosts]
    if not reports:
        console.print("No SKILL.md folders to judge.")
        return
    names, common = _short_labels([r.target.label for r in reports])
    if common:
        console.print(f"Skill folders under {common}:", soft_wrap=True)
    # The verdict columns as wide as their headers when the folder names fit beside
    # them, else as narrow as their longest word (the header wraps), and where even that
    # leaves the folder column too little room, without padding; the folder column
    # takes the rest, its names wrapped after a '/'.
    longest = max(len(name) for name in names)
    borders = 3 * (len(CONSUMERS) + 1) + 1
    narrow = [max(7, len(c.label)) for c in CONSUMERS]
    if console.width - sum(narrow) - borders < min(longest, 40):
        narrow = [max(7, *(len(word) for word in c.label.split())) for c in CONSUMERS]
    padding = 1
    if console.width - sum(narrow) - borders < min(longest, 20, console.width // 4):
        padding, borders = 0, len(CONSUMERS) + 2
    table = Table(title="Host compatibility", show_lines=False, padding=(0, padding))
    width = max(len("skill folder"), min(console.width - sum(narrow) - borders, longest))
    table.add_column("skill folder", overflow="fold", width=width)
    for consumer, size in zip(CONSUMERS, narrow, strict=True):
        table.add_column(consumer.label, justify="center", overflow="fold", max_width=size)
    for report, name in zip(reports, names, strict=True):
        cells = []
        for verdict in report.hosts:
            if not verdict.loads:
                cells.append(Text("✗ no", style="bold red"))
            elif verdict.reasons:
                cells.append(Text("✓ notes", style="yellow"))
            else:
                cells.append(Text("✓ yes", style="green"))
        table.add_row(_wrap_path(name, width), *cells)
    console.print(table)
    for report, name in zip(reports, names, strict=True):
        for verdict in report.hosts:
            for reason in verdict.reasons:
                label = f"  {_not_a_command(name)} · {verdict.consumer.label}: "
                console.print(Text(label, style="dim") + Text(_shown(reason, line_breaks=True)))


def _wrap_path(path: str, width: int) -> str:
    """``path`` in lines of at most ``width`` characters, broken after a ``/`` where one
    is (a part longer than a line is cut where the line ends)."""
    lines: list[str] = []
    line = ""
    for part in re.split(r"(?<=/)", path):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
        while len(line) > width:
            lines.append(line[:width])
            line = line[width:]
    return "\n".join([*lines, line] if line else lines)


def _short_labels(labels: list[str]) -> tuple[list[str], str]:
    """``labels`` relative to the folder they all lie in, and that folder (``""`` for a
    single label, or when they share none); all escaped for a terminal."""
    escaped = [_shown(label, line_breaks=True) for label in labels]
    if len(labels) < 2:
        return escaped, ""
    parts = [label.split("/") for label in labels]
    shared = 0
    for column in zip(*parts, strict=False):
        if any(part != column[0] for part in column):
            break
        shared += 1
    shared = min(shared, min(len(p) for p in parts) - 1)  # every name keeps its last part
    if shared == 0 or not any(parts[0][:shared]):
        return escaped, ""
    common = "/".join(parts[0][:shared]) or "/"
    short = ["/".join(p[shared:]) for p in parts]
    named = _shown(common, line_breaks=True)
    return [_shown(label, line_breaks=True) for label in short], named


# ---------------------------------------------------------------- json


def _range_json(where: SourceRange | None) -> dict[str, int] | None:
    if where is None:
        return None
    return {
        "line": where.line,
        "column": where.column,
        "end_line": where.end_line,
        "end_column": where.end_column,
    }


def diagnostic_json(diagnostic: LintDiagnostic) -> dict[str, Any]:
    """A diagnostic as a JSON-ready mapping."""
    found = {
        "rule": diagnostic.rule,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "file": diagnostic.file,
        "step": diagnostic.step,
        "range": _range_json(diagnostic.range),
        "fix": None if diagnostic.fix is None else _fix_json(diagnostic.fix, diagnostic),
    }
    if diagnostic.suggestions:
        # Fixes that may change the skill's meaning: offered, never applied by --fix.
        found["suggestions"] = [_fix_json(fix, diagnostic) for fix in diagnostic.suggestions]
    return found


def _fix_json(fix: Fix, diagnostic: LintDiagnostic) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": fix.title,
        "edits": [
            {
                "file": edit.file or diagnostic.file,
                "range": _range_json(edit.range),
                "new_text": edit.new_text,
            }
            for edit in fix.edits
        ],
    }
    if fix.executable:
        data["executable"] = list(fix.executable)
    if fix.renames:
        data["renames"] = [{"from": old, "to": new} for old, new in fix.renames]
    return data


def render_json(run: CheckRun, *, hosts: bool = False) -> str:
    """The whole run as one JSON document."""
    diagnostics, capped = shown(run.diagnostics)
    document: dict[str, Any] = {
        "version": 1,
        "diagnostics": [diagnostic_json(d) for d in diagnostics],
        "summary": {
            "targets": len(run.reports),
            "errors": run.count("error"),
            "warnings": run.count("warning"),
            "info": run.count("info"),
            "fixable": run.fixable,
            "suppressed": run.suppressed,
            "exit_code": run.exit_code,
        },
    }
    if capped:  # keys only a capped run has: findings left out beyond MAX_PER_RULE
        document["summary"]["not_shown"] = sum(item.more for item in capped)
        document["not_shown"] = [
            {"file": item.file, "rule": item.rule, "count": item.more} for item in capped
        ]
    if hosts:
        document["hosts"] = [
            {
                "target": report.target.label,
                "verdicts": [
                    {
                        "consumer": v.consumer.id,
                        "label": v.consumer.label,
                        "loads": v.loads,
                        "reasons": list(v.reasons),
                    }
                    for v in report.hosts
                ],
            }
            for report in run.reports
            if report.hosts
        ]
    import json

    return escape_json_controls(json.dumps(document, indent=2, ensure_ascii=False))


# ---------------------------------------------------------------- sarif

_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def render_sarif(run: CheckRun) -> str:
    """The run as a SARIF 2.1.0 log (columns counted in Unicode code points, a lone CR a
    line break as well), with what GitHub code scanning reads: a descriptor with help for
    every rule a result names, a region for every result on a file, relative URIs against
    ``%SRCROOT%`` (the working folder), and the findings left out beyond the cap as
    notifications (code scanning showed 50 alerts and no sign of the rest)."""
    import json
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool_version = version("pyskillkit")
    except PackageNotFoundError:
        tool_version = "0"
    diagnostics, capped = shown(run.diagnostics)
    rules = _sarif_rules({d.rule for d in diagnostics})
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    results = []
    for diagnostic in diagnostics:
        result: dict[str, Any] = {
            "ruleId": diagnostic.rule,
            "ruleIndex": index[diagnostic.rule],
            "level": _SARIF_LEVELS[diagnostic.severity],
            "message": {"text": diagnostic.message},
        }
        if diagnostic.file is not None:
            result["locations"] = [_sarif_location(diagnostic.file, diagnostic.range)]
        results.append(result)
    notifications = [
        {
            "level": "note",
            "message": {"text": _more_text(item)},
            "associatedRule": {"id": item.rule},
            **({"locations": [_sarif_location(item.file, None)]} if item.file else {}),
        }
        for item in capped
    ]
    sarif_run: dict[str, Any] = {
        "tool": {"driver": {"name": "skillkit", "version": tool_version, "rules": rules}},
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "columnKind": "unicodeCodePoints",
        "newlineSequences": ["\r\n", "\r", "\n"],
        "results": results,
    }
    # Unless the working folder was removed: the relative URIs then stay unresolved.
    with contextlib.suppress(OSError):
        sarif_run["originalUriBaseIds"] = {_SRCROOT: {"uri": _folder_uri(os.getcwd())}}
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [sarif_run]}
    return escape_json_controls(json.dumps(log, indent=2, ensure_ascii=False))


_SRCROOT = "%SRCROOT%"
# Findings no rule of the registry makes (about the command line's paths): their
# descriptors, as code scanning wants one for every result.
_PATH_FINDINGS = {
    "no-skill": (
        "A path given to check holds no skill",
        "The path holds no SKILL.md folder and no Python skill file, so nothing was checked "
        "there (check exits 3 when nothing worse was found). Check the path, or the skill's "
        "folder name.",
    ),
    "unreadable-path": (
        "A file or folder could not be read",
        "What cannot be read is not checked: fix its permissions, or remove the link or "
        "special file that stands where a skill's file should be.",
    ),
}


def _sarif_rules(used: set[str]) -> list[dict[str, Any]]:
    from skillkit_core.lint.registry import RULES
    from skillkit_core.lint.rules_doc import rule_markdown

    rules = [
        {
            "id": rule.id,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.rationale},
            "help": {"text": rule.rationale, "markdown": rule_markdown(rule)},
            "defaultConfiguration": {"level": _SARIF_LEVELS[rule.severity]},
        }
        for rule in RULES
        if rule.id in used
    ]
    known = {rule["id"] for rule in rules}
    for rule_id in sorted(used - known):
        summary, text = _PATH_FINDINGS.get(rule_id, (rule_id, rule_id))
        rules.append(
            {
                "id": rule_id,
                "shortDescription": {"text": summary},
                "fullDescription": {"text": text},
                "help": {"text": text},
            }
        )
    return rules


def _sarif_location(file: str, where: SourceRange | None) -> dict[str, Any]:
    """A physical location: the region of ``where``, else the file's first line (code
    scanning shows a result on a file only with a region); a folder has none."""
    artifact = _artifact(file)
    location: dict[str, Any] = {"artifactLocation": artifact}
    if where is not None:
        location["region"] = {
            "startLine": where.line + 1,
            "startColumn": where.column + 1,
            "endLine": where.end_line + 1,
            "endColumn": where.end_column + 1,
        }
    elif not artifact["uri"].endswith("/"):
        location["region"] = {"startLine": 1}
    return {"physicalLocation": location}


def _artifact(file: str) -> dict[str, str]:
    """An artifact location: an absolute path as a ``file:`` URI, a relative one as a
    normalised URI reference against ``%SRCROOT%`` (``a/../b`` named ``b``), a folder's
    ending in ``/`` (SARIF 3.4.4, 3.10)."""
    from pathlib import Path
    from urllib.parse import quote

    folder = os.path.isdir(file)
    if os.path.isabs(file):
        uri = Path(file).as_uri()
        return {"uri": uri + "/" if folder and not uri.endswith("/") else uri}
    # As bytes: a name that is not UTF-8 (its bytes kept as surrogates) is quoted byte
    # for byte, as as_uri does, instead of failing to encode.
    posix = Path(os.path.normpath(file)).as_posix()
    uri = quote(os.fsencode(posix)) + ("/" if folder and posix != "." else "")
    return {"uri": "./" if posix == "." else uri, "uriBaseId": _SRCROOT}


def _folder_uri(folder: str) -> str:
    from pathlib import Path

    uri = Path(folder).as_uri()
    return uri if uri.endswith("/") else uri + "/"


# ---------------------------------------------------------------- github

_GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def render_github(run: CheckRun) -> str:
    """GitHub Actions workflow commands, one annotation per diagnostic."""
    lines = []
    diagnostics, capped = shown(run.diagnostics)
    for diagnostic in diagnostics:
        properties = []
        if diagnostic.file is not None:
            properties.append(f"file={_escape_property(diagnostic.file)}")
        if diagnostic.range is not None:
            where = diagnostic.range
            # Columns only on one line (actions/toolkit AnnotationProperties: they "cannot
            # be sent" when the lines differ, and the runner drops them).
            one_line = where.end_line == where.line
            properties.append(f"line={where.line + 1}")
            properties += [f"col={where.column + 1}"] if one_line else []
            properties.append(f"endLine={where.end_line + 1}")
            properties += [f"endColumn={where.end_column + 1}"] if one_line else []
        properties.append(f"title={_escape_property(diagnostic.rule)}")
        command = _GITHUB_COMMANDS[diagnostic.severity]
        lines.append(f"::{command} {','.join(properties)}::{_escape_data(diagnostic.message)}")
    for item in capped:
        where = f"file={_escape_property(item.file)}," if item.file is not None else ""
        title = _escape_property(item.rule)
        lines.append(f"::notice {where}title={title}::{_escape_data(_more_text(item))}")
    lines.append(summary(run))
    return "\n".join(lines)


def _escape_data(text: str) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return escape_controls(text)


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
