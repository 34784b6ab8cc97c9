"""The ``skillkit`` entry point: the hot commands skip typer, a closed pipe is quiet."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.process_support import in_a_deleted_folder

ROOT = Path(__file__).parents[2]
DEPLOY = str(ROOT / "examples" / "deploy-check" / "deploy_check.py")
HEAVY = ("typer", "rich", "tree_sitter", "pygls")


def _imported(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "skillkit_core", *args],
        capture_output=True,
        text=True,
    )
    lines = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    return {name.split(".")[0] for name in lines}


@pytest.mark.parametrize(
    "args",
    [("run", DEPLOY, "start"), ("check", DEPLOY, "--format", "json")],
    ids=["run", "check"],
)
def test_hot_commands_import_no_cli_framework(args: tuple[str, ...]) -> None:
    assert not _imported(*args) & set(HEAVY)


def test_other_commands_go_through_typer() -> None:
    assert "typer" in _imported("version")


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path) -> None:
    # Far more output than a pipe buffers, so the writer meets the closed pipe.
    for index in range(100):
        folder = tmp_path / f"Notes{index}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(
            f"---\nname: Notes{index}\ndescription: Notes.\nlicence: x\ncolour: y\n---\n"
        )
    reader = subprocess.Popen(
        f"{sys.executable} -m skillkit_core check {tmp_path} --format sarif | head -c 10",
        shell=True,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    out, err = reader.communicate(timeout=60)
    assert out == '{\n  "$sche'
    assert "Traceback" not in err and "BrokenPipeError" not in err


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_check_started_without_stdout_exits_with_its_verdict(
    tmp_path: Path, output_format: str
) -> None:
    folder = tmp_path / "Notes"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: Notes\ndescription: Notes.\n---\n")
    check = [sys.executable, "-m", "skillkit_core", "check", str(folder)]
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *check, "--format", output_format, "--no-cache"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (1, "")  # the findings' exit code, quietly


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("check", str(ROOT / "examples")), 2),
        (("check", str(ROOT / "examples"), "--format", "json"), 2),
        (("rules",), 1),
        (("graph", DEPLOY), 1),
    ],
    ids=["check", "check-json", "rules", "graph"],
)
def test_output_that_cannot_be_written_is_an_error_not_a_traceback(
    args: tuple[str, ...], code: int, unbuffered: str
) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "skillkit_core", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert done.returncode == code
    assert done.stderr.splitlines()[-1:] == [
        "error[output]: the output could not be written: No space left on device"
    ]
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


INTERRUPT_MID_CHECK = """
import os, sys
from skillkit_core import entry
from skillkit_core.lint import parallel
caller = os.getpid()
take = parallel._take
def interrupted(tickets):  # Ctrl-C reaches the caller as it takes its first ticket
    if os.getpid() == caller:
        raise KeyboardInterrupt
    return take(tickets)
parallel._take = interrupted
sys.argv = ["skillkit", "check", sys.argv[1], "--format", "json"]
try:
    entry.main()
finally:
    try:
        os.waitpid(-1, os.WNOHANG)
        print("a helper is still running")
    except ChildProcessError:
        print("no helper left")
"""


def test_ctrl_c_stops_quietly_with_exit_130(tmp_path: Path) -> None:
    _notes(tmp_path)  # enough folders for the helpers: they are stopped too
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_MID_CHECK, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "no helper left\n", "")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("check", "."), 2),
        (("check", DEPLOY), 2),
        (("preview", DEPLOY), 2),
        (("build", DEPLOY, "--out", "out"), 2),
        (("version",), 0),
        (("check", "--help"), 0),
        (("run", DEPLOY, "start"), 0),  # the agent's folder may be gone; run names no paths
    ],
    ids=lambda value: value if isinstance(value, int) else " ".join(value),
)
def test_a_deleted_current_folder_is_named_not_a_traceback(
    tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core", *args],
        capture_output=True,
        text=True,
        preexec_fn=in_a_deleted_folder(tmp_path),
        env={**os.environ, "SKILLKIT_CACHE_DIR": str(tmp_path / "cache")},
        timeout=60,
    )
    assert done.returncode == code, done.stderr
    if code:
        assert done.stdout == ""
        assert done.stderr == (
            "error[usage]: the current folder cannot be found (No such file or directory); "
            "change to a folder that exists\n"
        )
    else:
        assert "Traceback" not in done.stderr and done.stdout


def _notes(root: Path) -> None:
    for index in range(40):  # enough folders for the forked workers
        folder = root / f"notes-{index}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(f"---\nname: notes-{index}\ndescription: Notes.\n---\n")


def test_checking_skill_md_folders_loads_no_dataclasses_pickle_or_pydantic(
    tmp_path: Path,
) -> None:
    # Start-up is most of a check's time: these modules cost more than checking the folders.
    _notes(tmp_path)
    loaded = _imported("check", str(tmp_path), "--format", "json")
    assert {"skillkit_core", "json"} <= loaded  # the imports were seen
    assert not loaded & {"dataclasses", "inspect", "pickle", "pydantic", *HEAVY}


COUNT_FORWARD_REFS = """
import atexit, sys, typing
made = []
original = typing.ForwardRef.__init__
def counting(self, *args, **kwargs):
    made.append(args[0])
    original(self, *args, **kwargs)
