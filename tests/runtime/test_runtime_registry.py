"""Skill discovery: nested roots, depth, invalid and duplicate skills, records."""

from __future__ import annotations

import datetime
import hashlib
import re
import shutil
from pathlib import Path

import pytest

from skillkit_core.runtime.errors import RegistryError, UnknownSkillError
from skillkit_core.runtime.registry import discover_skills, json_safe
from tests.runtime.support import SKILLS, SkillTree


def warnings_text(registry) -> str:
    return "\n".join(str(warning) for warning in registry.warnings)


def test_nested_roots_find_skills_at_every_level_up_to_the_depth() -> None:
    registry = discover_skills([SKILLS / "library", SKILLS / "single", SKILLS / "workflows"])
    assert registry.names == ["toolbox", "summarize", "single", "deploy-flow"]


def test_depth_limits_how_far_below_a_root_skills_are_found() -> None:
    assert discover_skills([SKILLS / "library"], max_depth=2).names == ["toolbox"]
    assert discover_skills([SKILLS / "library"], max_depth=0).names == []
    assert discover_skills([SKILLS / "single"], max_depth=0).names == ["single"]


def test_a_skill_below_the_depth_is_named_in_a_warning() -> None:
    # Skills the depth leaves out were dropped without a word (a corpus at depth 5).
    found = discover_skills([SKILLS / "library"], max_depth=2)
    deeper = [w for w in found.warnings if "deeper than the discovery depth" in w.message]
    assert [(Path(w.path).name, w.message.split(",")[0]) for w in deeper] == [
        ("summarize", f"not served: a skill 3 levels below {SKILLS / 'library'}")
    ]
    assert "raise --depth" in deeper[0].message
    assert not [
        w for w in discover_skills([SKILLS / "library"]).warnings if "discovery depth" in w.message
    ]


def test_negative_depth_is_refused() -> None:
    with pytest.raises(RegistryError, match="depth"):
        discover_skills([SKILLS], max_depth=-1)


def test_a_skill_md_file_can_be_given_as_a_root() -> None:
    assert discover_skills([SKILLS / "single" / "SKILL.md"]).names == ["single"]


def test_a_missing_root_is_an_error_naming_it() -> None:
    with pytest.raises(RegistryError, match=r"nowhere.*does not exist"):
        discover_skills([SKILLS / "nowhere"])


def test_invalid_skills_are_skipped_with_a_warning_naming_file_and_problem() -> None:
    registry = discover_skills([SKILLS / "library"])
    text = warnings_text(registry)
    library = (SKILLS / "library").resolve()
    assert f"{library}/broken-no-description/SKILL.md: skipped: the frontmatter has no " in text
    assert f"{library}/broken-yaml/SKILL.md: skipped: invalid YAML" in text
    assert re.search(rf"{re.escape(str(library))}/Bad_Name/SKILL.md: skipped: .*'Bad_Name'", text)
    assert not {"broken-no-description", "broken-yaml", "Bad_Name"} & set(registry.names)


def test_hidden_folders_and_folders_inside_skills_are_not_searched() -> None:
    names = discover_skills([SKILLS / "library"], max_depth=5).names
    assert "secret" not in names  # library/.hidden/secret
    assert "example-skill" not in names  # library/toolbox/assets/example-skill


def test_duplicate_names_go_to_the_earlier_root_with_a_warning_naming_both_files() -> None:
    registry = discover_skills([SKILLS / "library", SKILLS / "shadow"])
    assert registry.get("toolbox").root_dir == (SKILLS / "library/toolbox").resolve()
    shadow = (SKILLS / "shadow/toolbox/SKILL.md").resolve()
    first = (SKILLS / "library/toolbox/SKILL.md").resolve()
    assert (
        f"{shadow}: skipped: skill name 'toolbox' is already taken by {first} "
        "(earlier roots win)" in warnings_text(registry)
    )
    reversed_order = discover_skills([SKILLS / "shadow", SKILLS / "library"])
    assert reversed_order.get("toolbox").root_dir == (SKILLS / "shadow/toolbox").resolve()


def test_overlapping_roots_list_a_skill_once_without_a_duplicate_warning() -> None:
    registry = discover_skills([SKILLS / "library", SKILLS / "library" / "toolbox"])
    assert registry.names.count("toolbox") == 1
    assert "already taken" not in warnings_text(registry)


