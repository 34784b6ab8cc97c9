"""Skills as symbols in markdown: go to a skill from ``/name`` or from its name in another
skill, find every place naming it, and rename it (its ``name:``, its folder, and every
place naming it) in one workspace edit.

Where a text names a skill is the core's :func:`find_skill_names`; which skills exist is
the workspace's :mod:`skill_lsp.skill_index`. The name rules a new name must follow are
the core's (:func:`skillkit_core.manifest.spec.name_problems`).
"""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any, NamedTuple

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from skill_lsp.index import Snapshot
from skill_lsp.rpc import RequestFailed
from skill_lsp.skill_index import IndexedFile, IndexView, current_view
from skill_lsp.workspace import inside_roots
from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.manifest.skill_names import SLASH, find_misspelt_invocations, find_skill_names

DEFINITION = "definition"
# The editor's own finding (core's EDITOR_RULE_IDS): a /name invocation that names no
# skill of the workspace but is a near miss of one.
MISSPELT_RULE = "unknown-skill-invocation"
# "Did you mean" findings reported per document (the first ones in the text).
MAX_MISSPELT = 100
# A "/" starting a word, and the part of a skill name typed after it.
_SLASH_TYPED = re.compile(r"(?:^|(?<=[\s`'\"(\[{<*_>]))/(?P<typed>[\w-]*)$")


class Occurrence(NamedTuple):
    """One place naming a skill: the file, the name's range, and how it names it
    (``definition`` for the ``name:`` value, else the core's slash/path/word)."""

    file: IndexedFile
    range: SourceRange
    kind: str


def _target_at(
    view: IndexView, snapshot: Snapshot, line: int, column: int
) -> tuple[str, SourceRange] | None:
    """The skill name under the cursor and its range: a ``name:`` value, ``/name``, a
    path through a skill folder or a plain mention."""
    from skillkit_core.source.query import contains

    for skill in view.skills:
        own = skill.skill_md.path == snapshot.path and skill.name_range is not None
        if own and contains(skill.name_range, line, column):
            return skill.name, skill.name_range
    text = snapshot.lines[line] if 0 <= line < len(snapshot.lines) else ""
    for mention in find_skill_names(text, view.names):
        where = mention.range
        first = where.column - 1 if mention.kind == SLASH else where.column  # the "/" too
        if first <= column <= where.end_column:
            return mention.name, SourceRange(line, where.column, line, where.end_column)
    return None


def occurrences(view: IndexView, name: str) -> list[Occurrence]:
    """Every place of the workspace naming skill ``name``, declarations first."""
    declared = {
        (skill.skill_md.path, skill.name_range)
        for skill in view.named(name)
        if skill.name_range is not None
    }
    found: list[Occurrence] = [
        Occurrence(skill.skill_md, skill.name_range, DEFINITION)
        for skill in view.named(name)
        if skill.name_range is not None
    ]
    for item in view.files:
        if name not in item.text:
            continue
        for mention in find_skill_names(item.text, (name,)):
            if (item.path, mention.range) not in declared:
                found.append(Occurrence(item, mention.range, mention.kind))
    return found


def _location(ls: Any, item: IndexedFile, where: SourceRange) -> types.Location:
    return types.Location(uri=item.uri, range=item.line_map(ls.documents.codec).range(where))


async def definition(
    ls: Any, snapshot: Snapshot, line: int, column: int
) -> list[types.Location] | None:
    """The SKILL.md (its ``name:`` value, else its first line) of the skill named here."""
    view = await current_view(ls)
    target = _target_at(view, snapshot, line, column)
    if target is None:
        return None
    found = []
    for skill in view.named(target[0]):
        where = skill.name_range or SourceRange(0, 0, 0, 0)
        found.append(_location(ls, skill.skill_md, where))
    return found or None


async def references(
    ls: Any, snapshot: Snapshot, line: int, column: int, include_declaration: bool
) -> list[types.Location] | None:
    """Every place naming the skill named here (its ``name:`` when asked for)."""
    view = await current_view(ls)
    target = _target_at(view, snapshot, line, column)
    if target is None:
        return None
    return [
        _location(ls, found.file, found.range)
        for found in occurrences(view, target[0])
        if include_declaration or found.kind != DEFINITION
    ]


