"""Every code block of the README and of docs/ runs, or is checked for what it is.

- ``python`` blocks run, page by page in the order a reader meets them (the README, the
  index, getting started, then the guides), each page in a namespace of its own, with the
  current folder a scratch folder on ``sys.path`` shared by all pages (so the guides can
  import the ``release_notes.py`` that getting started saves). A block that defines
  ``test_*`` functions has them called, with the pytest fixtures the docs mention.
- A block preceded by an HTML comment says what else it is:
  ``<!-- docs-test: file NAME -->`` saves it as NAME in the scratch folder (before any
  page runs) and runs it in its page too;
  ``<!-- docs-test: excerpt PATH -->`` is a verbatim excerpt of the repository file PATH
  (checked line by line); ``<!-- docs-test: fragment REASON -->`` is part of a statement
  that cannot run alone (a signature, a ``.step(...)`` call) and must say why.
- ``json``, ``yaml`` and ``toml`` blocks parse (``{…}``/``[…]``/``…`` mark elided parts of
  JSON); ``console`` and ``sh`` blocks have each ``skillkit`` and ``scripts/run`` command
  parsed by the real command-line parsers (a usage synopsis is a ``text`` block), and a
  console block marked ``<!-- docs-test: run DIR -->`` is run: each ``$ skillkit ...``
  command in DIR (``scratch``, or a folder of the repository), its output holding the
  lines shown, in order (a ``...`` line stands for lines left out, ``…`` for text);
  ``text``, ``xml``, ``markdown``, ``lua``, ``elisp`` and ``vim`` blocks are shown output,
  synopses or editor configuration, and a block without a language fails.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shlex
import sys
import tomllib
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml
from typer import _click as click  # the click typer's commands raise from

ROOT = Path(__file__).parents[2]
PAGES = [
    ROOT / "README.md",
    ROOT / "docs" / "index.md",
    ROOT / "docs" / "getting-started.md",
    *sorted((ROOT / "docs" / "guides").glob("*.md")),
]
EXAMPLE_DIRS = [path for path in sorted((ROOT / "examples").iterdir()) if path.is_dir()]
SHOWN = {"text", "xml", "markdown", "lua", "elisp", "vim"}
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
_MARKER = re.compile(r"<!--\s*docs-test:\s*(?P<kind>\w+)\s*(?P<arg>.*?)\s*-->")


@dataclass
class Block:
    page: Path
    line: int
    language: str
    text: str
    marker: str | None = None
    argument: str = ""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, with the marker just above each."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not (
            lines[end].strip().startswith(fence) and lines[end].strip().strip(fence[0]) == ""
        ):
            body.append(lines[end][len(indent) :] if lines[end].startswith(indent) else lines[end])
            end += 1
        block = Block(page, index + 1, opening["info"].strip().split(" ")[0], "\n".join(body))
        above = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        marker = _MARKER.search(above)
        if marker:
            block.marker, block.argument = marker["kind"], marker["arg"]
        found.append(block)
        index = end + 1
    return found


ALL = [block for page in PAGES for block in blocks(page)]


def test_the_pages_have_blocks_of_every_kind() -> None:
    languages = {block.language for block in ALL}
    assert {"python", "console", "json", "yaml", "toml"} <= languages
    assert sum(block.language == "python" for block in ALL) >= 25


@pytest.mark.parametrize("block", ALL, ids=lambda b: b.where)
def test_every_block_says_what_it_is(block: Block) -> None:
    known = {"python", "json", "yaml", "toml", "console", "sh"} | SHOWN
    assert block.language in known, f"{block.where}: a code block needs a known language"
    if block.marker is not None:
        assert block.marker in ("file", "excerpt", "fragment", "run"), block.where
        assert block.argument, f"{block.where}: a {block.marker} marker needs its argument"
        wanted = "console" if block.marker == "run" else "python"
        assert block.language == wanted, f"{block.where}: a {block.marker} block is {wanted}"


# -- python ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("docs")
    # Every page's files first, so that a page may import another's in any test order.
    for block in ALL:
        if block.marker == "file":
            (folder / block.argument).write_text(block.text + "\n", encoding="utf-8")
    saved_path, saved_cwd = list(sys.path), os.getcwd()
    sys.path[:0] = [str(folder), *(str(d) for d in EXAMPLE_DIRS)]
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        pages = [n for n in sys.modules if n.startswith("docs_")]
        for name in pages + [n for n, m in sys.modules.items() if _loaded_from(m, folder)]:
            del sys.modules[name]


def _loaded_from(module: Any, folder: Path) -> bool:
    file = getattr(module, "__file__", None) or ""
    return file.startswith(str(folder))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_of_the_page_runs(page: Path, scratch: Path) -> None:
    # A real module, so that pydantic finds the names the page's models use.
    module = types.ModuleType(f"docs_{page.stem.replace('-', '_')}")
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    for block in blocks(page):
        if block.language != "python":
            continue
        if block.marker == "fragment":
            continue
        if block.marker == "excerpt":
            _check_excerpt(block)
            continue
        _run(block, namespace)


def _run(block: Block, namespace: dict[str, Any]) -> None:
    before = set(namespace)
    try:
        code = compile(block.text, block.where, "exec")
    except SyntaxError as error:
        pytest.fail(f"{block.where}: does not compile ({error}); mark a fragment as such")
    try:
        exec(code, namespace)
        for name in sorted(set(namespace) - before):
            if name.startswith("test_") and inspect.isfunction(namespace[name]):
                _call_test(namespace[name])
    except Exception as error:
        pytest.fail(f"{block.where}: raised {type(error).__name__}: {error}")


def _call_test(function: Any) -> None:
    from skillkit_core import testing

    fixtures = {
        "run_skill": testing.run_skill,
        "run_composite": testing.run_composite,
        "mock_model": testing.mock_model,
    }
    names = inspect.signature(function).parameters
    function(**{name: fixtures[name] for name in names})


def _check_excerpt(block: Block) -> None:
    source = (ROOT / block.argument).read_text(encoding="utf-8")
    stripped = [line.strip() for line in source.splitlines()]
    wanted = [line.strip() for line in block.text.splitlines() if line.strip()]
    for line in wanted:
        assert line in stripped, f"{block.where}: not in {block.argument}: {line}"


# -- data ------------------------------------------------------------------------------


_ELIDED = [("{…}", "{}"), ("[…]", "[]"), (",…}", "}"), (",…]", "]")]


@pytest.mark.parametrize(
    "block",
    [b for b in ALL if b.language in ("json", "yaml", "toml")],
    ids=lambda b: b.where,
)
def test_every_data_block_parses(block: Block) -> None:
    if block.language == "yaml":
        list(yaml.safe_load_all(block.text))  # a frontmatter block has its --- markers
    elif block.language == "toml":
        tomllib.loads(block.text)
    else:
        _json_values(block.text, block.where)


def _json_values(text: str, where: str) -> None:
    for old, new in _ELIDED:
        text = text.replace(old, new)
    try:
        json.loads(text)
        return
    except ValueError:
        pass
    for number, line in enumerate(text.splitlines(), start=1):  # JSON lines
        if line.strip():
            try:
                json.loads(line)
            except ValueError as error:
                pytest.fail(f"{where} (+{number}): not JSON: {error}")


# -- commands --------------------------------------------------------------------------


def commands(block: Block) -> list[list[str]]:
    """The commands of a console block (``$`` lines, with their continuation lines) or of a
    sh block (every line), comments dropped."""
    found: list[list[str]] = []
    pending = ""
    lines = block.text.splitlines()
    for line in lines:
        if block.language == "console" and not pending and not line.startswith("$ "):
            continue
        text = line[2:] if not pending and line.startswith("$ ") else line
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        text, pending = pending + text, ""
        words = shlex.split(text, comments=True)
        if words:
            found.append(words)
    return found


SHELL = [b for b in ALL if b.language in ("console", "sh")]


@pytest.mark.parametrize("block", SHELL, ids=lambda b: b.where)
def test_every_skillkit_and_scripts_run_command_parses(block: Block) -> None:
    from skillkit_core.cli import app
    from skillkit_core.protocol.args import parse_args

    group = typer.main.get_command(app)
    for words in commands(block):
        program = words[0]
        if program == "skillkit":
            if len(words) < 2 or words[1].startswith("-"):
                continue  # skillkit --help
            command = group.commands.get(words[1])  # type: ignore[attr-defined]
            assert command is not None, f"{block.where}: no command 'skillkit {words[1]}'"
            try:
                command.make_context(f"skillkit {words[1]}", words[2:])
            except click.exceptions.Exit:
                pass
            except click.UsageError as error:
                if not isinstance(error, click.BadParameter) or "does not exist" not in str(error):
                    pytest.fail(f"{block.where}: {' '.join(words)}: {error.format_message()}")
        elif program.endswith("scripts/run"):
            parse_args(words[1:], ("setup", "doctor"))


RUN = [b for b in ALL if b.marker == "run"]


@pytest.mark.parametrize("block", RUN, ids=lambda b: b.where)
def test_console_blocks_marked_run_print_what_they_show(block: Block, scratch: Path) -> None:
    import subprocess

    folder = scratch if block.argument == "scratch" else ROOT / block.argument
    skillkit = str(Path(sys.executable).parent / "skillkit")
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    for words, shown in transcript(block):
        assert words[0] == "skillkit", f"{block.where}: only skillkit commands are run"
        done = subprocess.run(
            [skillkit, *words[1:]], cwd=folder, capture_output=True, text=True, env=env, timeout=120
        )
        output = (done.stdout + done.stderr).splitlines()
        at = 0
        for line in shown:
            pattern = re.compile(".*".join(re.escape(part) for part in line.split("…")))
            while at < len(output) and not pattern.fullmatch(output[at].rstrip()):
                at += 1
            assert at < len(output), (
                f"{block.where}: {' '.join(words)} did not print {line!r}; it printed:\n"
                + "\n".join(output)
            )
            at += 1


def transcript(block: Block) -> list[tuple[list[str], list[str]]]:
    """Each ``$`` command of a console block with the output lines shown after it."""
    found: list[tuple[list[str], list[str]]] = []
    for words in commands(block):
        found.append((words, []))
    index = -1
    pending = False
    for line in block.text.splitlines():
        if line.startswith("$ ") or pending:
            if not pending:
                index += 1
            pending = line.rstrip().endswith("\\")
            continue
        if index >= 0 and line.strip() not in ("...", ""):
            found[index][1].append(line.rstrip())
    return found
