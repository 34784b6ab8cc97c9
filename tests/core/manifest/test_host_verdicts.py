"""Per-consumer verdicts: will this SKILL.md load, and why not."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillkit_core.lint.check_folder import check_folder
from skillkit_core.manifest.compat import CONSUMERS
from tests.core.lint.skillmd_support import make_skill, skill_md


def verdicts(root: Path) -> dict[str, tuple[bool, tuple[str, ...]]]:
    return {v.consumer.id: (v.loads, v.reasons) for v in check_folder(root).hosts}


def loads(root: Path) -> dict[str, bool]:
    return {host: result[0] for host, result in verdicts(root).items()}


def test_plain_spec_skill_loads_everywhere(tmp_path: Path) -> None:
    result = verdicts(make_skill(tmp_path))
    assert list(result) == [c.id for c in CONSUMERS]
    assert all(ok and not reasons for ok, reasons in result.values())


def test_claude_code_extension_keys_fail_only_strict_consumers(tmp_path: Path) -> None:
    text = skill_md(extra="when_to_use: PDFs\ncontext: fork\n")
    result = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))
    assert {host: ok for host, (ok, _) in result.items()} == {
        "spec": False,
        "claude-api": False,
        "claude-code": True,
        "vscode": True,
        "codex": True,
        "gemini-cli": True,
        "opencode": True,
    }
    assert result["spec"][1] == ("keys outside the specification: context, when_to_use",)


def test_flow_lists_fail_the_strict_yaml_parser_only(tmp_path: Path) -> None:
    text = skill_md(extra="metadata: {author: Ada}\n")
    result = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))
    assert result["spec"] == (
        False,
        ("the strict YAML parser refuses flow collections ({...} or [...])",),
    )
    assert all(ok for host, (ok, _) in result.items() if host != "spec")


def test_invalid_yaml_fails_everywhere_with_the_position_but_in_codex(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: Use when: PDFs\n---\n"
    result = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))
    # Codex quotes a plain value holding ": " and parses again (repair_frontmatter_scalar_
    # fields in its loader.rs, whose comment names "description: Build for AWS: ECS");
    # Gemini CLI falls back to reading name: and description: lines (skillLoader.ts);
    # Claude Code retries quoted, and loads the skill even when that fails; OpenCode
    # makes the value a block scalar and reads it again.
    assert result.pop("codex") == (True, ())
    assert result.pop("gemini-cli") == (True, ())
    assert result.pop("opencode") == (True, ())
    claude_code = result.pop("claude-code")
    assert claude_code[0] and claude_code[1][0].startswith("Claude Code still loads the skill")
    for ok, reasons in result.values():
        assert not ok
        assert reasons[0].startswith("line 3: invalid YAML")


def test_api_upload_rules_on_names_and_xml(tmp_path: Path) -> None:
    text = skill_md(name="claude-helper").replace("PDF files.", "<b>PDF</b> files.")
    result = verdicts(make_skill(tmp_path, "claude-helper", {"SKILL.md": text}))
    # The refusals are the findings of their own rules, so a plain check reports them too.
    loads, reasons = result["claude-api"]
    assert not loads
    assert [reason.rsplit(" [", 1)[-1] for reason in reasons] == [
        "reserved-name-word]",
        "frontmatter-xml-tag]",
    ]
    assert reasons[0].startswith("line 2: the name contains the reserved word 'claude'")
    assert reasons[1].startswith("line 3: description contains the XML tag '<b>'")
    assert result["spec"][0] and result["claude-code"][0]


def test_a_byte_order_mark_fails_the_strict_validator_through_its_rule(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": "\ufeff" + skill_md()})
    loads, reasons = verdicts(root)["spec"]
    assert not loads
    assert len(reasons) == 1 and reasons[0].endswith("[skill-md-bom]")
    # Codex's first line must trim to "---", and Rust's trim keeps a BOM; Gemini CLI's
    # pattern wants "---" first.
    refusing = {host for host, (ok, _) in verdicts(root).items() if not ok}
    assert refusing == {"spec", "codex", "gemini-cli"}


def test_unicode_name_passes_the_spec_but_not_api_upload(tmp_path: Path) -> None:
    result = loads(make_skill(tmp_path, "données", {"SKILL.md": skill_md("données")}))
    assert result == {
        "spec": True,
        "claude-api": False,
        "claude-code": True,
        "vscode": True,
        "codex": True,
        "gemini-cli": True,
        "opencode": True,
    }


def test_folder_mismatch_fails_spec_and_vscode_not_codex(tmp_path: Path) -> None:
    result = loads(make_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf-tools")}))
    assert result == {
        "spec": False,
        "claude-api": True,
        "claude-code": True,
        "vscode": False,
        "codex": True,
        "gemini-cli": True,
        "opencode": True,
    }


def test_missing_description_still_loads_in_claude_code_with_a_note(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": "---\nname: pdf-tools\n---\nx\n"})
    result = verdicts(root)
    assert result["claude-code"][0] is True
    assert "no description" in result["claude-code"][1][0]
    assert not result["codex"][0] and not result["vscode"][0]


def test_suppressions_do_not_change_verdicts(tmp_path: Path) -> None:
    text = skill_md(extra="foo: 1  # skillkit: ignore[unknown-key]\n")
    report = check_folder(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))
    assert report.diagnostics == []
    assert report.hosts[0].loads is False


# Codex, as its loader reads a SKILL.md (openai/codex codex-rs/core-skills/src/loader.rs).
CODEX_CASES = {
    "name-format-not-checked": ("---\nname: My_Skill\ndescription: Does PDFs.\n---\n", True),
    "no-name-takes-the-folders": ("---\ndescription: Does PDFs.\n---\n", True),
    "long-description-is-cut-not-refused": (f"---\ndescription: {'a' * 1100}\n---\n", True),
    "indented-closing-line": ("---\nname: pdf-tools\ndescription: Does PDFs.\n  ---\n", True),
    "name-of-65": (f"---\nname: {'a' * 65}\ndescription: Does PDFs.\n---\n", False),
    "duplicate-name": ("---\nname: a\nname: b\ndescription: Does PDFs.\n---\n", False),
    "duplicate-other-key": ("---\nlicense: a\nlicense: b\ndescription: D.\n---\n", True),
    "metadata-string": ("---\ndescription: Does PDFs.\nmetadata: v1\n---\n", False),
    "short-description-list": (
        "---\ndescription: D.\nmetadata:\n  short-description: [x, y]\n---\n",
        False,
    ),
    "short-description-string": (
        "---\ndescription: D.\nmetadata:\n  short-description: Short.\n  other: [1]\n---\n",
        True,
    ),
    "no-description": ("---\nname: pdf-tools\n---\n", False),
    "blank-description": ("---\nname: pdf-tools\ndescription: '  '\n---\n", False),
    "lone-cr-lines": ("---\rname: pdf-tools\rdescription: Does PDFs.\r---\r", False),
    "crlf-lines": ("---\r\nname: pdf-tools\r\ndescription: Does PDFs.\r\n---\r\n", True),
    "empty-frontmatter": ("---\n---\nBody.\n", False),
    "colon-in-a-list-item-value": ("---\ndescription: 'D.'\ntags:\n  - a: b: c\n---\n", True),
    # Seen with codex-cli 0.171.0 (skills/list): the colon repair follows a type error too,
    # and a key that is no scalar fails serde's field names, at the top or in metadata.
    "flow-map-description-with-colon": ("---\nname: a\ndescription: {a: b}\n---\n", True),
    "flow-map-name-with-colon": ("---\nname: {a: b}\ndescription: x\n---\n", True),
    "flow-list-short-description-with-colon": (
        "---\ndescription: D.\nmetadata:\n  short-description: [a: b]\n---\n",
        True,
    ),
    "flow-list-description-without-colon": ("---\ndescription: [a, b]\n---\n", False),
    "list-key": ("---\nname: a\ndescription: x\n[a]: b\n---\n", False),
    "list-key-in-metadata": ("---\nname: a\ndescription: x\nmetadata:\n  [a]: b\n---\n", False),
    "list-key-below-an-ignored-key": ("---\ndescription: x\nother:\n  [a]: b\n---\n", True),
    "scalar-keys": ("---\ndescription: x\n1: a\ntrue: b\n---\n", True),
}


def _assert_own_reading(tmp_path: Path, consumer: str, text: str, expected: bool) -> None:
    loads_there, reasons = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))[consumer]
    assert loads_there is expected, reasons
    assert bool(reasons) is not expected


@pytest.mark.parametrize("case", sorted(CODEX_CASES))
def test_codex_verdict_reads_as_codex_reads(tmp_path: Path, case: str) -> None:
    _assert_own_reading(tmp_path, "codex", *CODEX_CASES[case])


def test_codex_cannot_read_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": "x"})
    (root / "SKILL.md").write_bytes(b"---\nname: pdf-tools\ndescription: Caf\xe9.\n---\n")
    loads_in_codex, reasons = verdicts(root)["codex"]
    assert not loads_in_codex and reasons[0].endswith("[skill-md-unreadable]")
    from skillkit_core.manifest.codex_loader import codex_refusals
    from skillkit_core.manifest.parse import read_skill_md

    assert codex_refusals(read_skill_md(str(root)), "pdf-tools") == [
        "Codex reads SKILL.md as UTF-8 text, and this file is not"
    ]


# Gemini CLI, as its loader reads a SKILL.md (google-gemini/gemini-cli skillLoader.ts).
GEMINI_CASES = {
    "any-name-format": ("---\nname: My_Skill\ndescription: D.\n---\n", True),
    "no-description": ("---\nname: pdf-tools\n---\n", False),
    "empty-description-line": ("---\nname: pdf-tools\ndescription:\n---\n", True),
    "no-name": ("---\ndescription: Does PDFs.\n---\n", False),
    "duplicate-keys": ("---\nname: a\nname: b\ndescription: D.\n---\n", True),
    "indented-closing-line": ("---\nname: a\ndescription: D.\n  ---\n", False),
    "name-swallowed-by-description": ("---\ndescription: D\n  name: a\n---\n", False),
    "crlf": ("---\r\nname: a\r\ndescription: D.\r\n---\r\n", True),
    "impossible-date": ("---\nname: a\ndescription: D.\nwhen: 2025-02-29\n---\n", True),
    "empty-frontmatter": ("---\n---\n", False),
    # Seen with Gemini CLI 0.61.0 (gemini skills list): js-yaml 4 reads YAML 1.2, refuses
    # a repeated key, and takes U+2028 and U+0085 for plain characters; JavaScript's \s
    # is no U+0085 or U+001C. Quoted keys leave the line reader nothing to find.
    "quoted-duplicate-keys": ('---\n"name": x\n"description": A.\n"description": B.\n---\n', False),
    "flow-duplicate-keys": ("---\n{name: x, description: A., description: B.}\n---\n", False),
    "yaml-1-2-yes-is-text": ('---\n"name": x\n"description": yes\n---\n', True),
    "yaml-1-2-octal-is-a-number": ('---\n"name": x\n"description": 0o17\n---\n', False),
    "line-separator-in-a-value": ("---\nname: x\ndescription: a\u2028b\n---\n", True),
    "next-line-before-the-name": ("---\n\x85name: x\ndescription: D.\n---\n", False),
    "file-separator-before-the-name": ("---\n\x1cname: x\ndescription: D.\n---\n", False),
}


@pytest.mark.parametrize("case", sorted(GEMINI_CASES))
def test_gemini_cli_verdict_reads_as_gemini_cli_reads(tmp_path: Path, case: str) -> None:
    _assert_own_reading(tmp_path, "gemini-cli", *GEMINI_CASES[case])


def test_a_folder_without_skill_md_is_refused_for_that_by_every_consumer(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": "x"})
    (root / "SKILL.md").unlink()
    (root / "notes.md").write_text("Notes.\n")
    for consumer, (ok, reasons) in verdicts(root).items():
        assert not ok and reasons[0].endswith("[skill-md-missing]"), consumer


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("lowercase", "Codex reads only a file named exactly SKILL.md, not skill.md"),
        ("link", "Codex passes over a SKILL.md that is a symbolic link"),
        ("dot-folder", "Codex passes over folders whose names start with a dot"),
    ],
)
def test_codex_scan_passes_over_what_it_does_not_see(
    tmp_path: Path, change: str, reason: str
) -> None:
    # codex-cli 0.171.0's skills/list lists none of these and reports no error.
    name = ".pdf-tools" if change == "dot-folder" else "pdf-tools"
    root = make_skill(tmp_path, name, {"SKILL.md": skill_md(name="pdf-tools")})
    if change == "lowercase":
        (root / "SKILL.md").rename(root / "skill.md")
    elif change == "link":
        (root / "SKILL.md").rename(root / "REAL.md")
        (root / "SKILL.md").symlink_to("REAL.md")
    assert verdicts(root)["codex"] == (False, (reason,))


def test_gemini_cli_passes_over_a_dot_named_folder(tmp_path: Path) -> None:
    # gemini skills list (0.61.0): "No skills discovered."
    root = make_skill(tmp_path, ".pdf-tools", {"SKILL.md": skill_md()})
    assert verdicts(root)["gemini-cli"] == (
        False,
        ("Gemini CLI passes over folders whose names start with a dot",),
    )


def test_gemini_cli_does_not_find_a_lowercase_skill_md(tmp_path: Path) -> None:
    # Its glob (SKILL.md, */SKILL.md) is case-sensitive on Linux (gemini skills list, 0.61.0).
    root = make_skill(tmp_path, "pdf-tools", {"skill.md": skill_md()})
    loads_there, reasons = verdicts(root)["gemini-cli"]
    assert not loads_there and reasons == (
        "Gemini CLI looks for a file named SKILL.md (on Linux, not skill.md)",
    )


# Claude Code, as its loader reads a folder (2.1.332, run offline with `claude -p`).
CLAUDE_CODE_CASES = {
    "broken-yaml-still-loads": ('---\nname: a\ndescription: "Unterminated\n---\nB.\n', True),
    "no-frontmatter-still-loads": ("# Title\n\nBody.\n", True),
    "list-frontmatter-still-loads": ("---\n- one\n- two\n---\n# Title\n", True),
    "no-description-still-loads": ("---\nname: pdf-tools\n---\n# Title\n", True),
}


@pytest.mark.parametrize("case", sorted(CLAUDE_CODE_CASES))
def test_claude_code_verdict_reads_as_claude_code_reads(tmp_path: Path, case: str) -> None:
    text, expected = CLAUDE_CODE_CASES[case]
    loads_there, notes = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))[
        "claude-code"
    ]
    assert loads_there is expected and notes, notes


@pytest.mark.parametrize(
    ("folder", "change", "reason"),
    [
        ("pdf-tools", "lowercase", "Claude Code reads only a file named exactly SKILL.md"),
        ("pdf-tools", "large", "Claude Code skips a SKILL.md over 1,000,000 bytes"),
        ("bad<name>", "", "Claude Code does not offer a skill whose folder name holds < or >"),
        ("trail:", "", "Claude Code does not offer a skill whose folder name has a space"),
        ("a\u200bb", "", "Claude Code does not offer a skill whose folder name holds a hidden"),
    ],
)
def test_claude_code_passes_over_what_it_does_not_offer(
    tmp_path: Path, folder: str, change: str, reason: str
) -> None:
    text = skill_md(name="pdf-tools")
    if change == "large":
        text += "x" * 1_000_001
    root = make_skill(tmp_path, folder, {"SKILL.md": text})
    if change == "lowercase":
        (root / "SKILL.md").rename(root / "skill.md")
    loads_there, reasons = verdicts(root)["claude-code"]
    assert not loads_there and reasons[0].startswith(reason), reasons


def test_claude_code_notes_what_it_reads_differently(tmp_path: Path) -> None:
    text = "---\nname: other\ndescription: Before --- after.\n---\n# Title\n"
    loads_there, notes = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))[
        "claude-code"
    ]
    assert loads_there
    assert notes == (
        "Claude Code ends the frontmatter at the first '---', inside line 3: what follows "
        "it there is not read as frontmatter",
        "Claude Code names the skill after its folder ('pdf-tools'); 'other' is only shown "
        "beside it",
    )


# OpenCode, as 1.18.33 was seen to read a SKILL.md (opencode debug skill).
OPENCODE_CASES = {
    "any-name-text": ("---\nname: My Skill\ndescription: D.\n---\n", True),
    "empty-name": ('---\nname: ""\ndescription: D.\n---\n', True),
    "no-description-kept": ("---\nname: pdf-tools\n---\n", True),
    "colon-value-read-again": ("---\nname: x: skill\ndescription: D.\n---\n", True),
    "byte-order-mark-dropped": ("\ufeff---\nname: a\ndescription: D.\n---\n", True),
    "spaces-after-the-opening": ("---   \nname: a\ndescription: D.\n---\n", True),
    "yes-is-text": ("---\nname: a\ndescription: yes\n---\n", True),
    "number-name": ("---\nname: 123\ndescription: D.\n---\n", False),
    "null-description": ("---\nname: a\ndescription:\n---\n", False),
    "date-description": ("---\nname: a\ndescription: 2025-01-01\n---\n", False),
    "list-description": ("---\nname: a\ndescription: [x, y]\n---\n", False),
    "duplicate-keys": ("---\nname: a\nname: b\ndescription: D.\n---\n", False),
    "no-name": ("---\ndescription: D.\n---\n", False),
    "indented-closing-line": ("---\nname: a\ndescription: D.\n  ---\n", False),
    "blank-first-line": ("\n---\nname: a\ndescription: D.\n---\n", False),
    "lone-cr-lines": ("---\rname: a\rdescription: D.\r---\r", False),
    "list-frontmatter": ("---\n- a\n---\n", False),
    # Seen again (helper re-run of 78 cases): js-yaml 3 takes U+2028 and U+0085 in a value,
    # tab-indented mappings and keys that are no scalars (as text), reads 1e3 as a
    # number, and gray-matter reads a file without a closing line as all frontmatter.
    "line-separator-in-a-value": ("---\nname: a\ndescription: x\u2028y\n---\n", True),
    "tab-indented-metadata": ("---\nname: a\ndescription: D.\nmetadata:\n\tby: me\n---\n", True),
    "list-key": ("---\nname: a\ndescription: D.\n[a]: two\n---\n", True),
    "exponent-description": ("---\nname: a\ndescription: 1e3\n---\n", False),
    "no-closing-line-all-yaml": ("---\nname: a\ndescription: D.\n\n# T\n", True),
    "no-closing-line-with-a-body": (
        "---\nname: a\ndescription: D.\nBody text: here.\n- x\n",
        False,
    ),
    "value-ending-in-a-colon": ("---\nname: a\ndescription: Ends with:\n---\n", True),
    "colon-before-a-tab": ("---\nname: a\ndescription: Use when:\tX\n---\n", True),
    "mark-before-the-name": ("---\n\ufeffname: a\ndescription: D.\n---\n", False),
}


@pytest.mark.parametrize("case", sorted(OPENCODE_CASES))
def test_opencode_verdict_reads_as_opencode_reads(tmp_path: Path, case: str) -> None:
    text, expected = OPENCODE_CASES[case]
    loads_there, reasons = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))[
        "opencode"
    ]
    assert loads_there is expected, reasons
    if case == "no-description-kept":
        assert reasons == ("OpenCode leaves a skill without a description out of the model's list",)
    elif expected:
        assert reasons == ()


def test_claude_code_notes_when_it_keeps_a_skill_out_of_the_models_listing(
    tmp_path: Path,
) -> None:
    text = skill_md(extra='disable-model-invocation: "yes"\npaths: src/**\n')
    loads_there, notes = verdicts(make_skill(tmp_path, "pdf-tools", {"SKILL.md": text}))[
        "claude-code"
    ]
    assert loads_there and notes == (
        "disable-model-invocation: Claude Code lists it only for /name, not the model",
        "paths: Claude Code lists it only once a file matching them is touched",
    )


def test_hosts_that_read_a_file_over_4_mib_are_judged_by_its_start(tmp_path: Path) -> None:
    # Codex, Gemini CLI and OpenCode listed a 5 MB SKILL.md; Claude Code skips it.
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md() + "x" * 5_000_000})
    result = loads(root)
    assert {host for host, ok in result.items() if ok} == {"codex", "gemini-cli", "opencode"}


def test_claude_code_loads_a_skill_md_linked_from_outside(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "SKILL.md").write_text(skill_md())
    root = tmp_path / "pdf-tools"
    root.mkdir()
    (root / "SKILL.md").symlink_to("../elsewhere/SKILL.md")
    loads_there, notes = verdicts(root)["claude-code"]
    assert loads_there and "skillkit does not read it" in notes[0]