typing.ForwardRef.__init__ = counting
atexit.register(lambda: print("forward refs:", made, file=sys.stderr))
from skillkit_core.entry import main
sys.argv = ["skillkit", "check", sys.argv[1], "--format", "json"]
main()
"""


def _imported_by_the_command(*args: str, cache: Path) -> set[str]:
    """Every module ``skillkit ARGS`` imports itself: run without ``site``, whose start
    (an editable install's finder, above all) would import modules of its own, with its
    result cache in ``cache``."""
    path = os.pathsep.join([str(ROOT), *site.getsitepackages()])
    done = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-m", "skillkit_core", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path, "SKILLKIT_CACHE_DIR": str(cache)},
        cwd=ROOT,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}


def _skill_folder(root: Path) -> Path:
    """A skill folder with a reference and a script, as real ones have."""
    folder = root / "pdf-tools"
    (folder / "references").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Extract text from PDF files.\n---\n"
        "# PDF tools\n\nRead [the guide](references/guide.md), then run "
        "`python scripts/extract.py input.pdf`.\n"
    )
    (folder / "references" / "guide.md").write_text("# Guide\n\nSee `scripts/extract.py`.\n")
    (folder / "scripts" / "extract.py").write_text("#!/usr/bin/env python3\nprint(1)\n")
    (folder / "scripts" / "extract.py").chmod(0o755)
    return folder


def test_checking_one_skill_folder_imports_only_what_it_needs(tmp_path: Path) -> None:
    # Every module costs a one-folder check's start (a few times agnix's whole run).
    folder = str(_skill_folder(tmp_path))
    args = ("check", folder, "--format", "json")
    loaded = _imported_by_the_command(*args, cache=tmp_path / "cache")
    assert {"json", "skillkit_core.lint.registry"} <= loaded  # the imports were seen
    light = {"typing", "getopt", "gettext", "hashlib", "shutil", "tempfile"}
    # A plain frontmatter is read without PyYAML, paths without pathlib.
    assert not loaded & (light | {"yaml", "pathlib", "urllib.parse"})
    # Text output needs no json.
    text = _imported_by_the_command("check", folder, "--no-cache", cache=tmp_path / "cache")
    assert "skillkit_core.lint.registry" in text
    assert not text & (light | {"yaml", "pathlib", "json", "urllib.parse"})
    # Checked again, unchanged: the findings are read back, without the rules or PyYAML.
    again = _imported_by_the_command(*args, cache=tmp_path / "cache")
    assert "skillkit_core.lint.result_cache" in again
    heavy = {"yaml", "skillkit_core.lint.registry", "skillkit_core.manifest.markdown"}
    assert not again & (light | heavy)


def test_a_skill_in_a_plugin_is_checked_without_openssl(tmp_path: Path) -> None:
    # unreferenced-file reads the extension's context files beside the skill, and the
    # result cache keeps (then checks again) a digest of each: hashlib would load OpenSSL.
    extension = tmp_path / "extension"
    folder = _skill_folder(extension / "skills")
    (extension / "gemini-extension.json").write_text('{"contextFileName": "CONTEXT.md"}')
    (extension / "CONTEXT.md").write_text("Nothing about the skill's files.\n")
    (folder / "references" / "unused.md").write_text("# Unused\n")
    args = ("check", str(folder), "--format", "json")
    for _ in ("stored", "read back"):
        loaded = _imported_by_the_command(*args, cache=tmp_path / "cache")
        assert "skillkit_core.lint.result_cache" in loaded  # the imports were seen
        assert not loaded & {"hashlib", "_hashlib"}
    assert list((tmp_path / "cache" / "check").glob("results-*"))


def test_checking_skill_md_folders_compiles_no_string_annotations(tmp_path: Path) -> None:
    # The value types of the SKILL.md check are named tuples, and typing.NamedTuple
    # compiles each string annotation when the class is made (a hundred of them would
    # cost as much as checking ten folders), so their modules do without
    # ``from __future__ import annotations``.
    _notes(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", COUNT_FORWARD_REFS, str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert '"summary"' in done.stdout
    assert done.stderr.strip() == "forward refs: []"
