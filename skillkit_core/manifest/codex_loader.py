"""Whether Codex's skill loader takes a SKILL.md, and why not: its own reading, not the spec's.

Codex reads a SKILL.md its own way, stricter than the specification in places and more
lenient in others. The facts below are from openai/codex, ``codex-rs/core-skills/src/
loader.rs`` at e51b9d1d (``extract_frontmatter``, ``parse_skill_frontmatter_metadata_inner``,
``repair_frontmatter_scalar_fields``, ``validate_len``; read 2026-11-29):

- The file is read as UTF-8 text; bytes that are not UTF-8 fail the read.
- The first line (split at ``\\n``, ``\\r\\n``) must be ``---`` once trimmed of Unicode
  white space, which a byte-order mark is not; the next line that trims to ``---``
  closes the frontmatter, and at least one line must lie between.
- The frontmatter is deserialised by serde_yaml into a structure of ``name``,
  ``description`` (optional strings) and ``metadata`` (a mapping whose
  ``short-description`` is an optional string): a repeated one of these keys, a
  ``metadata`` that is no mapping, a name that is no scalar or a key (at the top or in
  ``metadata``) that is no scalar fails; other keys are ignored. When that fails, plain
  values holding ``": "`` (and flow-like values that do not parse) on ``key: value``
  lines are quoted and it is tried once more (``description: Deploy to AWS: ECS`` loads,
  and so does ``description: {a: b}``, as text).
- ``name`` (runs of white space made one space) may be missing: the folder's name is used.
  It must have at most 64 characters; its format is not checked, nor does it have to
  match the folder.
- ``description`` (made one line the same way) must not be empty. Its length is not
  checked any more: what the model sees is cut at 1,024 characters
  (``codex-rs/core-skills/src/model_visible.rs``, ``truncate_skill_description``).

Checked against the real Codex (codex-cli 0.171.0, ``codex app-server``'s
``skills/list``, 2026-11-29), which also showed what :func:`codex_skips` says: the
scan takes only a regular file named exactly ``SKILL.md`` (no symlink) and passes over
folders whose names start with a dot.
"""

from __future__ import annotations

from typing import Any

from skillkit_core.manifest.parse import ParsedSkillMd

NAME_MAX = 64
#: What Codex shows the model of a description (model_visible.rs): 1,021 characters and
#: "..." beyond this.
DESCRIPTION_SHOWN_MAX = 1024

# What Rust's str::trim takes off: Unicode White_Space. A byte-order mark is not in it
# (nor in Python's str.strip, which also takes off U+001C..U+001F: hence this set).
_WHITE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_STRUCT_FIELDS = ("name", "description", "metadata")
READS = _STRUCT_FIELDS
"""The frontmatter keys Codex reads; it ignores every other."""
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})


def codex_skips(folder_name: str, manifest_name: str, manifest_is_link: bool) -> list[str]:
    """Why Codex's scan of a skills folder would pass over this skill without a word."""
    if manifest_name != "SKILL.md":
        return [f"Codex reads only a file named exactly SKILL.md, not {manifest_name}"]
    if manifest_is_link:
        return ["Codex passes over a SKILL.md that is a symbolic link"]
    if folder_name.startswith("."):
        return ["Codex passes over folders whose names start with a dot"]
    return []


def codex_refusals(parsed: ParsedSkillMd, folder_name: str) -> list[str]:
    """Why Codex would not load this SKILL.md (empty when it loads it)."""
    if any(problem.code in ("not-utf8", "unreadable") for problem in parsed.problems):
        return ["Codex reads SKILL.md as UTF-8 text, and this file is not"]
    if parsed.had_bom:
        return [
            "Codex finds no frontmatter behind a byte-order mark (its first line must be "
            "'---' once trimmed, and a BOM is not white space)"
        ]
    frontmatter = _frontmatter(parsed.text)
    if frontmatter is None:
        return [
            "Codex finds no frontmatter: a first line of '---', then at least one line, "
            "then a line of '---' (each trimmed)"
        ]
    fields, problem = _fields(frontmatter)
    if problem is not None:
        return [f"Codex cannot read the frontmatter: {problem}"]
    return _field_refusals(fields, folder_name)


def _frontmatter(text: str) -> str | None:
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if not lines or lines[0].strip(_WHITE_SPACE) != "---":
        return None
    inside: list[str] = []
    for line in lines[1:]:
        if line.strip(_WHITE_SPACE) == "---":
            return "\n".join(inside) if inside else None
        inside.append(line)
    return None


def _fields(frontmatter: str) -> tuple[dict[str, Any], str | None]:
    """The three fields Codex reads, as YAML nodes; or why its deserialisation fails.

    Codex retries with colon values quoted after any failure of serde's deserialisation,
    a type error included (``description: {a: b}`` loads as the text ``{a: b}``; seen with
    codex-cli 0.171.0's ``skills/list``), and reports the first failure when both fail.
    """
    fields, problem = _deserialised(frontmatter)
    if problem is None:
        return fields, None
    repaired = _quoted_colon_values(frontmatter)
    if repaired != frontmatter:
        fields, second = _deserialised(repaired)
        if second is None:
            return fields, None
    return {}, problem


