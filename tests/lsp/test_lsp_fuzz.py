"""A bounded fuzz of the live server: random edit sequences and random requests.

Each example opens a skill file, sends 40-60 incremental edits (insertions, deletions,
replacements, whole-document replacements, long lines of unclosed brackets, CRLF and
lone CR line breaks, non-ASCII text) with requests of every kind in between (some with
positions past the end of a line, some with invalid params), then checks that every
request was answered (a result, or an error that is not an internal error), that the
diagnostics of the last version arrive, and that the server's text is the client's. In
all, at least 1,000 edits; at the end the server's resident memory has grown less than a
fixed bound. Runs in well under a minute.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.lsp.raw_lsp import RawLsp
from tests.lsp.support import fresh_workspace, uri_of

EXAMPLES = 25
EDITS = (40, 60)
MIN_EDITS = 1_000
RSS_GROWTH_LIMIT_MIB = 60
_BREAK = re.compile(r"\r\n|\r|\n")

_PIECES = [
    '"',
    "'",
    "(",
    ")",
    "[",
    "]",
    ",",
    ".step(",
    'next="',
    "branch(",
    "act.",
    "lambda ctx: ",
    "\n",
    "\r\n",
    "\r",
    "    ",
    "é",
    "🚀",
    "漢字",
    "\t",
    "#",
    '"""',
    "\\",
    "ctx.store.steps[",
]
_TEXT = st.lists(st.sampled_from(_PIECES) | st.text(max_size=5), max_size=6).map("".join)
_WALLS = st.sampled_from(["(", "[", "{", '"', "f(", "(x, "]).flatmap(
    lambda unit: st.integers(1_000, 30_000).map(lambda count: unit * (count // len(unit)))
)
_EDIT = st.one_of(
    st.tuples(
        st.sampled_from(["insert", "delete", "replace"]), st.floats(0, 1), st.integers(0, 40), _TEXT
    ),
    st.tuples(st.just("wall"), st.floats(0, 1), st.just(0), _WALLS),
    st.tuples(st.just("whole"), st.just(0.0), st.just(0), _TEXT),
)
_REQUESTS = [
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/documentHighlight",
    "textDocument/documentSymbol",
    "textDocument/prepareRename",
    "textDocument/rename",
    "textDocument/codeAction",
    "textDocument/codeLens",
]
_REQUEST = st.tuples(
    st.sampled_from(_REQUESTS), st.floats(0, 1), st.sampled_from(["ok", "far", "bad"])
)
_STEP = st.one_of(_EDIT.map(lambda e: ("edit", e)), _REQUEST.map(lambda r: ("request", r)))

_STATE = {"edits": 0, "version": 0, "rss": None}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    root = fresh_workspace("fuzz")
    raw = RawLsp(root, tmp_path_factory.mktemp("fuzz") / "stderr.txt", {"executeCode": False})
    yield raw
    raw.close()


def _starts(text: str) -> list[int]:
    return [0, *(match.end() for match in _BREAK.finditer(text))]


def _position(text: str, offset: int) -> dict[str, int]:
    """The LSP position (UTF-16 units, LSP line breaks) of string index ``offset``."""
    starts = _starts(text)
    line = max(number for number, start in enumerate(starts) if start <= offset)
    units = len(text[starts[line] : offset].encode("utf-16-le")) // 2
    return {"line": line, "character": units}


def _safe(text: str, index: int) -> int:
    # An editor's positions never point between the two halves of a \r\n.
    if 0 < index < len(text) and text[index - 1] == "\r" and text[index] == "\n":
        return index - 1
    return index


def _span(text: str, kind: str, where: float, length: int) -> tuple[int, int]:
    start = _safe(text, int(where * len(text)))
    if kind in ("insert", "wall"):
        return start, start
    return start, _safe(text, min(len(text), start + length))


def _params(method: str, uri: str, text: str, where: float, shape: str) -> dict:
    document = {"uri": uri}
    if method in ("textDocument/documentSymbol", "textDocument/codeLens"):
        return {"textDocument": document}
    at = _position(text, int(where * len(text)))
    if shape == "far":
        at = {"line": at["line"] + 3, "character": at["character"] + 500}
    elif shape == "bad":
        at = {"line": -1, "character": at["character"]}
    if method == "textDocument/codeAction":
        return {
            "textDocument": document,
            "range": {"start": at, "end": at},
            "context": {"diagnostics": []},
        }
    params = {"textDocument": document, "position": at}
    if method == "textDocument/references":
        params["context"] = {"includeDeclaration": True}
    if method == "textDocument/rename":
        params["newName"] = "renamed_step"
    return params


def _flat_symbols(text: str) -> list[str]:
    from skillkit_core.source.index import index_source
    from skillkit_core.source.query import symbols

    names: list[str] = []

    def add(found: tuple) -> None:
        for symbol in found:
            names.append(symbol.name)
            add(symbol.children)

    add(symbols(index_source(text)))
    return names


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found, status
    return int(found.group(1)) / 1024


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(_STEP, min_size=EDITS[0] + 10, max_size=EDITS[1] + 20))
def test_random_edits_and_requests_are_all_answered(server: RawLsp, steps: list) -> None:
    path = server.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    _STATE["version"] += 1
    version = _STATE["version"]
    uri = server.open(path, text, version=version)
    sent: list[tuple[int, str, str]] = []
    edits = 0
    for step, detail in steps:
        if step == "edit":
            kind, where, length, insert = detail
            version += 1
            if kind == "whole":
                text = insert
                change: dict = {"text": text}
            else:
                start, end = _span(text, kind, where, length)
                change = {
                    "range": {"start": _position(text, start), "end": _position(text, end)},
                    "text": insert,
                }
                text = text[:start] + insert + text[end:]
            server.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
            edits += 1
        else:
            method, where, shape = detail
            sent.append(
                (server.send(method, _params(method, uri, text, where, shape)), method, shape)
            )
    _STATE["version"] = version
    _STATE["edits"] += edits
    for ident, method, shape in sent:
        answer = server.answer(ident, timeout=60)
        if "error" in answer:
            code = answer["error"]["code"]
            assert code != -32603, (method, answer)  # never an internal error
            assert shape == "bad" or (method == "textDocument/rename" and code == -32803), (
                method,
                shape,
                answer,
            )
    server.wait(
        lambda messages: any(
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and m["params"].get("version") == version
            for m in messages
        ),
        timeout=60,
        what=f"the diagnostics of version {version}",
    )
    # The server's text is the client's: its symbols are those of the text we hold (a
    # flat list: the client does not say it takes a hierarchy).
    answer = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [symbol["name"] for symbol in answer["result"] or ()] == _flat_symbols(text)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.messages.clear()
    if _STATE["rss"] is None:
        _STATE["rss"] = _rss_mib(server.process.pid)


def test_the_fuzz_made_enough_edits_and_memory_stayed_flat(server: RawLsp) -> None:
    assert _STATE["edits"] >= MIN_EDITS, _STATE
    assert _STATE["rss"] is not None
    grown = _rss_mib(server.process.pid) - _STATE["rss"]
    assert grown < RSS_GROWTH_LIMIT_MIB, f"the server grew by {grown:.1f} MiB"
    assert "Traceback" not in server.stderr_text()
    assert uri_of(server.root)  # the workspace is still there (nothing deleted it)
