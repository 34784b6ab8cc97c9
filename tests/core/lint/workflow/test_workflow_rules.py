"""Every workflow rule against a failing and a passing fixture, with exact findings."""

from __future__ import annotations

import pytest

from skillkit_core.lint.registry import rules_for
from tests.core.lint.workflow.support import FIXTURES, check_fixture, findings, only

# fixture -> every diagnostic it must produce: (rule, severity, 1-based line), in order.
EXPECTED: dict[str, list[tuple[str, str, int | None]]] = {
    "cycle_guard_bad.py": [
        ("cycle-guard", "warning", 16),  # poll loops on itself
        ("cycle-guard", "warning", 23),  # draft <-> review: review has max_visits only
        ("cycle-guard", "error", 41),  # on_max_visits="finsh"
        ("cycle-guard", "error", 49),  # on_max_visits="self"
        ("cycle-guard", "warning", 51),  # on_max_visits without max_visits, off any cycle
    ],
    "cycle_guard_good.py": [],
    "unknown_step_bad.py": [
        ("unknown-step", "error", 20),  # next="verfiy"
        ("unknown-step", "error", 25),  # branch("abrot")
        ("unknown-step", "error", 29),  # ctx.store.steps.get('verfy')
        ("unknown-step", "error", 30),  # a next callable returns "report"
        ("unknown-step", "error", 37),  # entry="strat"
        ("unknown-step", "error", 48),  # branch("topic:autth")
        ("unknown-step", "error", 57),  # a next callable returns "__parent__"
    ],
    "unknown_step_good.py": [],
    "graph_bad.py": [
        ("unguarded-store-access", "warning", 27),
        ("unreachable-step", "warning", 30),
        ("dead-end", "error", 36),
        ("dead-end", "error", 37),
    ],
    "graph_good.py": [],
    "schema_bad.py": [
        ("schema-not-serializable", "error", 28),  # params=Params
        ("schema-not-serializable", "error", 29),  # response=Plan
    ],
    "schema_good.py": [],
    "shadowed_field_bad.py": [
        ("shadowed-store-field", "warning", 36),  # stores={"tally": Tally}: Tally.keys
        ("shadowed-store-field", "warning", 37),  # Order.items
        ("shadowed-store-field", "warning", 37),  # Order.lines[].values
        ("shadowed-store-field", "warning", 37),  # Order.returned.values (Line again)
        ("shadowed-store-field", "warning", 38),  # Line.values
        ("shadowed-store-field", "warning", 39),  # a TypedDict's get
        ("shadowed-store-field", "warning", 40),  # a dataclass's items
    ],
    "shadowed_field_good.py": [],
    "composite_bad.py": [
        ("composite-step-name", "error", 29),
        ("composite-duplicate-subskill", "error", 38),
        ("composite-duplicate-topic", "error", 40),
    ],
    "composite_good.py": [],
    "primitive_schema_bad.py": [
        ("primitive-schema-mismatch", "error", 31),  # option "prod"
        ("primitive-schema-mismatch", "warning", 35),  # Literal allows production, dev
        ("primitive-schema-mismatch", "error", 46),  # option "apac" vs Enum Region
    ],
    "primitive_schema_good.py": [],
    "missing_response_bad.py": [
        ("missing-response-schema", "warning", 24),  # its branch reads ctx.response.files
        ("missing-response-schema", "warning", 29),  # a helper reads steps["review"].approved
        ("missing-response-schema", "warning", 36),  # a structured ask_user
        ("missing-response-schema", "warning", 46),  # the last step, with final_output
    ],
    "missing_response_good.py": [],
    "host_tools_bad.py": [
        ("no-host-tool-names", "error", 15),  # apply_patch in a def's f-string
        ("no-host-tool-names", "error", 20),  # AskUserQuestion in a string prompt
        ("no-host-tool-names", "error", 23),  # TodoWrite in a system() piece
        ("no-host-tool-names", "error", 30),  # "the Bash tool" in a lambda
    ],
    "host_tools_good.py": [],
    "host_branching_bad.py": [
        ("host-branching-density", "warning", 13),
        ("no-host-tool-names", "error", 18),  # the guard names another tool
        ("unknown-tool-names", "warning", 19),  # "AskUserQuestions"
    ],
    "host_branching_good.py": [],
    "definition_bad.py": [
        ("duplicate-step", "error", 9),
        ("invalid-definition", "error", 13),  # no steps
        ("invalid-definition", "error", 31),  # nested composite
        ("invalid-definition", "error", 35),  # reference without topics
    ],
    "definition_good.py": [],
    "references_bad/refs_bad.py": [
        ("reference-too-large", "warning", 1),
        ("orphan-references", "warning", 1),
    ],
    "references_good/refs_good.py": [],
    "references_dynamic/refs_dynamic.py": [],
    "store_helper_bad.py": [("unguarded-store-access", "warning", 17)],
    # Each module loads one file; the other modules of the folder load the rest.
    "references_modules/desk.py": [("orphan-references", "warning", 1)],
    "references_modules/billing.py": [("orphan-references", "warning", 1)],
    "load_errors/raises.py": [("load-error", "error", 9)],
    "load_errors/exits.py": [("load-error", "error", 8)],
    "load_errors/bad_step.py": [("load-error", "error", 7)],
}


