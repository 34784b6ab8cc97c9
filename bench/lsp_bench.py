"""Language server latency and memory, measured over stdio like an editor sees them.

    .venv/bin/python bench/lsp_bench.py [--requests 100] [--json out.json]

On a generated 200-step skill file (about 1,500 lines) it measures:

- server start (spawn) to the first ``publishDiagnostics`` of the opened file;
- ``didChange`` (one typed character) to the syntax layer's diagnostics for that version;
- completion (inside ``next="..."``), hover (on a step name, after the first semantic
  pass, so the hover holds the rendered prompt) and go-to-definition;

each as median and p95 over ``--requests`` requests, then one line of 300,000 ``(``
(issue 17: it held the server for 69 s): the time from opening it to its diagnostics, from
an edit of it to the diagnostics of that version, and how long a completion in the big
file waits when sent right behind the open or an edit; then the resident memory of the
server and of its analysis worker with 50 skill files open. ``--pathological-only`` runs
just the server start and the pathological line. Targets (issue 9): syntax
diagnostics and completion p95 ≤ 50 ms, hover p95 ≤ 100 ms, start to first diagnostics
≤ 1.5 s.

Then a hand-written 1,000-line SKILL.md (issue 23) in a folder with references, scripts
and assets: ``didChange`` (one typed character in the body) to the manifest rules'
diagnostics of that version, completion inside a link target (``](references/``) and
``documentLink`` of the whole file, against the same targets as the Python file.
``--skill-md-only`` runs just the server start and this case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import client_capabilities, make_test_lsp_client

STEPS = 200
WALL = 300_000  # characters of the pathological line


def generate_skill(steps: int = STEPS, name: str = "big") -> str:
    """A builder-style skill: static, act and dynamic prompts, branches, store reads."""
    lines = [
        '"""A generated skill for the language server benchmark."""',
        "",
        "from typing import Literal",
        "",
        "from pydantic import BaseModel",
        "",
        "from skillkit_core import act, branch, skill, terminal",
        "",
        "",
        "class Answer(BaseModel):",
        '    choice: Literal["yes", "no"]',
        "    note: str",
        "",
        "",
        f"{name.replace('-', '_')} = (",
        f'    skill(name="{name}", entry="s0", description="Benchmark skill with {steps} steps.")',
    ]
    for i in range(steps):
        target = f'"s{i + 1}"' if i + 1 < steps else "terminal"
        kind = i % 4
        if kind in (0, 2):
            lines.append(f"    # step {i}: {'ask' if kind == 0 else 'build on the last note'}")
        lines.append("    .step(")
        lines.append(f'        "s{i}",')
        if kind == 0:
            lines.append(f'        prompt="Step {i}: read the notes and answer yes or no.",')
        elif kind == 1:
            lines.append("        prompt=act.ask_user(")
            lines.append(f'            type="structured", question="Continue at step {i}?",')
            choices = '{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}'
            lines.append(f"            options=[{choices}],")
            lines.append("        ),")
        elif kind == 2:
            read = f"ctx.store.steps['s{i - 1}'].note"
            lines.append(f'        prompt=lambda ctx: f"Step {i} after {{{read}}}",')
        else:
            lines.append(f'        prompt="Step {i}: summarise.",')
        lines.append("        response=Answer,")
        if kind == 3:
            lines.append("        max_visits=3,")
        if kind == 3 and i + 1 < steps:
            when = 'lambda c: c.response.choice == "yes"'
            lines.append(f"        next=[branch({target}, when={when}), branch({target})],")
        else:
            lines.append(f"        next={target},")
        lines.append("    )")
    lines += ["    .build()", ")", ""]
    return "\n".join(lines)


SKILL_MD_LINES = 1000


def generate_skill_md(folder: Path, lines: int = SKILL_MD_LINES) -> str:
    """A hand-written-style SKILL.md of ``lines`` lines in ``folder``, which gets the
    references, scripts and assets it links to (one link in twenty names a missing file,
    so the diagnostics are not empty)."""
    for sub in ("references", "scripts", "assets"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for n in range(20):
        (folder / "references" / f"topic-{n}.md").write_text(f"# Topic {n}\n\nNotes.\n")
    for n in range(5):
        (folder / "scripts" / f"tool-{n}.py").write_text("#!/usr/bin/env python3\nprint(1)\n")
    (folder / "assets" / "template.csv").write_text("a,b\n1,2\n")
    out = [
        "---",
        f"name: {folder.name}",
        "description: A long hand-written skill for the language server benchmark. Use when "
        "measuring.",
        "---",
        "",
        "# Big skill",
        "",
    ]
    n = 0
    while len(out) < lines - 1:
        section = n // 25
        if n % 25 == 0:
            out += [f"## Section {section}", ""]
        kind = n % 5
        if kind == 0:
            topic = n % 21  # topic-20.md does not exist
            out.append(f"Read [topic {topic}](references/topic-{topic}.md) before step {n}.")
        elif kind == 1:
            out.append(f"Run `python scripts/tool-{n % 5}.py --step {n}` and keep its output.")
        elif kind == 2:
            out.append(f"Shape the table like assets/template.csv; this is line {n} of prose.")
        elif kind == 3:
            out += ["```bash", f"python scripts/tool-{n % 5}.py {n}", "```"]
        else:
            out.append(f"Plain guidance for step {n}: check the result, then go on.")
        n += 1
    out.append("")
    return "\n".join(out[:lines])


async def skill_md_case(bench: Bench, requests: int) -> dict:
    """didChange → diagnostics, completion in a link target and documentLink latency on a
    1,000-line SKILL.md."""
    client = bench.client
    folder = bench.root / "big-skill"
    folder.mkdir()
    text = generate_skill_md(folder)
    path = folder / "SKILL.md"
    path.write_text(text, encoding="utf-8")
    uri = bench.open(path, text, language="markdown")
    await bench.wait(lambda: (uri, 1) in bench.events)
    lines = text.split("\n")
    document = types.TextDocumentIdentifier(uri=uri)
    results: dict = {"lines": len(lines)}

    # didChange -> the SKILL.md rules' diagnostics of that version (typing in prose).
    line_no = next(
        n for n, line in enumerate(lines) if line.startswith("Plain guidance for step 499")
    )
    column = len("Plain guidance")
    timings = await bench.typing(uri, line_no, column, requests)
    results["did_change_to_diagnostics"] = summary(timings)
    await asyncio.sleep(1.0)

    # Completion inside a link target: the cursor right after "](references/".
    link_lines = [n for n, line in enumerate(lines) if "](references/" in line]
    items = 0

    async def complete(line: int):
        nonlocal items
        column = lines[line].index("](references/") + len("](references/")
        answer = await client.text_document_completion_async(
            types.CompletionParams(document, types.Position(line, column))
        )
        items = len(answer.items) if answer is not None else 0

    spent = []
    for n in range(requests):
        sent = time.perf_counter()
        await complete(link_lines[(n * 7) % len(link_lines)])
        spent.append(time.perf_counter() - sent)
    results["completion_in_link"] = {**summary(spent), "items": items}

    links = 0
    spent = []
    for _ in range(requests):
        sent = time.perf_counter()
        found = await client.text_document_document_link_async(
            types.DocumentLinkParams(text_document=document)
        )
        spent.append(time.perf_counter() - sent)
        links = len(found or ())
    results["document_links"] = {**summary(spent), "links": links}
    client.text_document_did_close(types.DidCloseTextDocumentParams(document))
    return results


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values) * 1000, 2),
        "p95_ms": round(percentile(values, 0.95) * 1000, 2),
        "n": len(values),
    }


def rss_mib(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    return round(int(match.group(1)) / 1024, 1) if match else None


class Bench:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = make_test_lsp_client()
        self.versions: dict[str, int | None] = {}
        self.events: dict[tuple[str, int | None], float] = {}

        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.client.diagnostics[params.uri] = params.diagnostics
            self.versions[params.uri] = params.version
            self.events.setdefault((params.uri, params.version), time.perf_counter())

        def accept_registration(params: types.RegistrationParams) -> None:
            """The server registers file watchers like an editor expects; nothing to do."""

        features = self.client.protocol.fm.features
        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
        features[types.CLIENT_REGISTER_CAPABILITY] = accept_registration

    async def wait(self, condition, timeout: float = 60.0) -> None:
        deadline = time.perf_counter() + timeout
        while not condition():
            if time.perf_counter() > deadline:
                raise TimeoutError("benchmark condition not met")
            await asyncio.sleep(0.0005)

    def insert(self, uri: str, version: int, where: types.Position, text: str) -> None:
        """didChange: ``text`` inserted at ``where``, making ``version``."""
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(where, where), text=text
                    )
                ],
            )
        )

    async def typing(self, uri: str, line: int, column: int, keys: int) -> list[float]:
        """Type ``keys`` x's from (line, column) of the document opened at version 1, one
        didChange each: the seconds from each change to its version's diagnostics."""
        timings = []
        for version in range(2, keys + 2):
            where = types.Position(line, column + version - 2)
            sent = time.perf_counter()
            self.insert(uri, version, where, "x")
            await self.wait(lambda v=version: (uri, v) in self.events)
            timings.append(self.events[(uri, version)] - sent)
            await asyncio.sleep(0.01)  # a fast typist, not a flood
        return timings

    def open(self, path: Path, text: str, language: str = "python") -> str:
        uri = from_fs_path(str(path))
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
            )
        )
        return uri