async def prepare_rename(
    ls: Any, snapshot: Snapshot, line: int, column: int
) -> types.PrepareRenamePlaceholder | None:
    """The name under the cursor, when it names a known skill."""
    view = await current_view(ls)
    target = _target_at(view, snapshot, line, column)
    if target is None:
        return None
    return types.PrepareRenamePlaceholder(
        range=snapshot.map.range(target[1]), placeholder=target[0]
    )


def _can_rename_files(ls: Any) -> bool:
    operations = get_capability(
        ls.client_capabilities, "workspace.workspace_edit.resource_operations", None
    )
    return bool(operations) and types.ResourceOperationKind.Rename in operations


def rename_problem(view: IndexView, name: str, new_name: str) -> str | None:
    """Why skill ``name`` cannot be renamed ``new_name`` (None when it can)."""
    from skillkit_core.manifest.spec import name_problems, normalized

    problems = name_problems(new_name)
    if new_name != new_name.strip():
        problems.insert(0, "name must not have surrounding spaces")
    elif new_name != normalized(new_name):  # full-width letters, a combining accent
        problems.insert(0, f"name is not in Unicode NFKC form; write '{normalized(new_name)}'")
    if problems:
        return f"'{new_name}' is not a valid skill name: " + "; ".join(problems)
    skills = view.named(name)
    if len(skills) > 1:
        folders = ", ".join(skill.folder for skill in skills)
        return f"{len(skills)} skills are named '{name}' ({folders}); rename one by hand first"
    taken = [skill for skill in view.named(new_name) if skill not in skills]
    if taken:
        return f"a skill named '{new_name}' already exists: {taken[0].skill_md.path}"
    for skill in skills:
        destination = os.path.join(os.path.dirname(skill.folder), new_name)
        if os.path.basename(skill.folder) != new_name and os.path.lexists(destination):
            return f"the folder {destination} already exists"
    return None


async def rename(
    ls: Any, snapshot: Snapshot, line: int, column: int, new_name: str
) -> types.WorkspaceEdit:
    """The edit renaming the skill named here: every place naming it, then its folder.

    Refused (an error, nothing changed) when the client cannot rename files (the folder
    would no longer match the name), when ``new_name`` breaks the specification's name
    rules or is taken, or when the folder's new name exists already."""
    view = await current_view(ls)
    target = _target_at(view, snapshot, line, column)
    if target is None:
        raise RequestFailed("there is no skill name here to rename")
    name = target[0]
    if not _can_rename_files(ls):
        raise RequestFailed(
            "renaming a skill renames its folder, and this editor does not apply file "
            "renames in workspace edits (workspace.workspaceEdit.resourceOperations lacks "
            "'rename'); rename the folder and the 'name:' key together by hand"
        )
    problem = rename_problem(view, name, new_name)
    if problem:
        raise JsonRpcInvalidParams(problem)
    roots = [os.path.realpath(root) for root in ls.roots]
    for skill in view.named(name):
        moved = os.path.basename(skill.folder) != new_name
        if roots and moved and not inside_roots(skill.folder, roots):
            raise RequestFailed(
                f"the folder of skill '{name}' ({skill.folder}) is a workspace folder or lies "
                "outside the workspace; rename it by hand"
            )
    by_file: dict[str, tuple[IndexedFile, list[types.TextEdit]]] = {}
    codec = ls.documents.codec
    for found in occurrences(view, name):
        item = found.file
        if roots and not inside_roots(item.path, roots):
            continue  # a document open from outside the workspace is not the workspace's
        entry = by_file.setdefault(item.path, (item, []))
        entry[1].append(
            types.TextEdit(range=item.line_map(codec).range(found.range), new_text=new_name)
        )
    changes: list[Any] = [
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=item.uri, version=item.version
            ),
            edits=edits,
        )
        for item, edits in by_file.values()
    ]
    for skill in view.named(name):
        if os.path.basename(skill.folder) == new_name:
            continue
        destination = os.path.join(os.path.dirname(skill.folder), new_name)
        changes.append(
            types.RenameFile(
                old_uri=from_fs_path(skill.folder) or skill.folder,
                new_uri=from_fs_path(destination) or destination,
                options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
            )
        )
    return types.WorkspaceEdit(document_changes=changes)


