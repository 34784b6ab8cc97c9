"""Every lint rule, in one list. Adding a rule is adding its file and one line here (in
:data:`MANIFEST_RULES` or :func:`_workflow_rules`)."""

from __future__ import annotations

from skillkit_core.errors import UsageError
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.rules import (
    manifest_allowed_tools_broad,
    manifest_allowed_tools_unknown,
    manifest_argument_in_code,
    manifest_body_too_long,
    manifest_body_too_many_tokens,
    manifest_broken_link,
    manifest_claude_code_field,
    manifest_compatibility_length,
    manifest_description_length,
    manifest_dynamic_context_security,
    manifest_frontmatter_delimiters,
    manifest_frontmatter_duplicate_key,
    manifest_frontmatter_invalid_yaml,
    manifest_frontmatter_not_mapping,
    manifest_frontmatter_xml_tag,
    manifest_link_outside_skill,
    manifest_listing_too_long,
    manifest_metadata_string_map,
    manifest_missing_file_reference,
    manifest_name_folder_mismatch,
    manifest_name_format,
    manifest_non_portable_key,
    manifest_reference_depth,
    manifest_required_field,
    manifest_reserved_name_word,
    manifest_script_interpreter_mismatch,
    manifest_script_not_executable,
    manifest_script_security,
    manifest_script_shebang,
    manifest_secret_literal,
    manifest_skill_md_bom,
    manifest_skill_md_filename,
    manifest_skill_md_missing,
    manifest_skill_md_unreadable,
    manifest_undeclared_argument,
    manifest_unknown_key,
    manifest_unreferenced_file,
    manifest_yaml_not_strict,
    manifest_yaml_typed_scalar,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skillkit_core.lint.rule import RuleTarget

MANIFEST_RULES: tuple[Rule, ...] = (
    # SKILL.md: the Agent Skills specification
    manifest_skill_md_missing.RULE,
    manifest_skill_md_unreadable.RULE,
    manifest_frontmatter_delimiters.RULE,
    manifest_frontmatter_invalid_yaml.RULE,
    manifest_frontmatter_not_mapping.RULE,
    manifest_frontmatter_duplicate_key.RULE,
    manifest_required_field.RULE,
    manifest_name_format.RULE,
    manifest_name_folder_mismatch.RULE,
    manifest_description_length.RULE,
    manifest_compatibility_length.RULE,
    manifest_metadata_string_map.RULE,
    manifest_unknown_key.RULE,
    # SKILL.md: beyond the specification
    manifest_skill_md_filename.RULE,
    manifest_skill_md_bom.RULE,
    manifest_reserved_name_word.RULE,
    manifest_frontmatter_xml_tag.RULE,
    manifest_non_portable_key.RULE,
    manifest_yaml_typed_scalar.RULE,
    manifest_yaml_not_strict.RULE,
    manifest_broken_link.RULE,
    manifest_link_outside_skill.RULE,
    manifest_missing_file_reference.RULE,
    manifest_reference_depth.RULE,
    manifest_unreferenced_file.RULE,
    manifest_body_too_long.RULE,
    manifest_body_too_many_tokens.RULE,
    manifest_script_shebang.RULE,
    manifest_script_not_executable.RULE,
    manifest_script_interpreter_mismatch.RULE,
    manifest_undeclared_argument.RULE,
    manifest_argument_in_code.RULE,
    manifest_claude_code_field.RULE,
    manifest_listing_too_long.RULE,
    manifest_allowed_tools_broad.RULE,
    manifest_allowed_tools_unknown.RULE,
    manifest_script_security.RULE,
    manifest_dynamic_context_security.RULE,
    manifest_secret_literal.RULE,
)

# Findings only the language server makes: they need every skill of a workspace, which a
# folder check does not see. Configuration may name them like any rule.
EDITOR_RULE_IDS: tuple[str, ...] = ("unknown-skill-invocation",)

# Every rule, manifest rules first. The Python skill rules (and the linter modules they
# use) are imported on first use of RULES: checking SKILL.md folders never needs them.
RULES: tuple[Rule, ...]


def _workflow_rules() -> tuple[Rule, ...]:
    from skillkit_core.lint.rules import (
        workflow_composite_duplicate_subskill,
        workflow_composite_duplicate_topic,
        workflow_composite_step_name,
        workflow_cycle_guard,
        workflow_dead_end,
        workflow_duplicate_step,
        workflow_host_branching_density,
        workflow_invalid_definition,
        workflow_load_error,
        workflow_missing_response_schema,
        workflow_no_host_tool_names,
        workflow_orphan_references,
        workflow_primitive_schema_mismatch,
        workflow_reference_too_large,
        workflow_schema_not_serializable,
        workflow_shadowed_store_field,
        workflow_unguarded_store_access,
        workflow_unknown_step,
        workflow_unknown_tool_names,
        workflow_unreachable_step,
    )

    return (
        # Workflow: Python skill definitions (checked on the built definition + source)
        workflow_load_error.RULE,
        workflow_invalid_definition.RULE,
        workflow_duplicate_step.RULE,
        workflow_unknown_step.RULE,
        workflow_cycle_guard.RULE,
        workflow_unreachable_step.RULE,
        workflow_dead_end.RULE,
        workflow_unguarded_store_access.RULE,
        workflow_schema_not_serializable.RULE,
        workflow_shadowed_store_field.RULE,
        workflow_primitive_schema_mismatch.RULE,
        workflow_missing_response_schema.RULE,
        workflow_no_host_tool_names.RULE,
        workflow_unknown_tool_names.RULE,
        workflow_host_branching_density.RULE,
        workflow_composite_step_name.RULE,
        workflow_composite_duplicate_subskill.RULE,
        workflow_composite_duplicate_topic.RULE,
        workflow_orphan_references.RULE,
        workflow_reference_too_large.RULE,
    )


def _all_rules() -> tuple[Rule, ...]:
    rules = globals().get("RULES")
    if rules is None:
        rules = MANIFEST_RULES + _workflow_rules()
        globals()["RULES"] = rules
    return rules


def __getattr__(name: str) -> object:
    if name == "RULES":
        return _all_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownRuleError(UsageError):
    """A rule id given on the command line or in configuration does not exist."""

    code = "unknown-rule"


def get_rule(rule_id: str) -> Rule:
    """The rule with ``rule_id``; raises :class:`UnknownRuleError` naming close ids."""
    by_id = {rule.id: rule for rule in _all_rules()}
    rule = by_id.get(rule_id)
    if rule is not None:
        return rule
    import difflib

    close = difflib.get_close_matches(rule_id, by_id, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; 'skillkit rules' lists them"
    raise UnknownRuleError(f"unknown lint rule '{rule_id}'{hint}")


def rules_for(target: RuleTarget) -> tuple[Rule, ...]:
    """The rules that check ``target`` (``manifest`` or ``workflow``), in registry order."""
    rules = MANIFEST_RULES if target == "manifest" else _all_rules()
    return tuple(rule for rule in rules if rule.target == target)