@pytest.mark.parametrize("fixture", sorted(EXPECTED))
def test_fixture_reports_exactly_the_expected_diagnostics(fixture: str) -> None:
    assert findings(check_fixture(fixture)) == EXPECTED[fixture]


def test_every_workflow_rule_has_a_failing_and_a_passing_fixture() -> None:
    failing = {rule for expected in EXPECTED.values() for rule, _, _ in expected}
    ids = {rule.id for rule in rules_for("workflow")}
    assert ids <= failing
    passing = [name for name, expected in EXPECTED.items() if not expected]
    assert len(passing) >= 9


def test_every_diagnostic_names_its_file_and_has_a_range() -> None:
    for fixture in EXPECTED:
        for diagnostic in check_fixture(fixture):
            assert diagnostic.file is not None
            assert diagnostic.range is not None, diagnostic


def test_cycle_guard_messages_name_the_loop_and_the_fix() -> None:
    found = check_fixture("cycle_guard_bad.py")
    messages = [d.message for d in found]
    assert messages[0].startswith("step 'poll' loops back to itself with no max_visits")
    assert "implicit limit of 10 visits" in messages[0]
    assert messages[1].startswith("steps 'draft', 'review' form a cycle; 'review' has max_visits=3")
    assert messages[2] == "step 'ask': on_max_visits='finsh' is not a step; did you mean 'finish'?"
    assert [d.step for d in found] == ["poll", "review", "ask", "retry", "finish"]


def test_unknown_step_ranges_cover_exactly_the_misspelt_name() -> None:
    found = check_fixture("unknown_step_bad.py")
    text = (FIXTURES / "unknown_step_bad.py").read_text().splitlines()
    names = [
        text[d.range.line][d.range.column : d.range.end_column]  # type: ignore[union-attr]
        for d in found
    ]
    assert names == ["verfiy", "abrot", "verfy", "report", "strat", "autth", "__parent__"]
    assert "did you mean 'verify'?" in found[0].message
    assert "names no registered topic; did you mean 'auth'?" in found[-2].message
    assert found[-1].message.startswith(
        "step 'ask': next returns '__parent__', which was never replaced"
    )


def test_store_access_message_explains_which_path_skips_the_step() -> None:
    (finding,) = only(check_fixture("graph_bad.py"), "unguarded-store-access")
    assert finding.step == "report"
    assert "not every path from the entry to 'report' passes through 'scan'" in finding.message
    assert "ctx.store.steps.get('scan')" in finding.message


def test_store_access_through_a_shared_helper_names_every_step_at_risk() -> None:
    (finding,) = check_fixture("store_helper_bad.py")
    assert finding.step is None  # no one step to suppress it on: the helper's line
    assert finding.message == (
        "steps 'summary' and 'report' read ctx.store.steps['scan'] (in findings()), which "
        "raises when 'scan' has not run: not every path from the entry to 'summary' or "
        "'report' passes through 'scan'. Use ctx.store.steps.get('scan') and handle None"
    )


def test_schema_findings_quote_pydantics_reason() -> None:
    params, response = check_fixture("schema_bad.py")
    assert params.message.startswith("params=Params cannot produce a JSON Schema")
    assert "IsInstanceSchema" in params.message
    assert response.step == "plan" and "CallableSchema" in response.message


def test_primitive_mismatch_names_the_field_and_its_values() -> None:
    missing, extra, enum = check_fixture("primitive_schema_bad.py")
    assert missing.message == (
        "step 'choose': option 'prod' is not a value of Choose.target (Literal: "
        "'production', 'staging', 'dev'), so choosing it fails validation"
    )
    assert extra.message == (
        "step 'choose': Choose.target allows 'production', 'dev', which no option offers"
    )
    assert "Where.regions (Enum: 'eu', 'us')" in enum.message


def test_host_tool_findings_point_at_the_tool_name() -> None:
    found = check_fixture("host_tools_bad.py")
    lines = (FIXTURES / "host_tools_bad.py").read_text().splitlines()
    spans = [lines[d.range.line][d.range.column : d.range.end_column] for d in found]  # type: ignore[union-attr]
    assert spans == ["apply_patch", "AskUserQuestion", "TodoWrite", "Bash"]
    assert "Use act.ask_user(...) instead" in found[1].message
    assert "Use act.checklist(...) instead" in found[2].message


def test_reference_findings_are_about_the_reference_files() -> None:
    too_large, orphan = check_fixture("references_bad/refs_bad.py")
    assert too_large.file.endswith("references_bad/references/api.md")  # type: ignore[union-attr]
    assert "is 9.5 KB, over the 8 KB" in too_large.message
    assert orphan.file.endswith("references_bad/references/old-auth.md")  # type: ignore[union-attr]


