"""Nothing a document does stops the server: random edits, hangs, exits and crashes."""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import codes, open_file, units, wait_for, wait_for_codes

pytestmark = pytest.mark.asyncio(loop_scope="module")

INIT_OPTIONS = {"worker": {"timeout": 3}}
_BREAK = re.compile(r"\r\n|\r|\n")


def _client_position(text: str, offset: int, encoding: str) -> types.Position:
    """The LSP position of string index ``offset`` (LSP line breaks, client units)."""
    starts = [0, *(m.end() for m in _BREAK.finditer(text))]
    line = max(i for i, start in enumerate(starts) if start <= offset)
    return types.Position(line, units(text[starts[line] : offset], encoding))


def _record_versions(client: LanguageClient) -> dict[str, int | None]:
    """Keep the version of each publishDiagnostics (the stock handler drops it)."""
    versions = getattr(client, "published_versions", None)
    if versions is not None:
        return versions
    versions = client.published_versions = {}  # type: ignore[attr-defined]

    def publish(params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        versions[params.uri] = params.version

    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    return versions


_PIECES = st.sampled_from(
    [
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
)
_TEXT = st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=6).map("".join)
_EDIT = st.tuples(
    st.sampled_from(["insert", "delete", "replace", "truncate"]),
    st.floats(0, 1),
    st.integers(0, 40),
    _TEXT,
)


def _apply(text: str, edit: tuple[str, float, int, str]) -> tuple[int, int, str]:
    """(start, end, new text) of one generated edit, as string indexes of ``text``."""
    kind, where, length, insert = edit
    start = int(where * len(text))
    if kind == "insert":
        return start, start, insert
    if kind == "delete":
        return start, min(len(text), start + length), ""
    if kind == "truncate":
        return start, len(text), ""
    return start, min(len(text), start + length), insert


def _safe_cut(text: str, index: int) -> int:
    # Never split a \r\n pair: an editor's positions cannot point between them.
    if 0 < index < len(text) and text[index - 1] == "\r" and text[index] == "\n":
        return index - 1
    return index


_SESSION = {"version": 100}


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(edits=st.lists(_EDIT, min_size=1, max_size=8), probe=st.floats(0, 1))
async def test_random_edits_never_break_the_server(
    client: LanguageClient, edits: list[tuple[str, float, int, str]], probe: float
) -> None:
    from skillkit_core.source.index import index_source
    from skillkit_core.source.query import symbols

    versions = _record_versions(client)
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    _SESSION["version"] += 1
    version = _SESSION["version"]
    uri = open_file(client, path, text, version=version)
    for edit in edits:
        start, end, insert = _apply(text, edit)
        start, end = _safe_cut(text, start), _safe_cut(text, end)
        where = types.Range(
            _client_position(text, start, client.encoding),
            _client_position(text, end, client.encoding),
        )
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=where, text=insert)],
            )
        )
        text = text[:start] + insert + text[end:]
    _SESSION["version"] = version
    at = _client_position(text, int(probe * len(text)), client.encoding)
    document = types.TextDocumentIdentifier(uri=uri)
    await client.text_document_completion_async(types.CompletionParams(document, at))
    await client.text_document_hover_async(types.HoverParams(document, at))
    await wait_for(lambda: versions.get(uri) == version, what=f"diagnostics of version {version}")
    # The server's text is the client's: its symbols are those of the text we hold.
    answer = await client.text_document_document_symbol_async(types.DocumentSymbolParams(document))
    expected = [symbol.name for symbol in symbols(index_source(text))]
    assert [symbol.name for symbol in answer or ()] == expected
    client.text_document_did_close(types.DidCloseTextDocumentParams(document))


async def test_a_module_that_never_finishes_importing(client: LanguageClient) -> None:
    path = client.root / "deploy" / "hang.py"
    text = (
        "from skillkit_core import skill, terminal\n\n"
        "while True:\n    pass\n\n"
        'flow = skill(name="hang", entry="a").step("a", prompt="A", next="b").build()\n'
    )
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"load-error", "unknown-step"}, timeout=60)
    load = next(d for d in found if d.code == "load-error")
    assert "did not finish within 3 s" in load.message
    # The server still answers, and other documents still get analysed.
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri=uri), types.Position(5, 45))
    )
    assert hover is not None
    broken = open_file(client, client.root / "broken" / "broken_steps.py", version=500)
    await wait_for_codes(client, broken, {"build-error"}, timeout=60)
    fixed = text.replace("while True:\n    pass\n", "")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await wait_for(
        lambda: "load-error" not in codes(client, uri) and "build-error" in codes(client, uri),
        timeout=60,
        what="analysis of the fixed module",
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("import sys\nprint('bye')\nsys.exit(3)\n", "called sys.exit(3)"),
        ("import os\nos._exit(9)\n", "exit code 9"),
        ("print('noise ' * 10000)\nname = input()\n", "EOFError"),
        ("raise SystemExit\n", "called sys.exit(None)"),
        ("import sys\nsys.setrecursionlimit(50)\ndef f(): return f()\nf()\n", "RecursionError"),
        # The worker runs in a session of its own: only the module raises it (the worker
        # died of it, exit code -2, and the definitions built before it were lost).
        ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    ],
)
async def test_modules_that_exit_crash_or_misbehave(
    client: LanguageClient, body: str, message: str
) -> None:
    path = client.root / "deploy" / "misbehaves.py"
    text = "from skillkit_core import skill, terminal\n" + body
    path.write_text(text, encoding="utf-8")
    _SESSION["version"] += 1
    uri = open_file(client, path, version=_SESSION["version"])
    await wait_for(
        lambda: any(
            message in d.message for d in client.diagnostics.get(uri, ()) if d.code == "load-error"
        ),
        timeout=60,
        what=f"a load-error saying {message!r}",
    )
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri=uri), types.Position(0, 0))
    )
    assert result is None or isinstance(result, types.CompletionList)
    await asyncio.sleep(0)