async def pathological_line(bench: Bench, complete, line: int, edits: int) -> dict:
    """One line of ``WALL`` unclosed brackets, and what it costs the other requests."""
    alone = []
    for _ in range(edits):
        sent = time.perf_counter()
        await complete(line)
        alone.append(time.perf_counter() - sent)
    wall = bench.open(bench.root / "wall.py", "(" * WALL)
    sent = time.perf_counter()
    await complete(line)  # a request on another file, right behind the open
    behind_open = time.perf_counter() - sent
    await bench.wait(lambda: (wall, 1) in bench.events, timeout=600)
    opened = bench.events[(wall, 1)] - sent
    to_diagnostics, behind_edit = [], []
    for n in range(edits):
        version = n + 2
        where = types.Position(0, WALL // 2 + n)
        sent = time.perf_counter()
        bench.insert(wall, version, where, "(")
        await complete(line)
        behind_edit.append(time.perf_counter() - sent)
        await bench.wait(lambda v=version: (wall, v) in bench.events, timeout=600)
        to_diagnostics.append(bench.events[(wall, version)] - sent)
        await asyncio.sleep(0.05)
    bench.client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=wall))
    )
    return {
        "characters": WALL,
        "completion_alone": summary(alone),
        "open_to_diagnostics_s": round(opened, 3),
        "completion_behind_open_ms": round(behind_open * 1000, 1),
        "edit_to_diagnostics": summary(to_diagnostics),
        "completion_behind_edit": summary(behind_edit),
    }


