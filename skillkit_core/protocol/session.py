"""Session mode: the run lives in a JSONL file the agent reads and appends to.

Line 1 is the header (params, host, tools, output mode, and for a direct sub-skill start
the sub-skill's name); then one line per result (``{"type": kind, …result}``) and one per
agent output (``{"type":"output","step":…,"output":…}``). The file is the full,
replayable record. Beside it, a snapshot sidecar caches the engine state after the last
line skillkit wrote, with the size and digest of the file at that point: an advance
restores the snapshot instead of replaying everything (flat cost), and a file that no
longer matches what skillkit wrote is reported as tampered or truncated, never fixed.
Without a usable sidecar (missing, unreadable, stale after a crash) the run is rebuilt
from the file, which is verified on the way: each result line must be what the skill
produces from the header and the outputs before it (see ``_rebuild``), so an edited file
is reported even when the sidecar that would have shown it is gone.

Lines after the snapshot are the agent's. The newest counts; the ones it supersedes cost
one note on stderr however many there are; one that cannot be used (not JSON, nested too
deeply, shaped like a result or header skillkit did not write) is refused for itself,
and the next valid output line continues the run.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import (
    HistoryError,
    ParamsError,
    SessionError,
    SkillkitError,
    UsageError,
)
from skillkit_core.hosts import Handshake
from skillkit_core.protocol import jsontext
from skillkit_core.protocol.args import MISSING, Invocation
from skillkit_core.protocol.engines import (
    Engine,
    make_handshake,
    needs_event_loop,
    open_engine,
    run_sync,
    workflow_of,
)
from skillkit_core.protocol.output import Reply, error_wire, json_line, result_reply
from skillkit_core.protocol.session_store import (
    EARLIER_SIDECAR_TAG,
    LockedFile,
    checked_session_id,
    content_digest,
    create_file,
    new_session_id,
    read_sidecar,
    remove_session,
    session_dir,
    session_dir_path,
    session_ids,
    session_path,
    sidecar_path,
    sidecar_tag,
    snapshot_key,
    write_signed_sidecar,
)
from skillkit_core.protocol.stateless import submitted_step

RESULT_TYPES = frozenset({"prompt", "done", "error"})
SIDECAR_VERSION = 3
HEADER_ONLY_FLAGS = ("params", "host", "tools", "subagent")
_SUPERSEDED_SHOWN = 5
"""Line numbers a note about superseded lines lists before it says how many more."""


# -- the header ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The session's first line: what every advance rebuilds the run from."""

    session_id: str
    skill: str
    host: str
    tools: tuple[str, ...] | None
    is_subagent: bool
    params: Any
    output_mode: str
    subskill: str | None

    def handshake(self) -> Handshake:
        return make_handshake(self.host, self.tools, self.is_subagent)

    def to_json(self, created_at: str) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "header",
            "sessionId": self.session_id,
            "skill": self.skill,
            "host": self.host,
        }
        if self.tools is not None:
            data["tools"] = list(self.tools)
        if self.is_subagent:
            data["isSubagent"] = True
        data["params"] = self.params
        if self.subskill is not None:
            data["subskill"] = self.subskill
        data["createdAt"] = created_at
        data["outputMode"] = self.output_mode
        return data


def _parse_header(line: _Line | None, session_id: str, definition: SkillDefinition) -> Header:
    data = line.data if line is not None else None
    if not isinstance(data, dict) or data.get("type") != "header":
        raise SessionError(
            f"session '{session_id}': line 1 is not a session header; the file is damaged"
        )
    tools = data.get("tools")
    subskill = data.get("subskill")
    problems = []
    if data.get("sessionId") != session_id:
        problems.append(f"its sessionId is {data.get('sessionId')!r}")
    if data.get("skill") != definition.name:
        problems.append(f"it is for skill {data.get('skill')!r}, not '{definition.name}'")
    if not isinstance(data.get("host"), str):
        problems.append("it has no host")
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, str) for t in tools)
    ):
        problems.append("its tools are not a list of names")
    if data.get("outputMode") not in ("file", "flag"):
        problems.append(f"its outputMode is {data.get('outputMode')!r}")
    if "params" not in data:
        problems.append("it has no params")
    if subskill is not None and definition.subskill(subskill) is None:
        problems.append(f"it names an unknown sub-skill {subskill!r}")
    if problems:
        raise SessionError(
            f"session '{session_id}': the header does not fit: {'; '.join(problems)}"
        )
    return Header(
        session_id=session_id,
        skill=definition.name,
        host=data["host"],
        tools=tuple(tools) if tools is not None else None,
        is_subagent=bool(data.get("isSubagent")),
        params=data["params"],
        output_mode=data["outputMode"],
        subskill=subskill,
    )