async def test_a_prompt_that_ends_the_worker_is_said_so_in_every_hover_it_held(
    client: LanguageClient,
) -> None:
    # The worker died rendering: each step's hover said "Rendering…" for good.
    path = client.root / "deploy" / "render_exit.py"
    text = (
        "import os\n\n"
        "from pydantic import BaseModel\n\n"
        "from skillkit_core import skill, terminal\n\n\n"
        "class A(BaseModel):\n    x: int\n\n\n"
        "def ends(ctx):\n    os._exit(3)\n\n\n"
        'flow = (\n    skill(name="render-exit", entry="a")\n'
        '    .step("a", prompt=ends, response=A, next="b")\n'
        '    .step("b", prompt=lambda ctx: "B", response=A, next=terminal)\n'
        "    .build()\n)\n"
    )
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path)
    document = types.TextDocumentIdentifier(uri=uri)
    line = text.splitlines().index('    .step("a", prompt=ends, response=A, next="b")')

    value = ""
    for _ in range(300):
        hover = await client.text_document_hover_async(
            types.HoverParams(document, types.Position(line, 12))
        )
        value = hover.contents.value if hover is not None else ""
        if "rendering failed: the analysis worker exited (exit code 3)" in value:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the hover of step 'a' never said why it was not rendered: {value}")


async def test_what_a_module_changes_in_the_worker_does_not_reach_the_next_one(
    client: LanguageClient,
) -> None:
    # Warnings made errors, a recursion limit of 60 and a working folder of '/' set by
    # one module failed the analysis of the next (in whatever order files were opened).
    strict = client.root / "deploy" / "strict_state.py"
    strict.write_text(
        "import os, sys, warnings\n\n"
        "from skillkit_core import skill, terminal\n\n"
        'warnings.simplefilter("error")\nsys.setrecursionlimit(60)\nos.chdir("/")\n\n'
        'flow = skill(name="strict", entry="a").step("a", prompt="A", next=terminal).build()\n',
        encoding="utf-8",
    )
    uri = open_file(client, strict)
    await wait_for(lambda: "build-error" not in codes(client, uri), what="the strict module")
    await asyncio.sleep(1)  # analysed by now (the next document queues behind it anyway)
    relaxed = client.root / "deploy" / "relaxed_state.py"
    relaxed.write_text(
        "import json, os, warnings\n\n"
        "from skillkit_core import skill, terminal\n\n"
        'warnings.warn("only a warning")\n'
        "def nest(n): return 0 if n == 0 else 1 + nest(n - 1)\n"
        "nest(200)\n"
        'assert os.getcwd() != "/"\n\n'
        'flow = skill(name="relaxed", entry="a").step("a", prompt="A", next="b").build()\n',
        encoding="utf-8",
    )
    other = open_file(client, relaxed)
    found = await wait_for_codes(client, other, {"build-error"}, timeout=60)  # the worker's
    assert "load-error" not in {d.code for d in found}, [d.message for d in found]


async def test_a_thread_one_module_left_running_does_not_time_out_the_next(
    client: LanguageClient,
) -> None:
    # A daemon thread holding the interpreter made the next document's import time out,
    # and "an endless loop at import time?" stayed cached against that innocent text.
    hog = client.root / "deploy" / "hog.py"
    hog.write_text(
        "import re, threading, time\n\n"
        "from skillkit_core import skill, terminal\n\n"
        "def spin():\n    time.sleep(0.5)\n"
        "    while True:\n        re.match(r'(a+)+$', 'a' * 26 + 'b')\n\n"
        "threading.Thread(target=spin, daemon=True).start()\n"
        'flow = skill(name="hog", entry="a").step("a", prompt="A", next=terminal).build()\n',
        encoding="utf-8",
    )
    open_file(client, hog)
    await asyncio.sleep(2)  # analysed, and its thread spinning
    innocent = client.root / "deploy" / "innocent.py"
    innocent.write_text(
        "from skillkit_core import skill, terminal\n\n"
        'flow = skill(name="innocent", entry="a").step("a", prompt="A", next="b").build()\n',
        encoding="utf-8",
    )
    uri = open_file(client, innocent)
    found = await wait_for_codes(client, uri, {"build-error"}, timeout=60)
    assert "load-error" not in {d.code for d in found}, [d.message for d in found]