def _deserialised(frontmatter: str) -> tuple[dict[str, Any], str | None]:
    """What serde_yaml makes of the frontmatter as Codex's struct: its fields, or the
    first error (YAML syntax, a key that is no scalar, a repeated field, a wrong type)."""
    import yaml

    try:
        node = _compose(frontmatter)
    except yaml.YAMLError as error:
        return {}, _first_line(error)
    if node is None or _is_null(node):
        return {}, None
    if not isinstance(node, yaml.MappingNode):
        return {}, "it is not a mapping of keys to values"
    fields: dict[str, Any] = {}
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode):
            return {}, "a key is not a plain value (serde expects a field name)"
        if key.value not in _STRUCT_FIELDS:
            continue
        if key.value in fields:
            return {}, f"duplicate field `{key.value}`"
        fields[key.value] = value
    return fields, _type_problem(fields)


def _type_problem(fields: dict[str, Any]) -> str | None:
    import yaml

    for key in ("name", "description"):
        node = fields.get(key)
        if node is not None and not isinstance(node, yaml.ScalarNode):
            return f"`{key}` is not a string"
    metadata = fields.get("metadata")
    if metadata is None or _is_null(metadata):
        return None
    if not isinstance(metadata, yaml.MappingNode):
        return "`metadata` is not a mapping"
    return _short_description_problem(metadata)


def _compose(text: str) -> Any:
    import yaml

    return yaml.compose(text, Loader=yaml.SafeLoader)


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _field_refusals(fields: dict[str, Any], folder_name: str) -> list[str]:
    refusals = []
    shown_name = _one_line(_text(fields.get("name"))) or _one_line(folder_name) or "skill"
    if len(shown_name) > NAME_MAX:
        refusals.append(f"Codex refuses a name longer than {NAME_MAX} characters")
    if not _one_line(_text(fields.get("description"))):
        refusals.append("Codex refuses a skill without a description")
    return refusals


def _short_description_problem(metadata: Any) -> str | None:
    """``metadata.short-description``, the one metadata field Codex deserialises (an
    optional string): a key that is no scalar, a second one, or one that is no scalar
    fails the parse."""
    import yaml

    if any(not isinstance(key, yaml.ScalarNode) for key, _ in metadata.value):
        return "a key of `metadata` is not a plain value (serde expects a field name)"
    found = [value for key, value in metadata.value if key.value == _SHORT]
    if len(found) > 1:
        return f"duplicate field `{_SHORT}` in `metadata`"
    if found and not isinstance(found[0], yaml.ScalarNode):
        return f"`metadata.{_SHORT}` is not a string"
    return None


_SHORT = "short-description"


def _is_null(node: Any) -> bool:
    import yaml

    return isinstance(node, yaml.ScalarNode) and node.style is None and node.value in _NULLS


def _text(node: Any) -> str:
    """A scalar's text as serde_yaml gives a string field (``yes`` stays ``yes``)."""
    return "" if node is None or _is_null(node) else str(node.value)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _quoted_colon_values(frontmatter: str) -> str:
    """The frontmatter with each plain ``key: value`` whose value holds ``": "`` (or
    starts like a flow collection, an ``@`` or a backtick, and is no valid YAML) single-
    quoted, as Codex retries a frontmatter it could not parse; the lines of block scalars
    are left alone."""
    out = []
    block_indent: int | None = None
    for line in frontmatter.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None:
            if not line.strip() or indent > block_indent:
                out.append(line)
                continue
            block_indent = None
        quoted, opens_block = _quoted_value(line)
        if opens_block:
            block_indent = indent
        out.append(quoted)
    return "\n".join(out)


def _quoted_value(line: str) -> tuple[str, bool]:
    """``line`` with its value quoted when Codex would; whether it opens a block scalar."""
    key, colon, value = line.partition(":")
    if not colon or not key.strip() or (value and not value[0].isspace()):
        return line, False
    scalar = value.lstrip()
    lead = value[: len(value) - len(scalar)]
    comment = ""
    for index, char in enumerate(scalar):
        if char == "#" and (index == 0 or scalar[index - 1].isspace()):
            head = scalar[:index].rstrip()
            scalar, comment = head, scalar[len(head) :]
            break
    scalar = scalar.rstrip()
    if not scalar or scalar[0] in "'\"":
        return line, False
    if scalar[0] in "|>":
        return line, True
    separated = any(
        char == ":" and index + 1 < len(scalar) and scalar[index + 1].isspace()
        for index, char in enumerate(scalar)
    )
    if not separated and not (scalar[0] in "[{@`" and not _parses(scalar)):
        return line, False
    quoted = "'" + scalar.replace("'", "''") + "'"
    return f"{key}:{lead}{quoted}{comment}", False


def _parses(text: str) -> bool:
    import yaml

    try:
        _compose(text)
    except yaml.YAMLError:
        return False
    return True