# -- lines --------------------------------------------------------------------------------


UNUSABLE_LINE_KEY = "unusableLine"
"""On a ``usage`` error line answering a line of the file that could not be used: that
line's number (a rebuild then reads the line as the agent's, whatever its shape)."""


class UnusableOutput(UsageError):
    """The agent's output for this advance cannot be used (no new line, a line that is not
    an output line, a step that does not match): answered with a ``usage`` error line in
    the file, which a corrected output line follows. ``line`` is the number of the line
    that could not be used, when the output was a line of the file."""

    retry = True

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class _Line:
    number: int
    data: Any
    problem: str | None

    @property
    def kind(self) -> Any:
        return self.data.get("type") if isinstance(self.data, dict) else None

    @property
    def is_result(self) -> bool:
        """Whether skillkit could have written it: a result's type, and the same kind."""
        return self.kind in RESULT_TYPES and self.data.get("kind") == self.kind


def _split(data: bytes, first_number: int, offset: int) -> list[_Line]:
    """Parse the lines of ``data[offset:]``; a last line without a newline counts too (an
    agent may append its output line with ``printf``)."""
    chunk = data[offset:]
    raw_lines = chunk.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    lines = []
    for index, raw in enumerate(raw_lines):
        number = first_number + index
        if not raw.strip():
            lines.append(_Line(number, None, "blank"))
            continue
        try:
            value = jsontext.loads(raw.decode("utf-8"), limit=jsontext.WRAPPED_NESTING)
        except jsontext.TooDeep as error:
            lines.append(_Line(number, None, str(error)))
            continue
        except (UnicodeDecodeError, ValueError) as error:
            lines.append(_Line(number, None, f"not valid JSON ({error})"))
            continue
        if not isinstance(value, dict):
            lines.append(_Line(number, None, "not a JSON object"))
            continue
        lines.append(_Line(number, value, None))
    return lines


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


# -- loading a run ------------------------------------------------------------------------


@dataclass
class _Loaded:
    header: Header
    engine: Engine
    tail: list[_Line]
    """Lines after the last one skillkit wrote: the agent's pending output."""
    digest: Any
    """``content_digest`` of the whole file as read (extended with what this call appends)."""


def _load(definition: SkillDefinition, session_id: str, data: bytes, sidecar: Path) -> _Loaded:
    end = data.find(b"\n")
    first = _split(data[: end if end >= 0 else len(data)], 1, 0)
    header = _parse_header(first[0] if first else None, session_id, definition)
    cached = _read_cache(sidecar, session_id)
    digest = content_digest()
    if cached is not None:
        size, lines, recorded = cached["bytes"], cached["lines"], cached["blake2b"]
        if size > len(data):
            raise SessionError(
                f"session '{session_id}' is truncated: skillkit left it at {size} bytes "
                f"({lines} lines), it now has {len(data)}; the file must only be appended to"
            )
        digest.update(data[:size])
        if digest.hexdigest() != recorded:
            raise SessionError(
                f"session '{session_id}' was modified: its first {lines} lines no longer match "
                "what skillkit wrote; the file must only be appended to (start a new session)"
            )
        tail = _split(data, lines + 1, size)
        engine = _engine(definition, header)
        try:
            engine.restore(cached["engine"])
        except (SkillkitError, LookupError, TypeError, ValueError, AttributeError):
            pass  # the cache does not fit this skill (edited between calls?): replay below
        else:
            digest.update(data[size:])
            if any(_skillkits(line) for line in tail):
                rebuilt = _rebuilt_after_a_crash(definition, header, data, digest)
                if rebuilt is not None:
                    return rebuilt
                tail = [_not_skillkits(line) for line in tail]
            return _Loaded(header, engine, tail, digest)
    digest = content_digest(data)
    engine, tail = _rebuild(definition, header, _split(data, 1, 0))
    return _Loaded(header, engine, tail, digest)


def _skillkits(line: _Line) -> bool:
    """Whether ``line`` has the shape of a line only skillkit writes (a result, a header)."""
    return line.is_result or line.kind == "header"


def _not_skillkits(line: _Line) -> _Line:
    """``line`` as the agent's: a line shaped like skillkit's cannot be used."""
    if not _skillkits(line):
        return line
    return _Line(
        line.number,
        None,
        f"shaped like a {line.kind} line, which only skillkit writes (the agent appends "
        '"output" lines)',
    )