def test_record_fields_follow_the_runtime_seed() -> None:
    record = discover_skills([SKILLS / "library"]).get("toolbox")
    skill_md = (SKILLS / "library/toolbox/SKILL.md").resolve()
    assert record.location == skill_md
    assert record.location.is_absolute()
    assert record.root_dir == skill_md.parent
    assert record.digest == "sha256:" + hashlib.sha256(skill_md.read_bytes()).hexdigest()
    assert record.properties == {
        "name": "toolbox",
        "description": record.description,
        "license": "MIT",
        "metadata": {"author": "skillkit tests", "version": "1.0"},
        "allowed-tools": "Read Bash",
    }
    assert record.body.lstrip().startswith("# Toolbox")
    assert record.receipt() == {
        "name": "toolbox",
        "location": str(skill_md),
        "root_dir": str(skill_md.parent),
        "digest": record.digest,
        "properties": record.properties,
    }


def test_symlinks_out_of_the_root_are_not_followed_and_cycles_end(skill_tree: SkillTree) -> None:
    registry = discover_skills([skill_tree.root("linked-root"), skill_tree.library], max_depth=6)
    assert registry.names == ["toolbox", "summarize"]  # library/team/loop is walked once
    link = skill_tree.root("linked-root") / "single-link"
    expected = f"not searched: the symlink leads to {skill_tree.root('single').resolve()}"
    assert f"{link}: {expected}, outside the root" in warnings_text(registry)


def test_symlinks_inside_the_root_are_followed_once(tmp_path: Path) -> None:
    real = tmp_path / "root" / "skills" / "real-skill"
    real.mkdir(parents=True)
    (real / "SKILL.md").write_text("---\nname: real-skill\ndescription: d\n---\nbody\n")
    (tmp_path / "root" / "alias").symlink_to(real, target_is_directory=True)
    registry = discover_skills([tmp_path / "root"])
    assert registry.names == ["real-skill"]
    assert registry.get("real-skill").root_dir == real.resolve()


def test_a_skill_md_linked_from_outside_the_root_is_not_served(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "borrowed"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text("---\nname: borrowed\ndescription: d\n---\nbody\n")
    inside = tmp_path / "root" / "borrowed"
    inside.mkdir(parents=True)
    (inside / "SKILL.md").symlink_to(outside / "SKILL.md")
    registry = discover_skills([tmp_path / "root"])
    assert registry.names == []
    # Not read at all, so its text reaches no client (nor where it leads).
    assert "it is a symbolic link to a file outside the skill folder, which is not read" in (
        warnings_text(registry)
    )


def test_a_name_that_differs_from_its_folder_is_served_with_a_warning(tmp_path) -> None:
    folder = tmp_path / "folder-name"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: other-name\ndescription: d\n---\nbody\n")
    registry = discover_skills([tmp_path])
    assert registry.names == ["other-name"]
    assert "differs from its folder name 'folder-name'" in warnings_text(registry)


def test_unknown_names_get_close_matches_and_the_available_list() -> None:
    registry = discover_skills([SKILLS / "library"])
    with pytest.raises(UnknownSkillError, match=r"'toolbx'.*did you mean 'toolbox'"):
        registry.get("toolbx")


def test_reread_picks_up_an_edited_skill_and_refuses_a_broken_one(own_tree: SkillTree) -> None:
    registry = discover_skills([own_tree.library])
    skill_md = own_tree.toolbox / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("# Toolbox", "# Toolbox v2"))
    fresh = registry.reread("toolbox")
    assert "# Toolbox v2" in fresh.body
    assert fresh.digest != registry.get("toolbox").digest
    skill_md.write_text("no frontmatter any more\n")
    with pytest.raises(UnknownSkillError, match=r"can no longer be loaded.*'---'"):
        registry.reread("toolbox")
    shutil.rmtree(own_tree.toolbox)
    with pytest.raises(UnknownSkillError, match=r"no SKILL\.md"):
        registry.reread("toolbox")


def test_properties_are_json_data_even_for_yaml_only_types() -> None:
    value = {"when": datetime.date(2025, 1, 2), "n": float("nan"), "tags": {"a"}, 1: b"x"}
    assert json_safe(value) == {"when": "2025-01-02", "n": "nan", "tags": ["a"], "1": "x"}


@pytest.mark.parametrize(
    ("frontmatter", "rule"),
    [
        ("name: listed\ndescription: ''", "required-field"),
        ("name: [a, b]\ndescription: d", "required-field"),
        ("name: listed\ndescription: " + "x" * 1025, "description-length"),
        ("name: Listed--Skill\ndescription: d", "name-format"),
    ],
)
def test_the_linters_serving_rules_decide_validity(tmp_path, frontmatter: str, rule: str) -> None:
    folder = tmp_path / "listed"
    folder.mkdir()
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}\n---\nbody\n")
    registry = discover_skills([tmp_path])
    assert registry.names == []
    (warning,) = registry.warnings
    assert warning.path == str(folder / "SKILL.md")
    assert warning.message.startswith("skipped: ") and warning.message.endswith(f"[{rule}]")


