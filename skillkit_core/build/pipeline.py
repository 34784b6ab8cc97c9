"""``skillkit build``: turn a skill written in Python into a distributable skill folder.

Steps, in order (each reported to an optional progress callback):

1. **load** the entry (``file.py`` or ``file.py:attr``) with the project's loader;
2. **validate** it (builder checks, then the linter's error-level workflow rules);
3. copy **references/** and **assets/**, write **SKILL.md**;
4. **bundle** it: a pyz for any CPython >= 3.11 (default), or a PyInstaller executable,
   carrying SKILL.md's record for ``scripts/run mcp`` (``build.record_data``);
5. write **scripts/run** and **package.json**;
6. **check** the folder with the manifest validator;
7. **swap** it into place.

Everything is written into a temporary folder beside the output and swapped in at the
end, so a failed build leaves the previous output untouched and a reader never sees a
half-written folder.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from skillkit_core.build.targets import (
    current_python,
    current_target_id,
    parse_python_versions,
    parse_targets,
)
from skillkit_core.build.wrapper import WRAPPER_MARK
from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import BuildError

Definition = SkillDefinition | ReferenceDefinition
Progress = Callable[[str, str], None]
"""``progress(kind, text)``: kind ``"step"`` starts a pipeline step, ``"detail"`` tells
what the current step is doing."""

MODES = ("pyz", "binary")
PROTOCOLS = ("session", "stateless")
STEPS = {
    "load": "Load the skill",
    "validate": "Validate the definition",
    "copy": "Copy references/ and assets/",
    "skill-md": "Write SKILL.md",
    "bundle": "Bundle the program",
    "wrapper": "Write scripts/run",
    "package-json": "Write package.json",
    "check": "Check the folder against the Agent Skills spec",
    "swap": "Put the folder in place",
}
_CONTENT_DIRS = ("references", "assets")


@dataclass(frozen=True)
class BuildOptions:
    """What to build and how (the ``skillkit build`` command line as data)."""

    entry: str
    out_dir: Path
    mode: str = "pyz"
    protocol: str = "session"
    targets: tuple[str, ...] | None = None
    single: bool = False
    pythons: tuple[str, ...] | None = None
    cache_dir: Path | None = None


@dataclass
class BuildResult:
    """What a build produced: the folder, its files with sizes, warnings, timing."""

    out_dir: Path
    skill: str
    mode: str
    targets: tuple[str, ...]
    files: list[tuple[str, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    native: dict[str, list[str]] = field(default_factory=dict)
    distributions: list[str] = field(default_factory=list)
    seconds: float = 0.0


def build_skill(options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Run the whole pipeline; ``BuildError`` (or another ``SkillkitError``) on failure,
    with the previous output folder left as it was."""
    started = time.perf_counter()
    report = progress or (lambda _kind, _text: None)
    mode, targets, pythons = _plan(options)
    out = _output_folder(options.out_dir)

    report("step", STEPS["load"])
    from skillkit_core.loader import load_entry, split_entry

    definition = load_entry(options.entry)
    entry_file = Path(split_entry(options.entry)[0]).resolve()
    _refuse_overwriting_sources(out, entry_file, definition)

    report("step", STEPS["validate"])
    from skillkit_core.build.package_json import skill_version
    from skillkit_core.build.validate import check_definition

    source_dir = _source_dir(definition, entry_file)
    check_definition(definition, source_dir)
    version = skill_version(definition, entry_file)

    result = BuildResult(out, definition.name, mode, targets)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    except (FileExistsError, NotADirectoryError):
        raise BuildError(
            f"cannot build into {out.parent}: a file stands where a folder on the way must be"
        ) from None
    except OSError as error:  # a pseudo file system; a full or read-only one is output's
        from skillkit_core.streams import from_writing

        if from_writing(error):
            raise
        raise BuildError(f"cannot build into {out.parent}: {error.strerror or error}") from None
    report("scratch", str(scratch))  # for a caller that may have to stop this build
    try:
        stage = scratch / out.name
        stage.mkdir()
        _assemble(definition, options, stage, out, version, mode, targets, pythons, result, report)
        report("step", STEPS["swap"])
        _swap(stage, out, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if os.path.lexists(scratch):  # a file in it that cannot be removed (immutable, say)
        result.warnings.append(f"{scratch} could not be removed whole; remove it by hand")
    result.files = _listing(out)
    result.seconds = time.perf_counter() - started
    return result


def _plan(options: BuildOptions) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The mode, target platforms and CPython versions, checked."""
    if options.mode not in MODES:
        raise BuildError(f"unknown mode '{options.mode}'; use {' or '.join(MODES)}")
    if options.protocol not in PROTOCOLS:
        raise BuildError(f"unknown protocol '{options.protocol}'; use {' or '.join(PROTOCOLS)}")
    here = current_target_id()
    if options.single and options.targets:
        raise BuildError("--single builds for this machine only; leave out --targets with it")
    if options.mode == "binary":
        asked = parse_targets(options.targets) if options.targets else (here,)
        others = [t for t in asked if t != here]
        if others:
            raise BuildError(
                f"--mode binary builds for this machine only ({here}): PyInstaller cannot "
                f"build for {', '.join(others)}. Build on each platform, or use --mode pyz, "
                "which bundles any platform"
            )
        return "binary", (here,), (current_python(),)
    if options.single:
        return "pyz", (here,), (current_python(),)
    return "pyz", parse_targets(options.targets), parse_python_versions(options.pythons)


def _output_folder(out_dir: Path | str) -> Path:
    given = Path(os.path.abspath(out_dir))
    if given.is_symlink():
        raise BuildError(f"output folder {given} is a symlink; give the real folder")
    # The folders above it as they really are: the checks against the skill's sources
    # compare real paths (a link on the way must not hide that they are the same).
    out = Path(os.path.realpath(given.parent)) / given.name
    if out.exists() and not out.is_dir():
        raise BuildError(f"output path {out} exists and is not a folder")
    # Replaced whole: an earlier build, or a folder prepared with a package.json alone
    # (which is merged), never a folder of other files that happen to have such names.
    if (
        out.is_dir()
        and {p.name for p in out.iterdir()} - {"package.json"}
        and not _earlier_build(out)
    ):
        raise BuildError(
            f"output folder {out} is not empty and holds no earlier build (no scripts/run "
            "written by skillkit build); refusing to replace it"
        )
    return out


def _earlier_build(folder: Path) -> bool:
    """Whether ``folder`` holds a skill skillkit built (its ``scripts/run`` says so): only
    such a folder is replaced whole by a build."""
    # Never through a link: one to another build would vouch for a folder of other files.
    if (folder / "scripts").is_symlink():
        return False
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(folder / "scripts" / "run", flags)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and WRAPPER_MARK in os.read(fd, 512)
    except OSError:
        return False
    finally:
        os.close(fd)


def _source_dir(definition: Definition, entry_file: Path) -> Path:
    source = definition.source_file
    return Path(source).resolve().parent if source else entry_file.parent


def _refuse_overwriting_sources(out: Path, entry_file: Path, definition: Definition) -> None:
    for source in {entry_file, *(_source_files(definition))}:
        if _within(source, out):
            raise BuildError(
                f"output folder {out} contains the skill's source {source}; build elsewhere"
            )


def _within(source: Path, folder: Path) -> bool:
    """Whether ``source`` lies in ``folder``: by path, or (a bind mount, another name of
    the same folder) by the identity of one of the folders above it."""
    if source.is_relative_to(folder):
        return True
    try:
        wanted = os.stat(folder)
    except OSError:
        return False  # not there yet: nothing in it to lose
    for parent in source.parents:
        try:
            info = os.stat(parent)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (wanted.st_dev, wanted.st_ino):
            return True
    return False


def _source_files(definition: Definition) -> list[Path]:
    files = [definition.source_file]
    if isinstance(definition, SkillDefinition):
        files += [sub.definition.source_file for sub in definition.subskills]
    return [Path(f).resolve() for f in files if f]


def _assemble(
    definition: Definition,
    options: BuildOptions,
    stage: Path,
    out: Path,
    version: str,
    mode: str,
    targets: tuple[str, ...],
    pythons: tuple[str, ...],
    result: BuildResult,
    report: Progress,
) -> None:
    import json

    from skillkit_core.build.package_json import (
        default_files,
        merged_package_json,
        npm_fields,
        npm_pack_problems,
    )
    from skillkit_core.build.skill_md import render_skill_md
    from skillkit_core.build.validate import check_output

    report("step", STEPS["copy"])
    copied = {name: copy_content(definition, name, stage / name) for name in _CONTENT_DIRS}

    report("step", STEPS["skill-md"])
    skill_md = render_skill_md(
        definition, version=version, protocol=options.protocol, references=copied["references"]
    )
    (stage / "SKILL.md").write_text(skill_md.text, encoding="utf-8")

    # After SKILL.md: the bundle carries its record, so that scripts/run mcp can serve the
    # folder without parsing SKILL.md (see build.record_data).
    report("step", STEPS["bundle"])
    _bundle(definition, options, stage, mode, targets, pythons, result, report)

    report("step", STEPS["wrapper"])
    _write_wrapper(definition.name, stage, mode, targets)

    report("step", STEPS["package-json"])
    files = default_files(bool(copied["references"]), bool(copied["assets"]))
    existing = out / "package.json"
    npm_version, npm_warnings = npm_fields(definition, version)
    result.warnings.extend(npm_warnings)
    text = merged_package_json(
        definition, npm_version, files, existing if existing.is_file() else None
    )
    (stage / "package.json").write_text(text, encoding="utf-8")
    # As npm reads it: the text written, not the values before JSON had them.
    result.warnings.extend(npm_pack_problems(stage, json.loads(text)))

    report("step", STEPS["check"])
    checked = check_output(stage, skill_md.extension_keys, definition.name)
    result.warnings.extend(checked.warnings)
    if checked.errors:
        listing = "\n".join(f"  - {e}" for e in checked.errors)
        raise BuildError(f"the built folder fails the Agent Skills checks:\n{listing}")


def _bundle(
    definition: Definition,
    options: BuildOptions,
    stage: Path,
    mode: str,
    targets: tuple[str, ...],
    pythons: tuple[str, ...],
    result: BuildResult,
    report: Progress,
) -> None:
    from skillkit_core.build.record_data import skill_record_data

    def detail(text: str) -> None:
        report("detail", text)

    skill_record = skill_record_data(stage)
    if mode == "pyz":
        from skillkit_core.build.pyz import build_pyz
        from skillkit_core.build.start_data import precompute_start

        with _build_cache(options.cache_dir, result) as cache:
            built = build_pyz(
                options.entry,
                definition.name,
                stage / "bin" / f"{definition.name}.pyz",
                targets=targets,
                pythons=pythons,
                cache=cache,
                progress=detail,
                start=precompute_start(definition),
                skill_record=skill_record,
            )
        result.native = built.native
        result.distributions = built.distributions
        result.warnings.extend(built.warnings)
        result.targets = tuple(t for t in targets if any(k.startswith(t) for k in built.native))
        if not built.native:
            result.targets = targets
        return
    from skillkit_core.build.binary import build_binary

    binary = build_binary(
        options.entry,
        definition.name,
        stage / "bin",
        target=targets[0],
        progress=detail,
        skill_record=skill_record,
    )
    result.warnings.extend(binary.warnings)
    result.distributions = binary.distributions


@contextmanager
def _build_cache(explicit: Path | None, result: BuildResult) -> Iterator[Path]:
    """The build cache (:func:`~skillkit_core.build.wheels.private_cache`), or, when
    another user could change it, a temporary folder for this build alone (slower: every
    wheel is fetched and every module compiled again), with a warning saying why."""
    from skillkit_core.build.wheels import private_cache

    try:
        cache = private_cache(explicit)
    except OSError as error:
        result.warnings.append(f"built without the build cache: {error}")
    else:
        yield cache
        return
    with tempfile.TemporaryDirectory(prefix="skillkit-build-cache-") as scratch:
        yield Path(scratch)


def _write_wrapper(name: str, stage: Path, mode: str, targets: tuple[str, ...]) -> None:
    from skillkit_core.build.wrapper import binary_wrapper, pyz_wrapper

    text = pyz_wrapper(name) if mode == "pyz" else binary_wrapper(name, targets)
    run = stage / "scripts" / "run"
    run.parent.mkdir(parents=True, exist_ok=True)
    run.write_text(text, encoding="utf-8", newline="\n")
    run.chmod(0o755)


def copy_content(definition: Definition, folder: str, into: Path) -> list[str]:
    """Copy ``folder`` (``references`` or ``assets``) from beside each file that defines
    the skill or one of its sub-skills into ``into``; the copied names, sorted.

    Regular files only, hidden names and ``__pycache__`` left out; symlinks, to files or
    folders, are followed when they stay inside the folder (as ``skillkit check`` follows
    them), and anything else is an error rather than left out unsaid: a link leading out
    of the folder or nowhere, a FIFO, a device. The same name with different content in
    two places is an error rather than a silent pick."""
    copied: dict[str, Path] = {}
    for source_file in _source_files(definition):
        base = source_file.parent / folder
        if not base.is_dir():
            continue
        for name, path in _material(base):
            relative = Path(name)
            if name in copied:
                if copied[name].read_bytes() != path.read_bytes():
                    raise BuildError(
                        f"{folder}/{name} exists in two places with different content: "
                        f"{copied[name]} and {path}"
                    )
                continue
            copied[name] = path
            target = into / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    return sorted(copied)


def _material(base: Path) -> Iterator[tuple[str, Path]]:
    """(name inside ``base``, path) of each file :func:`copy_content` ships from ``base``,
    listed as ``skillkit check`` lists a skill folder (:func:`list_folder`: links to
    folders inside followed, junk folders skipped, bounded); hidden names are left out,
    and anything the listing could not take is a build error naming it."""
    from skillkit_core.manifest.listing import MAX_FILES, list_folder

    listing = list_folder(str(base))
    real_base = os.path.realpath(base)
    for relative, real in sorted(listing.links.items()):
        if _hidden(relative):
            continue
        if os.path.commonpath([real, real_base]) != real_base:
            raise BuildError(f"{base / relative} links outside {base}; copy the file in instead")
        if not os.path.lexists(real):
            raise BuildError(f"{base / relative} is a symbolic link that leads nowhere")
    for relative, why in sorted(listing.unreadable.items()):
        raise BuildError(f"{base / relative} cannot be shipped: {why}")
    if not listing.complete:
        raise BuildError(f"{base} holds more than {MAX_FILES} files; a skill ships fewer")
    for file in listing.files:
        if not _hidden(file.relative):
            yield file.relative, Path(file.path)


def _hidden(relative: str) -> bool:
    return any(part.startswith(".") for part in relative.split("/"))


PREVIOUS = "previous"
"""The name the old output folder has in the scratch folder while the new one moves in."""


def _swap(stage: Path, out: Path, scratch: Path) -> None:
    """Put ``stage`` at ``out``; the old ``out`` goes into ``scratch`` to be deleted."""
    if not out.exists():
        os.rename(stage, out)
        return
    previous = scratch / PREVIOUS
    try:
        os.rename(out, previous)
    except OSError as error:  # an immutable or read-only folder, another user's
        raise BuildError(
            f"cannot replace {out}: {error.strerror or error}; it is left as it was"
        ) from None
    try:
        os.rename(stage, out)
    except OSError:
        os.rename(previous, out)
        raise


def _listing(folder: Path) -> list[tuple[str, int]]:
    return [
        (path.relative_to(folder).as_posix(), path.stat().st_size)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    ]