def _rebuilt_after_a_crash(
    definition: SkillDefinition, header: Header, data: bytes, digest: Any
) -> _Loaded | None:
    """The run rebuilt from the whole file, when a result line after the snapshot is
    skillkit's own (a call that appended it and stopped before writing the snapshot);
    ``None`` when the file does not rebuild, so those lines are the agent's.

    Lines the agent appends can have any shape. One shaped like a result that skillkit did
    not write must not break the session for good: the snapshot stays the truth, and the
    line is reported like any other line that cannot be used.
    """
    try:
        engine, tail = _rebuild(definition, header, _split(data, 1, 0))
    except SessionError:
        return None
    return _Loaded(header, engine, tail, digest)


def _engine(definition: SkillDefinition, header: Header) -> Engine:
    try:
        return open_engine(definition, header.handshake(), header.params, header.subskill)
    except ParamsError as error:
        raise SessionError(
            f"session '{header.session_id}': its params no longer fit the skill: {error}"
        ) from None


def _rebuild(
    definition: SkillDefinition, header: Header, lines: list[_Line]
) -> tuple[Engine, list[_Line]]:
    """Rebuild the run from the file alone, verifying it: every result line must be what
    the skill produces for the header and the outputs before it (header params included).

    A skill that runs no author side effects (no actions, no observers) is run again from
    the start, one submission per result line, and each result compared with its line.
    A skill with actions or observers is replayed from the recorded history instead (an
    action never runs twice), so its lines are checked less closely: the history must
    replay, and end where the file says. Either way the cost is linear in the file.
    """
    sid = header.session_id
    lines = _answered_junk(lines)
    results = [line for line in lines[1:] if line.is_result]
    if not results:
        raise SessionError(f"session '{sid}' has no result line after its header: truncated?")
    if needs_event_loop(definition):
        engine = _replayed(definition, header, results)
    else:
        engine = _rerun(definition, header, lines, results)
    tail = [line for line in lines if line.number > results[-1].number]
    return engine, tail


def _answered_junk(lines: list[_Line]) -> list[_Line]:
    """``lines`` with every line skillkit answered as unusable marked so (a line shaped
    like a result that the agent appended is then no result when the file is rebuilt)."""
    answered: set[int] = set()
    # Newest first: a line that was itself answered as unusable (an agent's line shaped
    # like such an answer) says nothing about the lines before it.
    for line in reversed(lines):
        if line.number in answered or not line.is_result:
            continue
        number = line.data.get(UNUSABLE_LINE_KEY)
        if line.kind == "error" and isinstance(number, int) and number < line.number:
            answered.add(number)
    return [_not_skillkits(line) if line.number in answered else line for line in lines]


def _edited(sid: str, number: int, what: str) -> SessionError:
    return SessionError(
        f"session '{sid}', line {number}: {what}; the file was damaged or edited (or the "
        "skill changed since the session started): start a new session"
    )


def _plain(value: Any) -> Any:
    """``value`` as it reads back from a session line (JSON round trip)."""
    return json.loads(json_line(value))


def _check_params(engine: Engine, header: Header) -> None:
    if _plain(engine.params_data) != header.params:
        raise _edited(
            header.session_id,
            1,
            f"the header's params {json_line(header.params)} are not the params the skill "
            f"validated from them ({json_line(engine.params_data)})",
        )


def _rerun(
    definition: SkillDefinition, header: Header, lines: list[_Line], results: list[_Line]
) -> Engine:
    """Run the session again from its header and submitted outputs, comparing each result
    with its line. Only for skills without side effects (see :func:`_rebuild`)."""
    sid = header.session_id
    engine = _engine(definition, header)
    _check_params(engine, header)
    last: _Line | None = None  # the newest written line since the previous result
    for line in lines[1:]:
        if not line.is_result:
            if line.problem != "blank":
                last = line
            continue
        if line.kind == "error" and line.data.get("error") == "usage":
            last = None  # an answer to an output that could not be used: nothing ran
            continue
        if line is results[0]:
            result = run_sync(engine.start(), event_loop=False)
        else:
            data = last.data if last is not None and last.kind == "output" else None
            if not isinstance(data, dict) or not isinstance(data.get("step"), str):
                raise _edited(sid, line.number, "no output line comes right before this result")
            if "output" not in data:
                raise _edited(sid, last.number, 'the output line has no "output"')
            result = run_sync(engine.advance(data["step"], data["output"]), event_loop=False)
        wire = result.to_wire()
        expected = _plain({"type": wire["kind"], **wire})
        if line.data != expected:
            keys = sorted(
                {*line.data, *expected} - {k for k in expected if line.data.get(k) == expected[k]}
            )
            raise _edited(
                sid,
                line.number,
                "this result is not what the skill produces there (it differs in "
                + ", ".join(f"'{key}'" for key in keys)
                + ")",
            )
        last = None
    return engine