async def run(requests: int, pathological_only: bool = False, skill_md_only: bool = False) -> dict:
    root = Path(tempfile.mkdtemp(prefix="skillkit-lsp-bench-"))
    text = generate_skill()
    path = root / "big_skill.py"
    path.write_text(text, encoding="utf-8")
    bench = Bench(root)
    client = bench.client
    results: dict = {"lines": text.count("\n"), "steps": STEPS, "python": sys.version.split()[0]}

    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "skill_lsp")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name="bench")],
            initialization_options={"workspaceTrusted": True},
        )
    )
    uri = bench.open(path, text)
    await bench.wait(lambda: (uri, 1) in bench.events)
    results["start_to_first_diagnostics_s"] = round(bench.events[(uri, 1)] - started, 3)

    lines = text.split("\n")
    next_lines = [n for n, line in enumerate(lines) if line.strip().startswith('next="s')]
    step_lines = [n for n, line in enumerate(lines) if re.fullmatch(r'\s+"s\d+",', line)]
    document = types.TextDocumentIdentifier(uri=uri)

    async def timed(make, positions) -> list[float]:
        spent = []
        for n in range(requests):
            line = positions[(n * 7) % len(positions)]
            sent = time.perf_counter()
            await make(line)
            spent.append(time.perf_counter() - sent)
        return spent

    async def complete(line: int):
        column = lines[line].index('next="') + len('next="s')
        return await client.text_document_completion_async(
            types.CompletionParams(document, types.Position(line, column))
        )

    async def define(line: int):
        column = lines[line].index('next="') + len('next="s')
        return await client.text_document_definition_async(
            types.DefinitionParams(document, types.Position(line, column))
        )

    async def hover(line: int):
        column = lines[line].index('"s') + 2
        return await client.text_document_hover_async(
            types.HoverParams(document, types.Position(line, column))
        )

    async def semantic_ready() -> float:
        """Seconds until a hover holds the rendered prompt (the semantic layer's answer)."""
        begun = time.perf_counter()
        while True:
            answer = await hover(step_lines[3])
            if answer is not None and "```xml" in answer.contents.value:
                return time.perf_counter() - begun
            if time.perf_counter() - begun > 120:
                raise TimeoutError("no semantic result")
            await asyncio.sleep(0.02)

    if skill_md_only:
        await semantic_ready()  # the worker's first pass over the Python file is done
        results["skill_md"] = await skill_md_case(bench, requests)
        await client.shutdown_session()
        await client.stop()
        return results

    if pathological_only:
        edits = min(requests, 20)
        results["pathological_line"] = await pathological_line(
            bench, complete, next_lines[0], edits
        )
        await client.shutdown_session()
        await client.stop()
        return results

    opened_for = time.perf_counter() - bench.events[(uri, 1)]
    results["open_to_first_semantic_pass_s"] = round(opened_for + await semantic_ready(), 2)

    # didChange -> syntax diagnostics of that version (typing in a prompt string).
    line_no = text.split("\n").index(
        '        prompt="Step 100: read the notes and answer yes or no.",'
    )
    column = len('        prompt="Step 100')
    timings = await bench.typing(uri, line_no, column, requests)
    results["did_change_to_syntax_diagnostics"] = summary(timings)

    await asyncio.sleep(1.0)  # let the last edits settle
    results["completion"] = summary(await timed(complete, next_lines))
    results["definition"] = summary(await timed(define, next_lines))
    await semantic_ready()  # the edited text's analysis, before hovers are timed
    results["hover"] = summary(await timed(hover, step_lines))

    results["pathological_line"] = await pathological_line(
        bench, complete, next_lines[0], min(requests, 20)
    )
    results["skill_md"] = await skill_md_case(bench, requests)

    # Memory with 50 skill files open.
    for n in range(50):
        extra = root / f"skill_{n}.py"
        body = generate_skill(60, name=f"skill-{n}")
        extra.write_text(body, encoding="utf-8")
        other = bench.open(extra, body)
        await bench.wait(lambda other=other: (other, 1) in bench.events)
    await asyncio.sleep(2.0)
    worker = None
    for message in client.log_messages:
        found = re.search(r"analysis worker started \(pid (\d+)\)", message.message)
        if found:
            worker = int(found.group(1))
    server_pid = client._server.pid if client._server else None
    results["rss_mib_50_open_files"] = {"server": rss_mib(server_pid), "worker": rss_mib(worker)}

    await client.shutdown_session()
    await client.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--pathological-only", action="store_true", help="start, then only the 300,000 '(' line"
    )
    parser.add_argument(
        "--skill-md-only", action="store_true", help="start, then only the 1,000-line SKILL.md"
    )
    args = parser.parse_args()
    os.environ.setdefault("XDG_CACHE_HOME", tempfile.mkdtemp(prefix="skillkit-bench-cache-"))
    results = asyncio.run(run(args.requests, args.pathological_only, args.skill_md_only))
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
