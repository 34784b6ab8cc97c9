"""Patterns of risky shell and script code, and of secrets pasted into files.

Each finder scans a whole text and returns ``(line, start column, end column, message)``
for every match; the rules turn them into diagnostics. The patterns aim at the obvious
cases (a download piped into a shell, ``eval`` of fetched text, edits of shell start-up
files, well-known token formats); they are a tripwire, not an audit.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Collection
from itertools import pairwise

from skillkit_core.named_tuple import NamedTuple

Finding = tuple[int, int, int, str]


def _word(start: str, rest: str) -> str:
    """The pattern ``\\b{start}{rest}``, written so that ``re`` finds ``start`` as a literal
    first: a pattern that opens with ``\\b`` is tried at every position of the text (25
    times slower on a long file); the look-behind checks the word boundary where
    ``start`` was found. The same matches, at the same places."""
    return rf"{start}(?<=\b{start}){rest}"


_FETCH = r"(?:curl|wget|fetch|http(?:ie)?|iwr|Invoke-WebRequest|irm|Invoke-RestMethod)\b"
_SHELLS = r"(?:sudo\s+)?(?:(?:ba|z|da|k|fi)?sh|python[\d.]*|perl|ruby|node|iex|Invoke-Expression)\b"

_STARTUP_FILE = (
    r"[\"']?(?:~|\$HOME|\$\{HOME\})/"
    r"\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin"
    r"|config/fish/config\.fish)\b"
)
# Found from the pipe back to the download (see _pipes_into_shell).
_PIPE_INTO_SHELL = rf"\|\s*{_SHELLS}"
_STARTUP_WRITE = "writes to a shell start-up file, which persists beyond the skill's run"

# A risk is a pattern, or a chain of patterns each found after the previous one on the same
# line (the text between them is free). A chain is searched for piece by piece instead of
# as one pattern with ``[^\n]*?`` gaps: the regex engine would scan the rest of the line
# from every place the first piece matches (quadratic, cubic with two gaps), a chain scans
# it once. Like the regex, a chain's match starts at the leftmost first piece that leads
# to the rest and ends where the last piece first matches after it.
_RISKS: tuple[tuple[str | tuple[str, ...], str], ...] = (
    (_PIPE_INTO_SHELL, "downloads code and pipes it straight into an interpreter"),
    (
        rf"\b(?:(?:ba|z)?sh|source|\.)\s+<\(\s*{_FETCH}",
        "runs code downloaded by a process substitution",
    ),
    (
        rf"\b(?:eval|(?:ba|z)?sh\s+-c)\s+[\"']?\$\(\s*{_FETCH}",
        "evaluates text fetched from the network",
    ),
    (
        (r"\b(?:exec|eval)\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get)"),
        "executes code fetched from the network",
    ),
    (rf"(?:>>?|\btee\b(?:\s+-a)?)\s*{_STARTUP_FILE}", _STARTUP_WRITE),
    ((_word("sed", r"\s+-i\b"), rf"\s*{_STARTUP_FILE}"), _STARTUP_WRITE),
    (
        (
            _word(r"open\(", ""),
            r"\.(?:bashrc|bash_profile|profile|zshrc|zprofile|zshenv)\b",
            r",\s*[\"'][aw]",
        ),
        _STARTUP_WRITE,
    ),
)

_SECRETS: tuple[tuple[str, str], ...] = (
    (_word("AKIA", r"[0-9A-Z]{16}\b"), "an AWS access key id"),
    (_word("gh", r"[pousr]_[A-Za-z0-9]{36,}\b"), "a GitHub token"),
    (_word("github_pat_", r"[A-Za-z0-9_]{40,}\b"), "a GitHub token"),
    (_word("sk-ant-", r"[A-Za-z0-9_\-]{20,}"), "an Anthropic API key"),
    (_word("sk-", r"(?:proj-)?[A-Za-z0-9]{32,}\b"), "an OpenAI-style API key"),
    (_word("xox", r"[abprs]-[A-Za-z0-9-]{10,}"), "a Slack token"),
    (_word("AIza", r"[0-9A-Za-z_\-]{35}\b"), "a Google API key"),
    (_word("[rs]k_live_", r"[0-9A-Za-z]{24,}\b"), "a Stripe live key"),
    (r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----", "a private key"),
)


# For each pattern, groups of substrings: it is tried only where every group has one of
# its substrings in the text (each is in every match), so a clean file is cleared by a
# few fast substring tests instead of a regex pass per pattern.
_FETCH_NEEDLES = ("curl", "wget", "fetch", "http", "iwr", "irm", "Invoke-")
_STARTUP_NEEDLES = ("rc", "profile", "zshenv", "zlogin", "fish")
_HOME_NEEDLES = ("~/.", "$HOME/.", "${HOME}/.")
_RISK_NEEDLES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (_FETCH_NEEDLES, ("|",)),
    (_FETCH_NEEDLES, ("<(",)),
    (_FETCH_NEEDLES, ("$(",)),
    (("exec", "eval"), ("requests.get", "urlopen", "httpx.get")),
    (_STARTUP_NEEDLES, _HOME_NEEDLES),
    (_STARTUP_NEEDLES, _HOME_NEEDLES, ("sed",)),
    (_STARTUP_NEEDLES, ("open(",)),
)
_SECRET_NEEDLES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("AKIA",),),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),),
    (("github_pat_",),),
    (("sk-ant-",),),
    (("sk-",),),
    (("xox",),),
    (("AIza",),),
    (("k_live_",),),
    (("PRIVATE KEY",),),
)
_SECRET_TEMPLATE = "contains what looks like {}; never ship credentials in a skill"


def find_risks(text: str) -> list[Finding]:
    """Risky command patterns in ``text`` as ``(line, start, end, message)``."""
    return _find(_RISKS, _RISK_NEEDLES, text, "{}")


def find_secrets(text: str) -> list[Finding]:
    """Secret literals in ``text`` as ``(line, start, end, message)``; documented
    placeholders (see :func:`is_placeholder`) are left out."""
    present = _needles_in(text)
    if not present:  # most files
        return []
    return _find(
        _SECRETS, _SECRET_NEEDLES, text, _SECRET_TEMPLATE, keep=_not_placeholder, present=present
    )


# Lowercase letters from the most to the least frequent in English text; uppercase
# letters and digits count as rarer still, ``-`` and ``_`` fall in between.
_LETTER_FREQUENCY = "etaoinsrhldcumfpgwybvkxjqz"
_RANK = {**{c: i for i, c in enumerate(_LETTER_FREQUENCY)}, "-": 16.5, "_": 21.5, " ": 0}


def _needles_in(text: str) -> set[str]:
    """The words of :data:`_SECRET_NEEDLES` that ``text`` holds, found in one pass (a
    substring search per word would take a dozen)."""
    needles = _any_secret_needle()
    found: set[str] = set()
    for pattern in needles.patterns:
        for match in pattern.finditer(text):
            at = match.start()
            for word, offset in needles.by_character[text[at]]:
                if at >= offset and text.startswith(word, at - offset):
                    found.add(word)
    return found


class _Needles(NamedTuple):
    """Patterns, one per character, each matching that character where one of the
    needle words it is the rarest character of lies around it (the match is that one
    character, so that no match hides another); ``by_character`` lists, for each such
    character, the words and its place in them."""

    patterns: tuple[re.Pattern[str], ...]
    by_character: dict[str, list[tuple[str, int]]]


@functools.cache
def _any_secret_needle() -> _Needles:
    """:class:`_Needles` for :data:`_SECRET_NEEDLES`.

    Each word is matched at its rarest character (``sk-`` at its ``k``): the search tries
    a match at every such character, and starting at ``s``, ``g`` or ``k`` means trying at
    a tenth of all prose. One pattern per character, each starting with it: ``re`` skips
    ahead to a pattern's one literal first character in a tight loop, but tests the
    characters of a text one at a time against a set of first characters (one pattern for
    all of them took half as long again on the corpus's 1.7 million characters)."""
    words = sorted({word for groups in _SECRET_NEEDLES for group in groups for word in group})
    by_character: dict[str, list[tuple[str, int]]] = {}
    for word in words:
        at = max(range(len(word)), key=lambda i: _RANK.get(word[i], 26))
        by_character.setdefault(word[at], []).append((word, at))
    patterns = []
    for character, placed in by_character.items():
        around = []
        for word, at in placed:
            behind = f"(?<={re.escape(word[: at + 1])})" if at else ""
            ahead = f"(?={re.escape(word[at + 1 :])})" if at + 1 < len(word) else ""
            around.append(behind + ahead)
        patterns.append(re.compile(f"{re.escape(character)}(?:{'|'.join(around)})"))
    return _Needles(tuple(patterns), by_character)


# The fixed prefix of each token format: what follows it is the value judged.
_TOKEN_PREFIX = (
    r"^(?:AKIA|gh[pousr]_|github_pat_|sk-ant-(?:[a-z]+\d*-)?|sk-(?:proj-)?|xox[abprs]-|AIza"
    r"|[rs]k_live_)"
)
# Words a placeholder value spells out (at least five letters: a random key of 40
# characters holds one by chance about once in a hundred million).
_PLACEHOLDER_WORDS = r"(?i)example|sample|dummy|placeholder|redacted|changeme|notreal"
# Words that label a value near it as an example ("example.com" does not count).
_EXAMPLE_LABEL = (
    r"(?i)(?<![\w./@-])(?:examples?|sample|placeholder|dummy|fake|mock|redacted|e\.g\."
    r"|for instance|illustrative|not a real)(?![\w-]|\.\w)"
)
# How far around a match its label is looked for, on its line and on the line before.
_LABEL_REACH = 120


def is_placeholder(text: str, start: int, end: int) -> bool:
    """Whether the secret-looking match ``text[start:end]`` is a documented placeholder
    rather than a credential: a value spelling out a placeholder word
    (``AKIAIOSFODNN7EXAMPLE``, AWS's documentation key), a run of ``X``
    (``AIzaXXXX…``), a value too regular to be random (``aaaa…``, ``abcdef…``,
    ``1234…``), a private key whose body is elided, or a value labelled as an example on
    its line or in the 120 characters before that line (``Example:`` above a code
    block). Looks at a bounded window only, whatever the text's length."""
    token = text[start:end]
    if token.startswith("-----BEGIN"):
        if _elided_key_body(text, end):
            return True
    else:
        value = re.sub(_TOKEN_PREFIX, "", token)
        if _regular(value) or re.search(_PLACEHOLDER_WORDS, value):
            return True
    line_start = text.rfind("\n", max(0, start - _LABEL_REACH), start) + 1
    if line_start == 0 and start > _LABEL_REACH:
        line_start = start - _LABEL_REACH
    before = max(0, line_start - 1 - _LABEL_REACH)
    line_end = text.find("\n", end, end + _LABEL_REACH)
    window = text[before : line_end if line_end >= 0 else min(len(text), end + _LABEL_REACH)]
    window = window.replace(token, " ")
    return re.search(_EXAMPLE_LABEL, window) is not None


def _regular(value: str) -> bool:
    """A value no random generator would give: a run of four ``X``, an ascending run of
    six characters, or far fewer distinct characters than a random value of its length
    (Shannon entropy under 0.55 of log2 of its length; the least of 200,000 random
    16-character AWS key ids was 0.65 of it)."""
    if not value:
        return True
    if "XXXX" in value.upper():
        return True
    run = 1
    for previous, current in pairwise(value):
        run = run + 1 if ord(current) == ord(previous) + 1 else 1
        if run >= 6:
            return True
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    entropy = -sum(n / size * math.log2(n / size) for n in counts.values())
    return size > 1 and entropy < 0.55 * math.log2(size)


def _elided_key_body(text: str, end: int) -> bool:
    """A private-key header followed by no key: ``...``, ``…``, a ``<placeholder>``, a
    run of ``X`` or the ``-----END`` line straight away."""
    following = text[end : end + 200].lstrip("\r\n").split("\n", 1)[0].strip()
    return (
        not following
        or following.startswith(("...", "…", "<", "-----END"))
        or "XXXX" in following.upper()
    )


def _searched_once(text: str) -> Callable[[str], bool]:
    """``word in text``, each word searched for once (patterns share needle groups: a
    text holding no fetch command would be read through for each word of the group once
    per pattern)."""
    answers: dict[str, bool] = {}

    def occurs(word: str) -> bool:
        answer = answers.get(word)
        if answer is None:
            answer = answers[word] = word in text
        return answer

    return occurs


def _not_placeholder(text: str, start: int, end: int) -> bool:
    return not is_placeholder(text, start, end)


def _find(
    patterns: tuple[tuple[str | tuple[str, ...], str], ...],
    needles: tuple[tuple[tuple[str, ...], ...], ...],
    text: str,
    template: str,
    keep: Callable[[str, int, int], bool] | None = None,
    present: Collection[str] | None = None,
) -> list[Finding]:
    """Each pattern whose needle occurs, over the whole text; each match placed on its
    line, its end clipped to that line. Patterns are compiled on first use (``re`` keeps
    them): most files contain no needle, and compiling them all costs more than a check
    of a dozen clean folders. Linear in the text: lines are counted forward from the
    previous match, not from the start for each. ``keep``, when given, is asked of each
    match (the text, its start and end) and drops those it answers false for.
    ``present``, when given, holds the needles the text holds (found already)."""
    occurs = _searched_once(text) if present is None else present.__contains__
    found: list[Finding] = []
    for (pattern, message), groups in zip(patterns, needles, strict=True):
        if not all(any(map(occurs, words)) for words in groups):
            continue
        if isinstance(pattern, tuple):
            spans = _chain(pattern, text)
        elif pattern == _PIPE_INTO_SHELL:
            spans = _pipes_into_shell(text)
        else:
            spans = ((match.start(), match.end()) for match in re.finditer(pattern, text))
        lines = _Lines(text)
        for start, end in spans:
            if keep is not None and not keep(text, start, end):
                continue
            line, line_start, line_end = lines.at(start)
            found.append(
                (
                    line,
                    start - line_start,
                    min(end, line_end) - line_start,
                    template.format(message),
                )
            )
    found.sort()
    return found


def _pipes_into_shell(text: str) -> list[tuple[int, int]]:
    """Spans from a download command to the interpreter its output is piped into
    (``curl … | sh``). Found from each pipe back to the first download word after the
    previous ``|``, ``;``, ``&`` or line break, so each stretch of text is searched once
    (the forward pattern, a download word then ``[^|;&\n]*``, searched the rest of the
    stretch again from every download word in it)."""
    spans: list[tuple[int, int]] = []
    fetch = re.compile(rf"\b{_FETCH}")
    after = 0  # where the stretch before the next pipe can start at the earliest
    for match in re.finditer(_PIPE_INTO_SHELL, text):
        bar = match.start()
        start = max(after, *(text.rfind(mark, after, bar) + 1 for mark in "|;&\n"))
        found = fetch.search(text, start, bar)
        if found is not None:
            spans.append((found.start(), match.end()))
            after = match.end()
        else:
            after = bar + 1
    return spans


def _chain(pieces: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    """Spans of ``pieces`` found one after another on one line (see :data:`_RISKS`).
    When the rest of the chain is not on the line after a first piece, it is not after a
    later one either: the search moves on to the next line."""
    first, *rest = [re.compile(piece) for piece in pieces]
    spans: list[tuple[int, int]] = []
    position = 0
    line_end = -1  # the end of the line of the last match (found once per line)
    while (match := first.search(text, position)) is not None:
        if line_end < match.end():
            line_end = text.find("\n", match.end())
            if line_end < 0:
                line_end = len(text)
        end = match.end()
        for piece in rest:
            following = piece.search(text, end, line_end)
            if following is None:
                break
            end = following.end()
        else:
            spans.append((match.start(), end))
            position = end
            continue
        position = line_end + 1
    return spans


class _Lines:
    """Line number, start and end of positions asked for in increasing order, each found
    from the previous one (a text of one long line is not searched back to its start
    for every match)."""

    __slots__ = ("end", "line", "position", "start", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.line = 0
        self.position = 0
        self.start = 0
        self.end = -1

    def at(self, position: int) -> tuple[int, int, int]:
        text = self.text
        if position >= self.position:
            breaks = text.count("\n", self.position, position)
            if breaks:
                self.line += breaks
                self.start = text.rfind("\n", self.position, position) + 1
                self.end = -1
        else:  # earlier than the last one asked (not for one pattern's matches)
            self.line = text.count("\n", 0, position)
            self.start = text.rfind("\n", 0, position) + 1
            self.end = -1
        self.position = position
        if self.end < position:
            end = text.find("\n", position)
            self.end = len(text) if end < 0 else end
        return self.line, self.start, self.end