def _replayed(definition: SkillDefinition, header: Header, results: list[_Line]) -> Engine:
    """Replay the result lines' history; check the run ends where the file says."""
    sid = header.session_id
    history: list[Any] = []
    for line in results:
        if line.kind == "error":
            continue  # a refused output changed nothing
        if "completed" in line.data:
            history.append(line.data["completed"])
        auto = line.data.get("autoAdvanced", [])
        if not isinstance(auto, list):
            raise SessionError(f"session '{sid}', line {line.number}: autoAdvanced is not a list")
        history.extend(auto)
    engine = _engine(definition, header)
    _check_params(engine, header)
    try:
        run_sync(engine.replay(history), event_loop=needs_event_loop(definition))
    except HistoryError as error:
        raise SessionError(
            f"session '{sid}' does not replay; the file was damaged or edited: {error}"
        ) from None
    last = next((line for line in reversed(results) if line.kind != "error"), results[-1])
    expected = last.data.get("step") if last.kind == "prompt" else None
    if (last.kind == "done") != bool(engine.finished) or (
        last.kind == "prompt" and engine.current != expected
    ):
        where = "finished" if engine.finished else f"at step {engine.current!r}"
        raise SessionError(
            f"session '{sid}' is inconsistent: line {last.number} says "
            f"{'done' if last.kind == 'done' else f'step {expected!r}'}, but its history "
            f"replays to a run {where}; the file was damaged or edited"
        )
    return engine


def _read_cache(path: Path, session_id: str) -> dict[str, Any] | None:
    """The sidecar's content when it is ours and authentic, ``None`` when there is none
    to use (the run is then rebuilt from the file, which is verified on the way).

    The first line of a sidecar is a tag of the rest under the folder's snapshot key
    (``sidecar_tag``). A tag that does not match (the engine state edited, to skip a step)
    is a ``SessionError``; the session file is left as it is. A tag of an earlier build's
    format is not checked: the run is rebuilt from the file, as without a sidecar.
    """
    from skillkit_core.fast_hash import compare_digest

    raw = read_sidecar(path)
    if raw is None:
        return None
    tag, _, payload = raw.partition(b"\n")
    if EARLIER_SIDECAR_TAG.fullmatch(tag):
        return None
    key, created = snapshot_key(path.parent)
    if not compare_digest(tag, sidecar_tag(key, payload)):
        if created:
            return None  # the key is new: nothing could have been signed with it
        raise SessionError(
            f"session '{session_id}': its snapshot {path.name} was modified (its tag does not "
            "match); only skillkit writes it. Start a new session"
        )
    try:
        cached = json.loads(payload)
    except ValueError:
        return None
    ok = (
        isinstance(cached, dict)
        and cached.get("v") == SIDECAR_VERSION
        and cached.get("sessionId") == session_id
        and isinstance(cached.get("bytes"), int)
        and isinstance(cached.get("lines"), int)
        and isinstance(cached.get("blake2b"), str)
        and "engine" in cached
    )
    return cached if ok else None


def _write_cache(
    path: Path, session_id: str, engine: Engine, size: int, lines: int, digest: str
) -> str | None:
    """Write the sidecar, tagged; a failure only costs speed later, so it becomes a note."""
    cache = {
        "v": SIDECAR_VERSION,
        "sessionId": session_id,
        "bytes": size,
        "lines": lines,
        "blake2b": digest,
        "engine": engine.snapshot(),
    }
    return write_signed_sidecar(path, json_line(cache).encode("utf-8"))


# -- start and advance --------------------------------------------------------------------


