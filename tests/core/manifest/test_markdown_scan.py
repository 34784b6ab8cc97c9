"""The light markdown scan: links, mentions, code, dynamic commands, suppressions."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.manifest.links import local_target, mention_path
from skillkit_core.manifest.markdown import find_suppressions, scan_links, scan_markdown
from tests.core.manifest.linear_support import watchdog

TEXT = """See [guide](references/guide.md "Title") and ![img](<assets/a b.png>).
Run `python scripts/run.py` or !`git status`.
```bash
python {baseDir}/scripts/x.sh --in references/a.md
[not a link](skipped.md)
```
```!
curl x | sh
```
[ref]: references/r.md
""".splitlines()


def test_links_images_and_definitions_with_target_ranges() -> None:
    scan = scan_markdown(TEXT, first_line=5)
    assert [(link.target, link.range, link.image) for link in scan.links] == [
        ("references/guide.md", SourceRange(5, 12, 5, 31), False),
        ("assets/a b.png", SourceRange(5, 53, 5, 67), True),
        ("references/r.md", SourceRange(14, 7, 14, 22), False),
    ]


def test_mentions_in_prose_code_spans_and_code_blocks() -> None:
    scan = scan_markdown(TEXT)
    assert [m.path for m in scan.mentions] == [
        "scripts/run.py",
        "{baseDir}/scripts/x.sh",
        "references/a.md",
    ]
    assert mention_path("{baseDir}/scripts/x.sh") == "scripts/x.sh"


def test_mentions_keep_globs_braces_and_where_they_were_found() -> None:
    lines = [
        "Rules: `references/agents-*-rules.md` and scripts/extract.{sh,ps1}.",
        "```hcl",
        'user_data_file = "scripts/setup.ps1"',
        "```",
    ]
    found = [(m.path, m.fence, m.inline) for m in scan_markdown(lines).mentions]
    assert found == [
        ("references/agents-*-rules.md", None, True),
        ("scripts/extract.{sh,ps1}", None, False),
        ("scripts/setup.ps1", "hcl", False),
    ]


def test_a_long_unclosed_brace_list_is_scanned_once() -> None:
    with watchdog():
        scan = scan_markdown(["scripts/a" + "{b" * 100_000, "scripts/" + "." * 200_000 + "{"])
    assert [m.path for m in scan.mentions] == ["scripts/a"]


def test_a_links_only_scan_keeps_fences_and_code_spans_apart() -> None:
    assert scan_links("\n".join(TEXT)).links == scan_markdown(TEXT).links
    lines = ["`[x](in-code.md)` [y](y.md)", "```", "[z](in-fence.md)", "```", "", "[w](w.md)"]
    scan = scan_links("\n".join(lines))
    assert [(link.target, link.range.line) for link in scan.links] == [("y.md", 0), ("w.md", 5)]
    assert not scan.mentions and not scan.code_lines and not scan.inline_code


def test_a_links_only_scan_of_a_long_line_is_linear() -> None:
    with watchdog():
        assert len(scan_links("]" * 300_000 + "[a](b) " * 50_000).links) == 50_000


def test_code_lines_and_dynamic_commands() -> None:
    scan = scan_markdown(TEXT)
    assert scan.code_lines == {2, 3, 4, 6, 7}
    assert [(c.text, c.range.line) for c in scan.commands] == [
        ("git status", 1),
        ("curl x | sh", 7),
    ]


def test_local_targets() -> None:
    assert local_target("https://x.example/a.md") is None
    assert local_target("#usage") is None
    assert local_target("mailto:a@b.c") is None
    assert local_target("references/a%20b.md#part").path == "references/a b.md"
    assert local_target("/etc/passwd").absolute
    assert local_target("/uipath:uipath-functions") is None  # a plugin skill's command
    assert local_target("/pr:review") is None
    assert local_target("/tmp/a:b").absolute  # a path with a colon is still a path
    assert local_target("C:\\x\\y.md").absolute
    assert local_target("{baseDir}/scripts/x.py").from_root


def test_suppressions() -> None:
    lines = [
        "<!-- skillkit: ignore[a, b] -->",
        "text <!-- skillkit: ignore[c] -->",
        "# skillkit: ignore",
        "x",
        "<!-- skillkit: ignore-file[d] -->",
    ]
    found = find_suppressions(lines)
    assert found.suppresses("a", 0) and found.suppresses("b", 1)
    assert found.suppresses("c", 1) and not found.suppresses("c", 0)
    assert not found.suppresses("c", 4)
    assert found.suppresses("anything", 3)
    assert found.suppresses("d", None) and found.suppresses("d", 40)
    assert not found.suppresses("a", None)


# Pathological lines (issue 17): each would keep the scan busy for minutes if a pattern
# scanned the rest of the line from every position again, or if each mention were
# compared with every link before it.


def test_a_line_of_thousands_of_links_and_mentions_finds_each_once() -> None:
    line = "".join(f"[x](references/r{i}.md) then scripts/s{i}.sh " for i in range(20_000))
    with watchdog():
        scan = scan_markdown([line])
    assert len(scan.links) == 20_000
    assert scan.links[-1].target == "references/r19999.md"
    # Paths that are a link's target are no mentions; the others are.
    assert len(scan.mentions) == 20_000
    assert scan.mentions[-1].path == "scripts/s19999.sh"


def test_unclosed_brackets_do_not_hide_the_link_after_them() -> None:
    line = "[" * 200_000 + "[text](references/a.md) and [a [b] c](references/b.md)"
    with watchdog():
        scan = scan_markdown([line])
    assert [link.target for link in scan.links] == ["references/a.md", "references/b.md"]
    assert scan.links[0].range.column == 200_007


def test_unclosed_targets_and_titles_are_no_links() -> None:
    for unit in ("[a](<b ", "[a](b", '[a](b "', "[x [y] z]("):
        line = unit * (300_000 // len(unit)) + "[ok](references/ok.md)"
        with watchdog():
            scan = scan_markdown([line])
        assert scan.links[-1].target == "references/ok.md", unit


def test_a_line_of_unclosed_suppression_lists() -> None:
    line = "<!-- " + "skillkit: ignore[a, " * 20_000 + "skillkit: ignore[b] -->"
    with watchdog():
        found = find_suppressions([line, "next"])
    # An unclosed list is no list: those markers hide every rule, as a bare marker does.
    assert found.suppresses("anything", 0) and found.suppresses("anything", 1)
    assert found.by_line[0] == frozenset({"*", "b"})


PIECES = [
    *("[", "]", "(", ")", "<", ">", "!", "`", "``", " ", "a", '"', "'", "\x1b", "~~~"),
    *("scripts/", "x.md", "](", "[a](b)", "]:", "<!-- skillkit: ignore["),
    *("{", "}", "{a,b}", "*", ",", "?"),
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(PIECES),
        max_size=60,
    ).map("".join)
)
def test_a_links_only_scan_finds_the_same_links(line: str) -> None:
    lines = [line, "```", line, "```", line, "  ~~~ x", line, "~~~", line]
    assert scan_links("\r\n".join(lines)).links == scan_markdown(lines).links


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(PIECES),
        max_size=60,
    ).map("".join)
)
# Found by this test: a definition's target starting with ">" lost it, not its range.
@example(line="[[]:>[")
@example(line="[a]: x>")
def test_every_range_found_covers_what_it_names(line: str) -> None:
    scan = scan_markdown([line, line], first_line=3)
    for link in scan.links:
        where = link.range
        assert where.line in (3, 4) and where.end_line == where.line
        assert line[where.column : where.end_column] == link.target
    for mention in scan.mentions:
        where = mention.range
        assert line[where.column : where.end_column] == mention.path
    find_suppressions([line])
