"""Patterns of risky shell and script code, and of secrets pasted into files.

Each finder scans a whole text and returns ``(line, start column, end column, message)``
for every match; the rules turn them into diagnostics. The patterns aim at the obvious
cases (a download piped into a shell, ``eval`` of fetched text, edits of shell start-up
files, well-known token formats); they are a tripwire, not an audit.
"""

from __future__ import annotations

import re

Finding = tuple[int, int, int, str]

_FETCH = r"(?:curl|wget|fetch|http(?:ie)?|iwr|Invoke-WebRequest|irm|Invoke-RestMethod)\b"
_SHELLS = r"(?:sudo\s+)?(?:(?:ba|z|da|k|fi)?sh|python[\d.]*|perl|ruby|node|iex|Invoke-Expression)\b"

_RISKS: tuple[tuple[str, str], ...] = (
    (
        rf"\b{_FETCH}[^|;&\n]*\|\s*{_SHELLS}",
        "downloads code and pipes it straight into an interpreter",
    ),
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
    (
        (
            r"(?:>>?|\btee\b(?:\s+-a)?|\bsed\s+-i\b[^\n]*?)\s*[\"']?(?:~|\$HOME|\$\{HOME\})/"
            r"\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin"
            r"|config/fish/config\.fish)\b"
        ),
        "writes to a shell start-up file, which persists beyond the skill's run",
    ),
    (
        (
            r"\bopen\([^\n]*?\.(?:bashrc|bash_profile|profile|zshrc|zprofile|zshenv)\b[^\n]*?"
            r",\s*[\"'][aw]"
        ),
        "writes to a shell start-up file, which persists beyond the skill's run",
    ),
)

_SECRETS: tuple[tuple[str, str], ...] = (
    (r"\bAKIA[0-9A-Z]{16}\b", "an AWS access key id"),
    (r"\bgh[pousr]_[A-Za-z0-9]{36,}\b", "a GitHub token"),
    (r"\bgithub_pat_[A-Za-z0-9_]{40,}\b", "a GitHub token"),
    (r"\bsk-ant-[A-Za-z0-9_\-]{20,}", "an Anthropic API key"),
    (r"\bsk-(?:proj-)?[A-Za-z0-9]{32,}\b", "an OpenAI-style API key"),
    (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "a Slack token"),
    (r"\bAIza[0-9A-Za-z_\-]{35}\b", "a Google API key"),
    (r"\b[rs]k_live_[0-9A-Za-z]{24,}\b", "a Stripe live key"),
    (r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----", "a private key"),
)


# Substrings one of which must occur for a pattern to be tried at all: a clean file is
# cleared by a few fast substring tests instead of a regex pass per pattern.
_FETCH_NEEDLES = ("curl", "wget", "fetch", "http", "iwr", "irm", "Invoke-")
_STARTUP_NEEDLES = ("rc", "profile", "zshenv", "zlogin", "fish")
_RISK_NEEDLES = (
    _FETCH_NEEDLES,
    _FETCH_NEEDLES,
    _FETCH_NEEDLES,
    ("exec", "eval"),
    _STARTUP_NEEDLES,
    _STARTUP_NEEDLES,
)
_SECRET_NEEDLES = (
    ("AKIA",),
    ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ("github_pat_",),
    ("sk-ant-",),
    ("sk-",),
    ("xox",),
    ("AIza",),
    ("k_live_",),
    ("PRIVATE KEY",),
)
_SECRET_TEMPLATE = "contains what looks like {}; never ship credentials in a skill"


def find_risks(text: str) -> list[Finding]:
    """Risky command patterns in ``text`` as ``(line, start, end, message)``."""
    return _find(_RISKS, _RISK_NEEDLES, text, "{}")


def find_secrets(text: str) -> list[Finding]:
    """Secret literals in ``text`` as ``(line, start, end, message)``."""
    return _find(_SECRETS, _SECRET_NEEDLES, text, _SECRET_TEMPLATE)


def _find(
    patterns: tuple[tuple[str, str], ...],
    needles: tuple[tuple[str, ...], ...],
    text: str,
    template: str,
) -> list[Finding]:
    """Each pattern whose needle occurs, over the whole text; each match placed on its
    line, its end clipped to that line. Patterns are compiled on first use (``re`` keeps
    them): most files contain no needle, and compiling them all costs more than a check
    of a dozen clean folders."""
    found: list[Finding] = []
    for (pattern, message), words in zip(patterns, needles, strict=True):
        if not any(map(text.__contains__, words)):
            continue
        for match in re.finditer(pattern, text):
            line = text.count("\n", 0, match.start())
            line_start = text.rfind("\n", 0, match.start()) + 1
            line_end = text.find("\n", match.start())
            end = match.end() if line_end < 0 else min(match.end(), line_end)
            found.append(
                (line, match.start() - line_start, end - line_start, template.format(message))
            )
    found.sort()
    return found