def start(
    definition: SkillDefinition | ReferenceDefinition, inv: Invocation, handshake: Handshake
) -> Reply:
    """Start a run in a new session file; print the ``SessionPointer``."""
    workflow = workflow_of(definition)
    folder = session_dir(inv.session_dir, create=True)
    params = None if inv.params is MISSING else inv.params
    engine = open_engine(workflow, handshake, params, inv.subskill)
    result = run_sync(engine.start(), event_loop=needs_event_loop(workflow))
    wire = result.to_wire()
    if wire["kind"] == "error":
        reply = result_reply(wire)
        return Reply(reply.stdout, 1, reply.notes)
    session_id = new_session_id()
    header = Header(
        session_id=session_id,
        skill=workflow.name,
        host=handshake.host,
        tools=handshake.tools_available if inv.given("tools") else None,
        is_subagent=handshake.is_subagent,
        params=engine.params_data,
        output_mode=inv.output_mode or "file",
        subskill=inv.subskill,
    )
    body = (
        json_line(header.to_json(_now())) + "\n" + json_line({"type": wire["kind"], **wire}) + "\n"
    ).encode("utf-8")
    path, sidecar = session_path(folder, session_id), sidecar_path(folder, session_id)
    create_file(path, body)
    note = _write_cache(sidecar, session_id, engine, len(body), 2, content_digest(body).hexdigest())
    pointer = {"sessionId": session_id, "file": str(path), "line": 2}
    # A pointer that cannot be printed leaves a session nobody knows of: it goes too.
    return Reply(
        json_line(pointer) + "\n",
        0,
        (note,) if note else (),
        undo=lambda: remove_session(path, sidecar),
    )


def advance(definition: SkillDefinition | ReferenceDefinition, inv: Invocation) -> Reply:
    """Submit the newest output line (or ``--output``); print the new result's line number."""
    workflow = workflow_of(definition)
    session_id = checked_session_id(inv.session or "")
    folder = session_dir(inv.session_dir, create=False)
    path = session_path(folder, session_id)
    notes = [
        f"note: ignoring --{flag}: a session keeps the params, host and tools of its start"
        for flag in HEADER_ONLY_FLAGS
        if inv.given(flag)
    ]
    with LockedFile(path, session_id) as file:
        data = file.read()
        loaded = _load(workflow, session_id, data, sidecar_path(folder, session_id))
        engine = loaded.engine
        new_lines: list[dict[str, Any]] = []
        try:
            step, output, own_line = _submission(inv, loaded, path, notes)
        except UnusableOutput as error:
            wire = error_wire("usage", error.message, engine.current, retry=True)
            if error.line is not None:
                wire[UNUSABLE_LINE_KEY] = error.line
        else:
            result = run_sync(engine.advance(step, output), event_loop=needs_event_loop(workflow))
            wire = result.to_wire()
            if own_line:
                new_lines.append({"type": "output", "step": step, "output": output})
                notes.extend(_superseded_by_flag(loaded.tail, _line_count(data) + 1))
        # Every answer to the agent's output, error or not, is a line of the file.
        new_lines.append({"type": wire["kind"], **wire})
        text = "".join(json_line(line) + "\n" for line in new_lines)
        appended = (b"\n" if data and not data.endswith(b"\n") else b"") + text.encode("utf-8")
        file.append(appended)
        total_lines = _line_count(data) + len(new_lines)
        loaded.digest.update(appended)
        note = _write_cache(
            sidecar_path(folder, session_id),
            session_id,
            engine,
            len(data) + len(appended),
            total_lines,
            loaded.digest.hexdigest(),
        )
    if note:
        notes.append(note)
    return Reply(f"{total_lines}\n", 0, tuple(notes))


def cleanup(definition: SkillDefinition | ReferenceDefinition, inv: Invocation) -> Reply:
    """Remove one session's files (``--session ID``), or (``--all``) those of every session
    of this skill whose run has finished. Idempotent: a session already gone is no error.
    Only files named like session files inside the session folder are touched."""
    workflow = workflow_of(definition)
    nothing = Reply(json_line({"removed": [], "files": []}) + "\n", 0)
    try:
        folder = session_dir(inv.session_dir, create=False)
    except SessionError:
        if not os.path.lexists(session_dir_path(inv.session_dir)):
            return nothing  # no session was ever started there: nothing to clean
        raise
    if inv.session is not None:
        session_id = checked_session_id(inv.session)
        candidates = [session_id] if session_path(folder, session_id).exists() else []
    else:
        candidates = sorted(session_ids(folder))
    removed: list[str] = []
    files: list[str] = []
    for session_id in candidates:
        path = session_path(folder, session_id)
        try:
            file = LockedFile(path, session_id)
        except SessionError:
            if inv.session is not None and os.path.lexists(path):
                raise  # a file that is not a private regular file of ours: say so
            continue  # gone meanwhile, or (with --all) not ours to judge
        with file:
            if inv.all and not _finished_run_of(workflow, file.read()):
                continue
            for target in (path, sidecar_path(folder, session_id)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target)
                    files.append(str(target))
            removed.append(session_id)
    return Reply(json_line({"removed": removed, "files": files}) + "\n", 0)


