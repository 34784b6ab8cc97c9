"""Output formats of skillkit check: text, JSON, SARIF, GitHub annotations, hosts."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from skillkit_core.lint import format as formats
from skillkit_core.lint.capping import MAX_MESSAGE, MAX_PER_RULE
from skillkit_core.lint.check_paths import check_paths
from tests.core.lint.skillmd_support import make_skill, skill_md

BAD = skill_md(name="PDF_Tools", extra="licence: MIT\n", body="See [x](references/x.md).\n")


def run_for(tmp_path: Path):
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": BAD})
    return root, check_paths([str(root)])


def render(run, hosts: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, color_system=None, highlight=False, soft_wrap=True)
    formats.render_text(run, console)
    if hosts:
        formats.render_hosts(run, console)
    return buffer.getvalue()


def test_text_groups_by_file_with_positions_and_code_frames(tmp_path: Path) -> None:
    root, run = run_for(tmp_path)
    text = render(run)
    skill = str(root / "SKILL.md")
    assert text.startswith(skill + "\n")
    headline = f"  {skill}:2:7: error [name-format] name 'PDF_Tools' must be lowercase"
    assert headline + " (fixable)\n" in text
    # name-folder-mismatch's rename is a choice: named, not counted as fixable
    mismatch = f"  {skill}:2:7: error [name-folder-mismatch] name 'PDF_Tools' does not match"
    assert any(
        ln.startswith(mismatch) and ln.endswith(" (1 suggested fix)") for ln in text.splitlines()
    )
    assert "  > 2 │ name: PDF_Tools\n" in text
    assert "      │       ^^^^^^^^^\n" in text
    assert f"{skill}:6:9: error [broken-link]" in text
    assert text.rstrip().endswith("Found 4 errors, 1 warning in 1 target. (2 fixable with --fix)")


def test_hosts_matrix_lists_each_consumer(tmp_path: Path) -> None:
    _, run = run_for(tmp_path)
    text = render(run, hosts=True)
    # At 100 columns beside this long path, the headers wrap between their words.
    for label in ("strict spec validator", "Claude Code", "VS Code", "Codex"):
        assert all(word in text for word in label.split())
    assert "keys outside the specification: licence" in text


def test_json_document(tmp_path: Path) -> None:
    root, run = run_for(tmp_path)
    document = json.loads(formats.render_json(run, hosts=True))
    assert document["summary"] == {
        "targets": 1,
        "errors": 4,
        "warnings": 1,
        "info": 0,
        "fixable": 2,
        "suppressed": 0,
        "exit_code": 1,
    }
    first = document["diagnostics"][0]
    assert first["rule"] == "name-folder-mismatch"
    assert first["range"] == {"line": 1, "column": 6, "end_line": 1, "end_column": 15}
    # Renaming the skill or its folder changes meaning: suggestions, not the safe fix.
    assert first["fix"] is None
    assert [s["title"] for s in first["suggestions"]] == [
        "Rename the skill to 'pdf-tools' (its public name 'PDF_Tools' changes)"
    ]
    assert "suggestions" not in next(d for d in document["diagnostics"] if d["fix"])
    fixed = next(d for d in document["diagnostics"] if d["fix"])
    assert fixed["fix"]["edits"][0]["new_text"] == "pdf-tools"
    verdicts = document["hosts"][0]["verdicts"]
    assert [v["consumer"] for v in verdicts] == [
        "spec",
        "claude-api",
        "claude-code",
        "vscode",
        "codex",
        "gemini-cli",
        "opencode",
    ]
    assert document["hosts"][0]["target"] == str(root)


def test_sarif_log(tmp_path: Path) -> None:
    _, run = run_for(tmp_path)
    log = json.loads(formats.render_sarif(run))
    assert log["version"] == "2.1.0"
    (sarif_run,) = log["runs"]
    assert sarif_run["columnKind"] == "unicodeCodePoints"
    rules = sarif_run["tool"]["driver"]["rules"]
    results = sarif_run["results"]
    assert len(results) == 5
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 2, "startColumn": 7, "endLine": 2, "endColumn": 16}
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith(
        "file:///"
    )


def test_sarif_gives_code_scanning_what_it_reads(tmp_path: Path, monkeypatch) -> None:
    # From GitHub's "SARIF support for code scanning": a descriptor with help for every
    # rule a result names, a region on every file, URIs relative to the checkout; and
    # SARIF 2.1.0 itself: uriBaseId beside a relative uri (3.4.4), newlineSequences
    # (3.14.26) when a lone CR counts as a line break.
    make_skill(tmp_path, "pdf-tools", {"SKILL.md": BAD, "references/a.md": "never linked\n"})
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    run = check_paths(["../pdf-tools/../pdf-tools", "."])
    (sarif_run,) = json.loads(formats.render_sarif(run))["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    for result in sarif_run["results"]:
        rule = rules[result["ruleIndex"]]
        assert rule["id"] == result["ruleId"] and rule["help"]["text"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert artifact["uri"].startswith(("../pdf-tools/", "./")), artifact
        if not artifact["uri"].endswith("/"):
            assert location["physicalLocation"]["region"]["startLine"] >= 1
    by_rule = {r["ruleId"]: r for r in sarif_run["results"]}
    unlinked = by_rule["unreferenced-file"]["locations"][0]["physicalLocation"]
    assert unlinked == {
        "artifactLocation": {"uri": "../pdf-tools/references/a.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1},
    }
    folder = by_rule["no-skill"]["locations"][0]["physicalLocation"]
    assert folder == {"artifactLocation": {"uri": "./", "uriBaseId": "%SRCROOT%"}}
    assert rules[by_rule["no-skill"]["ruleIndex"]]["shortDescription"]["text"].startswith(
        "A path given to check holds no skill"
    )
    base = sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == (tmp_path / "empty").as_uri() + "/"
    assert sarif_run["newlineSequences"] == ["\r\n", "\r", "\n"]


def test_github_annotations_give_columns_only_on_one_line(tmp_path: Path) -> None:
    description = "a" * 1100  # description-length: its range spans the folded lines
    folded = "description: >-\n  " + "\n  ".join([description[:550], description[550:]])
    text = f"---\nname: pdf-tools\n{folded}\n---\nSee [x](references/gone.md).\n"
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": text})
    lines = formats.render_github(check_paths([str(root)])).splitlines()
    spans = []
    for line in (line for line in lines if line.startswith("::")):
        properties = dict(p.split("=", 1) for p in line.split(" ", 1)[1].split("::")[0].split(","))
        spans.append(properties.get("line") != properties.get("endLine"))
        if spans[-1]:
            assert "col" not in properties and "endColumn" not in properties, line
    assert any(spans) and not all(spans)  # both kinds were written


def test_sarif_and_json_name_a_file_whose_name_is_not_utf8(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "bad\udcffname"  # the byte 0xff, as Python keeps it in a name
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md(name="other"))
    monkeypatch.chdir(tmp_path)
    run = check_paths(["bad\udcffname"])
    log = json.loads(formats.render_sarif(run))
    (result,) = log["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location["uri"] == "bad%FFname/SKILL.md"
    # JSON names it with an escape: text any UTF-8 stream takes, the same name once parsed.
    text = formats.render_json(run)
    text.encode("utf-8")
    assert json.loads(text)["diagnostics"][0]["file"] == "bad\udcffname/SKILL.md"


def test_github_annotations_escape_properties_and_data(tmp_path: Path) -> None:
    root, run = run_for(tmp_path)
    lines = formats.render_github(run).splitlines()
    assert lines[0].startswith(f"::error file={root}/SKILL.md,line=2,col=7,endLine=2,endColumn=16,")
    assert "title=name-folder-mismatch::" in lines[0]
    assert formats._escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert lines[-1].startswith("Found 4 errors")


def test_clean_run_summary(tmp_path: Path) -> None:
    run = check_paths([str(make_skill(tmp_path))])
    assert formats.summary(run) == "No problems found in 1 target."


# Safe to print (issue 17): a SKILL.md with thousands of findings on one long line, or
# with control characters, prints a bounded report and no raw control character.


def _many_links(tmp_path: Path, count: int, target: str = "references/missing-{}.md") -> Path:
    line = " ".join(f"[x]({target.format(i)})" for i in range(count))
    return make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(body=f"\n{line}\n")})


def test_text_shows_at_most_max_per_rule_findings_of_a_rule_per_file(tmp_path: Path) -> None:
    root = _many_links(tmp_path, MAX_PER_RULE + 30)
    run = check_paths([str(root)])
    text = render(run)
    assert text.count("error [broken-link]") == MAX_PER_RULE
    assert "  … and 30 more [broken-link] in this file\n" in text
    # The summary counts every finding, shown or not.
    assert f"Found {MAX_PER_RULE + 30} errors" in text


def test_code_frames_show_a_window_of_a_long_line_around_the_finding(tmp_path: Path) -> None:
    root = _many_links(tmp_path, 40)
    text = render(check_paths([str(root)]))
    frame_lines = [line for line in text.splitlines() if "│" in line]
    assert max(len(line.split("│", 1)[1]) for line in frame_lines) <= formats.FRAME_WIDTH + 3
    # The 31st link, far along the line: the window starts with "…" and the caret sits
    # under its target.
    headline = next(line for line in text.splitlines() if "target 'references/missing-30" in line)
    lines = text.splitlines()
    source, caret = lines[lines.index(headline) + 2], lines[lines.index(headline) + 3]
    assert source.split("│ ", 1)[1].startswith("…")
    start = caret.index("^")
    assert source[start : start + len("references/missing-30.md")] == "references/missing-30.md"
    assert caret.count("^") == len("references/missing-30.md")


def test_json_sarif_and_github_cap_findings_and_say_how_many_are_left_out(
    tmp_path: Path,
) -> None:
    root = _many_links(tmp_path, MAX_PER_RULE + 5)
    run = check_paths([str(root)])
    document = json.loads(formats.render_json(run))
    assert len([d for d in document["diagnostics"] if d["rule"] == "broken-link"]) == 50
    assert document["summary"]["errors"] == MAX_PER_RULE + 5
    assert document["summary"]["not_shown"] == 5
    assert document["not_shown"] == [
        {"file": str(root / "SKILL.md"), "rule": "broken-link", "count": 5}
    ]
    sarif = json.loads(formats.render_sarif(run))
    assert len(sarif["runs"][0]["results"]) == MAX_PER_RULE
    # Code scanning showed 50 alerts and no sign of the rest.
    (invocation,) = sarif["runs"][0]["invocations"]
    (note,) = invocation["toolExecutionNotifications"]
    assert note["message"]["text"] == "… and 5 more [broken-link] in this file"
    assert note["associatedRule"] == {"id": "broken-link"}
    github = formats.render_github(run)
    assert github.count("::error ") == MAX_PER_RULE
    assert "::notice file=" in github and "… and 5 more [broken-link] in this file" in github


def test_long_messages_are_cut(tmp_path: Path) -> None:
    root = _many_links(tmp_path, 1, target="references/" + "a" * 5000 + "{}.md")
    document = json.loads(formats.render_json(check_paths([str(root)])))
    message = next(d["message"] for d in document["diagnostics"] if d["rule"] == "broken-link")
    assert len(message) == MAX_MESSAGE and message.endswith("…")


HOSTILE = "\x1b]0;owned\x07\x1b[2J\x9b31m\x9d8;;x\x1b\\"


def test_control_characters_are_escaped_in_every_format(tmp_path: Path) -> None:
    # In the folder's name (every headline shows the path) and in a link target.
    root = make_skill(
        tmp_path,
        f"pdf{HOSTILE}",
        {"SKILL.md": skill_md(body="\nSee [x](references/\x1b[2J\x9b31m.md) now.\n")},
    )
    run = check_paths([str(root)])
    outputs = {
        "text": render(run, hosts=True),
        "json": formats.render_json(run, hosts=True),
        "sarif": formats.render_sarif(run),
        "github": formats.render_github(run),
    }
    for name, output in outputs.items():
        raw = [c for c in output if c not in "\n\t" and (ord(c) < 32 or 0x7F <= ord(c) <= 0x9F)]
        assert raw == [], name
    assert "pdf\\x1b]0;owned\\x07\\x1b[2J\\x9b31m" in outputs["text"]
    assert "link target 'references/\\x1b[2J\\x9b31m.md'" in outputs["text"]
    assert "references/\\x1b[2J\\x9b31m.md" in outputs["github"]
    # JSON keeps the data: the escapes are JSON's own.
    document = json.loads(outputs["json"])
    assert {d["file"] for d in document["diagnostics"]} == {str(root / "SKILL.md")}
    assert any("\x1b[2J\x9b31m" in d["message"] for d in document["diagnostics"])


def test_no_text_a_skill_controls_starts_a_line_a_ci_runner_reads_as_a_command(
    tmp_path: Path, monkeypatch
) -> None:
    # actions/runner takes a line that starts, after blanks, with "::" (or "##[") as a
    # workflow command: a frontmatter key over two lines forged an annotation.
    # The older command form, "##[error]...", is read anywhere in a line (TryParse).
    key = '"x\\n::error file=README.md,line=1::forged ##[error]old": v\n'
    folders = ["::warning file=a::folder", " ::error title=F::spaced", "a##[error]forged"]
    for folder in folders:
        make_skill(tmp_path, folder, {"SKILL.md": skill_md(name="folder", extra=key)})
    monkeypatch.chdir(tmp_path)
    run = check_paths(folders)
    plain = io.StringIO()
    formats.render_text(run, formats.PlainConsole(plain))
    text = plain.getvalue()
    for output in (text, render(run, hosts=True)):
        assert "##[" not in output
        assert not [ln for ln in output.splitlines() if ln.lstrip().startswith("::")], output
    assert f"./{folders[0]}/SKILL.md\n" in text and f"./{folders[1]}/SKILL.md\n" in text
    assert "a#\\x23[error]forged/SKILL.md" in text
    assert "      | ::error file=README.md,line=1::forged #\\x23[error]old'" in text


def test_json_fix_names_the_files_it_makes_executable(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(), "scripts/run.sh": "ls\n"})
    document = json.loads(formats.render_json(check_paths([str(root)])))
    (finding,) = document["diagnostics"]
    assert finding["rule"] == "script-shebang"
    assert finding["fix"]["executable"] == [str(root / "scripts" / "run.sh")]
    assert finding["fix"]["edits"][0]["new_text"] == "#!/usr/bin/env bash\n"


def test_hosts_matrix_keeps_folder_names_readable_at_80_columns(tmp_path: Path) -> None:
    names = ["terraform-provider-acceptance-tests", "pdf-tools"]
    for name in names:
        make_skill(tmp_path / "plugins" / "hashicorp", name, {"SKILL.md": skill_md(name=name)})
    run = check_paths([str(tmp_path)])
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, color_system=None, highlight=False)
    formats.render_hosts(run, console)
    text = buffer.getvalue()
    lines = text.splitlines()
    assert lines[0] == f"Skill folders under {tmp_path}/plugins/hashicorp:"
    assert lines[1].strip() == "Host compatibility"
    assert all(len(line) <= 80 for line in lines[1:])  # the table fits
    assert "…" not in text
    # Every word of every host's label is whole in the header (seven columns left no
    # room for padding: "validator" was printed "valida" over "tor").
    header = [line for line in lines if line.startswith("┃")]
    words = {word for line in header for word in line.replace("┃", " ").split()}
    from skillkit_core.manifest.compat import CONSUMERS

    assert {word for c in CONSUMERS for word in c.label.split()} <= words
    # Each name is whole in the folder column: wrapped after a '/', never cut short.
    column = "".join(
        line.split("│")[1].strip() for line in lines if line.startswith("│") and "│" in line[1:]
    )
    assert column == "".join(names[::-1])  # sorted: pdf-tools first
    assert "pdf-tools" in text


def test_hosts_matrix_names_a_lone_folder_by_its_path(tmp_path: Path) -> None:
    root = make_skill(tmp_path / "deep" / "er", "pdf-tools")
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, color_system=None, highlight=False)
    formats.render_hosts(check_paths([str(root)]), console)
    lines = buffer.getvalue().splitlines()
    assert lines[0].strip() == "Host compatibility"
    column = "".join(line.split("│")[1].strip() for line in lines if line.startswith("│"))
    assert column == str(root)


def test_plain_text_is_what_rich_prints_without_colour(tmp_path: Path) -> None:
    body = "See [x](references/x.md).\n\tTabbed [y](references/ü y.md) — wide 表 text.\n"
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(name="PDF_Tools", body=body)})
    run = check_paths([str(root), str(Path(__file__).parent.parent.parent.parent / "examples")])
    assert run.diagnostics
    plain = io.StringIO()
    formats.render_text(run, formats.PlainConsole(plain))
    assert plain.getvalue() == render(run)


def test_code_frames_count_lines_the_same_whatever_the_line_ends(tmp_path: Path) -> None:
    for name, end in (("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")):
        text = BAD.replace("\n", end)
        root = make_skill(tmp_path / name, "pdf-tools", {"SKILL.md": text})
        frame = render(check_paths([str(root)]))
        assert "    1 │ ---\n  > 2 │ name: PDF_Tools\n" in frame, name
        assert "\n    3 │ description: Extract text" in frame, name  # the line after
        assert "  > 6 │ See [x](references/x.md).\n" in frame, name