def slash_typed(snapshot: Snapshot, line: int, column: int) -> SourceRange | None:
    """The range of a ``/name`` being typed at the cursor (its ``/`` included), outside a
    SKILL.md's frontmatter; None elsewhere."""
    if not 0 <= line < len(snapshot.lines):
        return None
    if snapshot.path and os.path.basename(snapshot.path).lower() == "skill.md":
        parsed = snapshot.skill_md
        if parsed.has_frontmatter and line < parsed.body_start_line:
            return None
    text = snapshot.lines[line]
    typed = _SLASH_TYPED.search(text[:column])
    if typed is None or text[: typed.start()].endswith("]("):
        return None  # not a "/" starting a word, or a link target (a path)
    end = column
    while end < len(text) and (text[end].isalnum() or text[end] in "-_"):
        end += 1
    return SourceRange(line, typed.start(), line, end)


async def slash_items(
    ls: Any, snapshot: Snapshot, line: int, column: int
) -> list[types.CompletionItem] | None:
    """The workspace's skills after a ``/`` that starts a word (None: no ``/`` here)."""
    where = slash_typed(snapshot, line, column)
    if where is None:
        return None
    view = await current_view(ls)
    edit_range = snapshot.map.range(where)
    items = []
    for order, skill in enumerate(sorted(view.skills, key=lambda entry: entry.name)):
        relative = os.path.join(os.path.basename(skill.folder), "SKILL.md")
        description = " ".join(skill.description.split())
        items.append(
            types.CompletionItem(
                label=f"/{skill.name}",
                kind=types.CompletionItemKind.Module,
                detail=description[:80] + ("…" if len(description) > 80 else "") or relative,
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value=f"**skill `{skill.name}`** · `{relative}`\n\n{description}".rstrip(),
                ),
                sort_text=f"{order:04d}",
                filter_text=f"/{skill.name}",
                text_edit=types.TextEdit(range=edit_range, new_text=f"/{skill.name}"),
            )
        )
    return items


async def highlights(
    ls: Any, snapshot: Snapshot, line: int, column: int
) -> list[types.DocumentHighlight] | None:
    """The places of this document naming the skill under the cursor (its ``name:``
    as the written one)."""
    view = await current_view(ls)
    target = _target_at(view, snapshot, line, column)
    if target is None:
        return None
    name = target[0]
    declared = {
        skill.name_range
        for skill in view.named(name)
        if skill.skill_md.path == snapshot.path and skill.name_range is not None
    }
    places = {mention.range for mention in find_skill_names(snapshot.text, (name,))} | declared
    return [
        types.DocumentHighlight(
            range=snapshot.map.range(where),
            kind=types.DocumentHighlightKind.Write
            if where in declared
            else types.DocumentHighlightKind.Read,
        )
        for where in sorted(places)
    ]


async def skill_hover(ls: Any, snapshot: Snapshot, line: int, column: int) -> str | None:
    """A skill named under the cursor: its SKILL.md, description and how often the
    workspace names it."""
    view = await current_view(ls)
    target = _target_at(view, snapshot, line, column)
    if target is None:
        return None
    name = target[0]
    parts = []
    for skill in view.named(name):
        relative = os.path.join(os.path.basename(skill.folder), "SKILL.md")
        parts.append(f"**skill `{name}`** · `{relative}`")
        if skill.description:
            parts.append(" ".join(skill.description.split()))
    count = sum(1 for found in occurrences(view, name) if found.kind != DEFINITION)
    parts.append(f"Named in {count} place{'s' if count != 1 else ''} of the workspace.")
    return "\n\n".join(parts)


async def misspelt_invocations(server: Any, snapshot: Snapshot) -> list[LintDiagnostic]:
    """A "did you mean" finding for every ``/name`` in the document that names no skill of
    the workspace but nearly names one (the host would find no skill to run), with the
    corrected name as a suggested fix (a guess: offered, never preferred); the first
    :data:`MAX_MISSPELT` of them."""
    if "/" not in snapshot.text:
        return []
    view = await current_view(server)
    loop = asyncio.get_running_loop()
    misses = await loop.run_in_executor(None, find_misspelt_invocations, snapshot.text, view.names)
    found = []
    # The same typo pasted 40,000 times would be 40,000 findings to convert and send.
    for miss in misses[:MAX_MISSPELT]:
        change = Fix(f"Change to '/{miss.meant}'", (TextEdit(miss.range, miss.meant),))
        message = (
            f"'/{miss.written}' names no skill of the workspace; did you mean '/{miss.meant}'?"
        )
        found.append(
            LintDiagnostic(
                MISSPELT_RULE,
                "info",
                message,
                file=snapshot.path,
                range=miss.range,
                suggestions=(change,),
            )
        )
    return found