def test_orphan_references_reads_every_module_of_the_folder() -> None:
    for module in ("desk.py", "billing.py"):
        (orphan,) = check_fixture(f"references_modules/{module}")
        assert orphan.file.endswith("references_modules/references/legacy.md")  # type: ignore[union-attr]
        assert "Python module of the skill's folder" in orphan.message


def test_shadowed_field_messages_name_the_field_and_the_safe_spelling() -> None:
    store, items, nested, *_ = check_fixture("shadowed_field_bad.py")
    assert store.message.startswith("store 'tally': field 'keys' is read back as a record")
    assert items.step == "order"
    assert "response field 'items'" in items.message and "read it as ['items']" in items.message
    assert "response field 'lines.values'" in nested.message


@pytest.mark.parametrize(
    "fixture",
    [
        "unknown_step_bad.py",
        "cycle_guard_bad.py",
        "definition_bad.py",
        "graph_bad.py",
        "composite_bad.py",
    ],
)
def test_the_syntax_layer_reports_findings_in_the_rules_words(fixture: str) -> None:
    # Editors show the syntax layer's finding until the semantic one confirms it (and then
    # only once): both must say the same thing under the same rule.
    from skillkit_core.source.diagnostics import structural_diagnostics
    from skillkit_core.source.index import index_source

    path = FIXTURES / fixture
    syntax = [
        (d.rule, d.severity, d.range.line if d.range else None, d.message)
        for d in structural_diagnostics(index_source(path.read_text()), file=str(path))
    ]
    semantic = {
        (d.rule, d.severity, d.range.line if d.range else None, d.message)
        for d in check_fixture(fixture)
    }
    assert syntax and set(syntax) <= semantic


def test_the_syntax_layer_offers_the_rules_fix_titles() -> None:
    from skillkit_core.source.diagnostics import structural_diagnostics
    from skillkit_core.source.index import index_source

    path = FIXTURES / "cycle_guard_bad.py"
    syntax = structural_diagnostics(index_source(path.read_text()), file=str(path))
    semantic = check_fixture("cycle_guard_bad.py")
    line = 40  # on_max_visits="finsh"
    (ours,) = [d for d in syntax if d.range is not None and d.range.line == line]
    (theirs,) = [d for d in semantic if d.range is not None and d.range.line == line]
    assert ours.fix is not None and theirs.fix is not None
    assert ours.fix.title == theirs.fix.title == "Change on_max_visits to 'finish'"


def test_a_broken_guard_to_a_topic_gets_a_fix_that_keeps_the_prefix(tmp_path) -> None:
    from skillkit_core.lint.check_workflow import check_entry

    path = tmp_path / "desk.py"
    path.write_text(
        "from skillkit_core import skill, terminal\n\n"
        "desk = (\n"
        '    skill(name="desk", entry="a", description="Desk.")\n'
        '    .step("a", prompt="A.", next="a", max_visits=2, on_max_visits="topic:autth")\n'
        '    .topic("auth", label="Auth", content="Token.")\n'
        "    .build()\n"
        ")\n"
    )
    (guard,) = [d for d in check_entry(path).diagnostics if d.rule == "cycle-guard"]
    assert guard.fix is not None and guard.fix.title == "Change on_max_visits to 'topic:auth'"
    (edit,) = guard.fix.edits
    line = path.read_text().splitlines()[edit.range.line]
    fixed = line[: edit.range.column] + edit.new_text + line[edit.range.end_column :]
    assert 'on_max_visits="topic:auth"' in fixed


def test_missing_response_messages_name_the_reader_and_the_fields(tmp_path) -> None:
    from skillkit_core.lint.load_worker import check_file

    source = tmp_path / "scan.py"
    source.write_text(
        "from skillkit_core import skill, terminal\n\n"
        'scan = (skill(name="scan", entry="scan", description="Scan and report.")\n'
        '    .step("scan", prompt="List the files.", next="report")\n'
        '    .step("report", prompt=lambda ctx: f"Report {ctx.store.steps.get(\'scan\').files}'
        " and {ctx.store.steps['scan'].total}.\", next=terminal)\n"
        "    .build())\n"
    )
    (finding,) = check_file(source).diagnostics
    assert finding.message.startswith(
        "step 'scan' has no response schema, but step 'report' reads "
        "store.steps['scan'].files as a record (fields: files, total)"
    )


def test_a_response_attribute_of_something_else_is_no_record_read(tmp_path) -> None:
    from skillkit_core.lint.load_worker import check_file

    source = tmp_path / "fetch.py"
    source.write_text(
        "from skillkit_core import branch, skill, terminal\n\n"
        'fetch = (skill(name="fetch", entry="fetch", description="Fetch a page.")\n'
        '    .step("fetch", prompt="Fetch it.", next=[branch("done", '
        'when=lambda ctx: ctx.action_result.response.ok), branch("done")])\n'
        '    .step("done", prompt="Done.", next=terminal)\n'
        "    .build())\n"
    )
    assert [d.rule for d in check_file(source).diagnostics] == []