def test_advice_from_other_lint_rules_does_not_stop_serving(tmp_path) -> None:
    folder = tmp_path / "advice"
    folder.mkdir()
    # An unknown key and a link to a missing file are lint findings, not serving problems.
    (folder / "SKILL.md").write_text(
        "---\nname: advice\ndescription: d\nflavour: mint\n---\nSee [x](references/none.md).\n"
    )
    assert discover_skills([tmp_path]).names == ["advice"]


def nested_tree(base: Path) -> Path:
    """A root whose skill ``outer`` holds skills of its own, and a top-level ``inner``."""

    def skill(folder: Path, name: str) -> None:
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n")

    root = base / "root"
    outer = root / "a-outer" / "outer"
    skill(outer, "outer")
    skill(outer / "parts" / "inner", "inner")  # named like a later top-level skill
    skill(outer / "parts" / "unique", "unique")
    skill(outer / "parts" / "unique" / "deeper", "deeper")
    skill(outer / "assets" / "template", "template")
    skill(outer / "scripts" / "fixture", "fixture")
    skill(outer / "references" / "copy", "copy")
    skill(outer / ".hidden" / "secret", "secret")
    skill(outer / "a" / "b" / "c" / "too-deep", "too-deep")
    skill(root / "z-top" / "inner", "inner")
    return root


def test_nested_skills_follow_the_top_level_ones(tmp_path: Path) -> None:
    registry = discover_skills([nested_tree(tmp_path)])
    assert registry.names == ["outer", "inner", "unique", "deeper"]
    # The top-level 'inner' keeps its name; the nested one is served by its path only.
    assert registry.get("inner").skill_path == ("z-top", "inner")
    assert [h.skill_path for h in registry.homonyms] == [("a-outer", "outer", "parts", "inner")]
    assert registry.get("deeper").skill_path == (
        *("a-outer", "outer", "parts", "unique", "deeper"),
    )
    # Nothing from scripts/, references/, assets/, hidden folders or beyond the depth.
    served = {record.name for record in registry.served}
    assert not served & {"template", "fixture", "copy", "secret", "too-deep"}
    assert "too-deep" in discover_skills([nested_tree(tmp_path / "d")], max_depth=4).names


def test_a_nested_skill_is_read_again_at_its_own_path(tmp_path: Path) -> None:
    registry = discover_skills([nested_tree(tmp_path)])
    unique = registry.get("unique")
    assert unique.source_root == registry.get("outer").root_dir
    assert registry.refresh(unique).skill_path == unique.skill_path


def test_the_nested_search_stays_inside_the_skill(tmp_path: Path) -> None:
    root = nested_tree(tmp_path)
    outer = root / "a-outer" / "outer"
    elsewhere = tmp_path / "elsewhere" / "stray"
    elsewhere.mkdir(parents=True)
    (elsewhere / "SKILL.md").write_text("---\nname: stray\ndescription: d\n---\nbody\n")
    (outer / "linked-out").symlink_to(elsewhere.parent, target_is_directory=True)
    (outer / "again").symlink_to(outer / "parts", target_is_directory=True)
    registry = discover_skills([root])
    assert "stray" not in {record.name for record in registry.served}
    # The folder reached twice (parts/ and the link again/ to it) is searched once, by its
    # first name in sorted order, the name the enclosing skill's file listing uses too.
    assert [r.skill_path[-1] for r in registry.served].count("unique") == 1
    assert registry.get("unique").skill_path == ("a-outer", "outer", "again", "unique")
    assert (
        f"{outer / 'linked-out'}: not searched: the symlink leads to {elsewhere.parent}, "
        "outside skill 'outer'" in warnings_text(registry)
    )


def test_a_skill_whose_path_holds_control_characters_is_skipped_and_named_safely(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "esc\x1b]0;T\x07x"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: escx\ndescription: D. Use when x.\n---\nBody\n")
    registry = discover_skills([tmp_path])
    assert list(registry) == []
    (warning,) = registry.warnings
    assert str(warning) == (
        f"{tmp_path}/esc\\x1b]0;T\\x07x/SKILL.md: skipped: its path holds control characters"
    )