def _finished_run_of(definition: SkillDefinition, data: bytes) -> bool:
    """Whether a session file belongs to ``definition`` and its last result is ``done``."""
    lines = _split(data, 1, 0)
    header = lines[0].data if lines and lines[0].kind == "header" else None
    if header is None or header.get("skill") != definition.name:
        return False
    results = [line for line in _answered_junk(lines)[1:] if line.is_result]
    return bool(results) and results[-1].kind == "done"


def _submission(
    inv: Invocation, loaded: _Loaded, path: Path, notes: list[str]
) -> tuple[Any, Any, bool]:
    """``(step, output, whether the CLI writes the output line itself)``."""
    header = loaded.header
    if inv.subskill is not None and header.subskill not in (None, inv.subskill):
        raise UsageError(
            f"session '{header.session_id}' was started on sub-skill '{header.subskill}', not "
            f"'{inv.subskill}'"
        )
    if inv.given("output-mode") and inv.output_mode != header.output_mode:
        raise UsageError(
            f"session '{header.session_id}' uses output mode {header.output_mode} (fixed at start)"
        )
    if loaded.engine.finished:
        raise SkillkitError(
            f"session '{header.session_id}' has finished (its done result is in {path}); "
            "start a new session",
            code="state",
        )
    if inv.output_problem is not None:
        raise UnusableOutput(inv.output_problem)
    if inv.given("output"):
        return submitted_step(inv), inv.output, True
    if header.output_mode == "flag":
        raise UsageError(f"session '{header.session_id}' is in flag mode: pass --step and --output")
    pending = _pending_output(loaded.tail, notes)
    current = loaded.engine.current
    if pending is None:
        raise UnusableOutput(
            "nothing to submit: append your output as one line, "
            f'{{"type":"output","step":"{current or "STEP"}","output":{{...}}}}, to {path}, '
            "then call advance again (or pass --step and --output)"
        )
    step, output = pending
    if inv.step is not None and submitted_step(inv) != step:
        raise UnusableOutput(
            f"--step {inv.step} does not match the newest output line, which is for step '{step}'"
        )
    return step, output, False


def _pending_output(tail: list[_Line], notes: list[str]) -> tuple[Any, Any] | None:
    """The newest output line after the last result; older junk lines are skipped."""
    written = [line for line in tail if line.problem != "blank"]
    if not written:
        return None
    newest = written[-1]
    if len(written) > 1:
        notes.append(
            _superseded_note([line.number for line in written[:-1]], f"line {newest.number}")
        )
    if newest.problem is not None:
        raise UnusableOutput(
            f"line {newest.number} of the session file is {newest.problem}; append the output "
            'as one JSON object on one line: {"type":"output","step":...,"output":...}',
            line=newest.number,
        )
    data = newest.data
    if data.get("type") != "output":
        raise UnusableOutput(
            f"line {newest.number} of the session file has type {data.get('type')!r}; the agent "
            'appends lines of type "output"',
            line=newest.number,
        )
    if not isinstance(data.get("step"), str):
        raise UnusableOutput(
            f'the output line {newest.number} has no "step" string', line=newest.number
        )
    if "output" not in data:
        raise UnusableOutput(f'the output line {newest.number} has no "output"', line=newest.number)
    return data["step"], data["output"]


def _superseded_by_flag(tail: list[_Line], flag_line: int) -> list[str]:
    """The note for output lines the agent wrote that ``--output`` (written as line
    ``flag_line``) supersedes, if there are any."""
    written = [line.number for line in tail if line.problem != "blank"]
    return [_superseded_note(written, f"--output, written as line {flag_line}")] if written else []


def _superseded_note(numbers: list[int], newest: str) -> str:
    """One note for every line ``newest`` supersedes, however many there are."""
    if len(numbers) == 1:
        return f"note: line {numbers[0]} is superseded by {newest}; ignoring it"
    shown = ", ".join(str(number) for number in numbers[:_SUPERSEDED_SHOWN])
    more = len(numbers) - _SUPERSEDED_SHOWN
    listing = f"{shown} and {more:,} more" if more > 0 else shown
    return (
        f"note: {len(numbers):,} lines written since the last result are superseded by "
        f"{newest} (lines {listing}); ignoring them"
    )


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
