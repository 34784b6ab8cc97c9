"""The rule registry: ids, docs, one file per rule, lookups."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillkit_core.lint import registry
from skillkit_core.lint.registry import RULES, UnknownRuleError, get_rule, rules_for
from skillkit_core.lint.rule import Rule

RULES_DIR = Path(registry.__file__).parent / "rules"


def test_rule_ids_are_unique_kebab_case() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule_id in ids:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule_id), rule_id


@pytest.mark.parametrize("rule", rules_for("manifest"), ids=lambda rule: rule.id)
def test_manifest_rule_is_documented_and_lives_in_its_own_file(rule: Rule) -> None:
    assert rule.severity in ("error", "warning", "info")
    for text in (rule.summary, rule.rationale, rule.bad, rule.good):
        assert text.strip()
    assert "\n" not in rule.summary
    module = rule.check.__module__.rsplit(".", 1)[-1]
    assert module == "manifest_" + rule.id.replace("-", "_")
    assert (RULES_DIR / f"{module}.py").is_file()


def test_every_manifest_rule_file_is_registered() -> None:
    files = {path.stem for path in RULES_DIR.glob("manifest_*.py")}
    registered = {rule.check.__module__.rsplit(".", 1)[-1] for rule in rules_for("manifest")}
    assert files == registered


def test_get_rule_finds_and_suggests() -> None:
    assert get_rule("name-format").id == "name-format"
    with pytest.raises(UnknownRuleError) as caught:
        get_rule("name-fromat")
    assert caught.value.code == "unknown-rule"
    assert "did you mean name-format" in caught.value.message


def test_spec_rules_are_the_specification_checks() -> None:
    spec = {rule.id for rule in RULES if rule.spec}
    assert {"required-field", "name-format", "name-folder-mismatch", "unknown-key"} <= spec
    assert "broken-link" not in spec


def test_rules_whose_fixes_change_meaning_only_suggest_them() -> None:
    suggesting = {rule.id for rule in RULES if rule.suggest is not None}
    assert {"name-folder-mismatch", "cycle-guard"} <= suggesting
    assert not next(rule for rule in RULES if rule.id == "name-folder-mismatch").fixable


def test_fixable_rules() -> None:
    fixable = {rule.id for rule in RULES if rule.fixable}
    assert fixable >= {
        "name-format",
        "script-shebang",
        "frontmatter-invalid-yaml",
        "yaml-typed-scalar",
    }
