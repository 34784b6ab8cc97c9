"""The builder freezes valid skills and names the problem, the step and the fix otherwise."""

from typing import Literal

import pytest
from pydantic import BaseModel

from skillkit_core import PARENT, action, branch, module, reference, skill, step, terminal
from skillkit_core.definitions import SkillDefinition, StepDefinition
from skillkit_core.errors import SkillDefinitionError


class Answer(BaseModel):
    answer: str


def two_steps(**options):
    return (
        skill(name="demo", entry="a", **options)
        .step("a", prompt="A?", response=Answer, next="b")
        .step("b", prompt="B?", next=terminal)
    )


def test_build_gives_a_frozen_definition_with_steps_in_order() -> None:
    definition = two_steps(description="Demo.").build()
    assert isinstance(definition, SkillDefinition)
    assert list(definition.steps) == ["a", "b"]
    assert definition.description == "Demo."
    assert definition.steps["b"].is_terminal
    with pytest.raises(TypeError):
        definition.steps["c"] = definition.steps["a"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        definition.name = "other"  # type: ignore[misc]


def test_definition_remembers_the_file_that_defined_it() -> None:
    assert two_steps().build().source_file == __file__


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: skill(name="s", entry="a").build(), "has no steps"),
        (
            lambda: skill(name="s", entry="zz").step("a", prompt="x", next=terminal).build(),
            "entry 'zz' is not a step",
        ),
        (
            lambda: (
                skill(name="s", entry="a")
                .step("a", prompt="x", next=terminal)
                .step("a", prompt="y", next=terminal)
                .build()
            ),
            "step 'a': is defined twice",
        ),
        (
            lambda: skill(name="s", entry="a").step("a", prompt="x", next="nope").build(),
            "next 'nope' is not a step",
        ),
        (
            lambda: (
                skill(name="s", entry="a")
                .step("a", prompt="x", next=[branch("gone", when=lambda c: True), branch("a")])
                .build()
            ),
            "branch to 'gone' 'gone' is not a step",
        ),
        (
            lambda: (
                skill(name="s", entry="a")
                .step("a", prompt="x", next="self", max_visits=2, on_max_visits="missing")
                .build()
            ),
            "on_max_visits 'missing' is not a step",
        ),
        (
            lambda: skill(name="s", entry="a").step("a", prompt="x", next="subskill:doc").build(),
            "names no registered sub-skill",
        ),
    ],
)
def test_build_rejects_broken_skills_naming_skill_and_step(make, message) -> None:
    with pytest.raises(SkillDefinitionError) as caught:
        make()
    assert message in str(caught.value)
    assert "skill 's'" in str(caught.value)


def test_lenient_build_records_every_problem_instead_of_raising() -> None:
    definition = (
        skill(name="s", entry="a")
        .step("a", prompt="x", next="nope")
        .step("a", prompt="y", next="gone")
        .build(strict=False)
    )
    assert len(definition.problems) == 2
    assert any("defined twice" in p for p in definition.problems)
    assert any("'nope' is not a step" in p for p in definition.problems)


def test_response_without_prompt_is_refused_at_once() -> None:
    with pytest.raises(SkillDefinitionError, match="step 'a': has response= but no prompt="):
        skill(name="s", entry="a").step("a", response=Answer, next=terminal)


def test_version_and_resolve_version_exclude_each_other() -> None:
    with pytest.raises(SkillDefinitionError, match="exclude each other"):
        skill(name="s", entry="a", version="1.0.0", resolve_version=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"next": 42}, "next= must be a step name"),
        ({"next": terminal, "max_visits": 0}, "max_visits must be a positive integer"),
        ({"next": terminal, "save": "nope"}, "save must be a callable"),
        ({"next": terminal, "response": "str"}, "response must be a pydantic model"),
        ({"next": terminal, "action": 3}, "action= must be action(...)"),
        ({"next": terminal, "prompt": 3.5}, "prompt= must be a string"),
        ({"next": [branch("a"), branch("b", when=lambda c: True)]}, "is not the last branch"),
    ],
)
def test_wrong_types_name_the_step_and_the_fix(kwargs, message) -> None:
    kwargs.setdefault("prompt", "x")
    with pytest.raises(SkillDefinitionError) as caught:
        skill(name="s", entry="a").step("a", **kwargs)
    assert "skill 's', step 'a'" in str(caught.value)
    assert message in str(caught.value)


def test_every_frontmatter_field_is_kept() -> None:
    definition = two_steps(
        description="d",
        version="1.2.3",
        triggers=["deploy"],
        argument_hint="[env]",
        arguments=["env"],
        allowed_tools=["Read"],
        paths="src/**",
        context="fork",
        license="MIT",
        compatibility="Python 3.11+",
        agent="general",
        model="opus",
        effort="high",
        disable_model_invocation=True,
        user_invocable=False,
        package={"name": "@org/demo"},
    ).build()
    meta = definition.meta
    assert meta.triggers == ("deploy",)
    assert meta.arguments == ("env",)
    assert meta.allowed_tools == ("Read",)
    assert meta.paths == ("src/**",)
    assert (meta.context, meta.license, meta.effort) == ("fork", "MIT", "high")
    assert meta.disable_model_invocation is True and meta.user_invocable is False
    assert meta.package == {"name": "@org/demo"}


def test_extend_overrides_a_template_and_requires_a_real_next() -> None:
    template = step(response=Answer, next=PARENT)
    definition = (
        skill(name="s", entry="ask")
        .extend("ask", template, prompt="Ask it.", next="end")
        .step("end", prompt="Bye.", next=terminal)
        .build()
    )
    assert definition.steps["ask"].response is not None
    assert definition.steps["ask"].next == "end"
    with pytest.raises(SkillDefinitionError, match="still '__parent__'"):
        skill(name="s", entry="ask").extend("ask", template, prompt="Ask.").build()


def test_register_rewrites_parent_in_next_branches_and_callables() -> None:
    auth = (
        module(name="auth", entry="login")
        .step(
            "login",
            prompt="Log in.",
            response=Answer,
            next=[branch(PARENT, when=lambda c: c.response.answer == "ok"), branch("retry")],
        )
        .step("retry", prompt="Again.", next=lambda ctx: PARENT)
        .build()
    )
    definition = (
        skill(name="app", entry="start")
        .step("start", prompt="Hi.", next="login")
        .register(auth, next="home")
        .step("home", prompt="Home.", next=terminal)
        .build()
    )
    login = definition.steps["login"]
    assert isinstance(login, StepDefinition)
    assert [b.to for b in login.next] == ["home", "retry"]
    assert definition.steps["retry"].next(None) == "home"


def test_composite_rules_are_enforced_at_build() -> None:
    sub = skill(name="sub", entry="x").step("x", prompt="x", next=terminal).build()
    with pytest.raises(SkillDefinitionError) as caught:
        (
            skill(name="d", entry="a/b")
            .step("a/b", prompt="x", next="subskill:sub")
            .subskill("sub", sub)
            .subskill("sub", sub)
            .topic("t", label="T", content="t")
            .topic("t", label="T", content="t")
            .build()
        )
    text = str(caught.value)
    assert "sub-skill 'sub' is registered twice" in text
    assert "topic 't' is registered twice" in text
    assert "cannot contain '/'" in text
    nested = skill(name="n", entry="a").step("a", prompt="x", next=terminal).subskill("sub", sub)
    with pytest.raises(SkillDefinitionError, match="do not nest"):
        skill(name="top", entry="a").step("a", prompt="x", next=terminal).subskill(
            "n", nested.build()
        ).build()


def test_action_and_reference_builders_check_their_inputs() -> None:
    with pytest.raises(SkillDefinitionError, match="run= must be a callable"):
        action("a", input=Answer, output=Answer)
    with pytest.raises(SkillDefinitionError, match=r"needs at least one \.topic"):
        reference(name="r", description="d").build()
    ref = reference(name="r", description="d").topic("t", label="T", content="body").build()
    assert ref.topic("t").content == "body"


def test_unknown_observer_events_are_refused() -> None:
    with pytest.raises(SkillDefinitionError, match="unknown observer event 'on_start'"):
        skill(name="s", entry="a", observers={"on_start": print})


def test_stores_must_be_identifiers_and_not_reserved() -> None:
    with pytest.raises(SkillDefinitionError, match="reserved"):
        skill(name="s", entry="a", stores={"steps": dict})
    with pytest.raises(SkillDefinitionError, match="identifier"):
        skill(name="s", entry="a", stores={"my-store": dict})


def test_literal_type_is_a_valid_response_schema() -> None:
    definition = (
        skill(name="s", entry="a")
        .step("a", prompt="x", response=Literal["yes", "no"], next=terminal)
        .build()
    )
    assert definition.steps["a"].response.json_schema() == {"enum": ["yes", "no"], "type": "string"}


def test_lenient_builds_block_records_problems_for_editors() -> None:
    from skillkit_core.builder.skill import lenient_builds

    with lenient_builds():
        definition = skill(name="s", entry="zz").step("a", prompt="x", next="nope").build()
        ref = reference(name="r", description="d").build()
    assert len(definition.problems) == 2 and ref.problems
    with pytest.raises(SkillDefinitionError):
        skill(name="s", entry="zz").step("a", prompt="x", next=terminal).build()


class NotAType:
    """A plain class: pydantic cannot make a schema of it."""


@pytest.mark.parametrize(
    ("options", "step_options", "named"),
    [
        ({}, {"response": NotAType}, "skill 'demo', step 'a': response=NotAType"),
        ({}, {"response": list[NotAType]}, "skill 'demo', step 'a': response=list"),
        ({"params": NotAType}, {}, "skill 'demo': params=NotAType"),
        ({"final_output": NotAType}, {}, "skill 'demo': final_output=NotAType"),
        ({"stores": {"notes": NotAType}}, {}, "skill 'demo': stores['notes']=NotAType"),
        (
            {},
            {"action": action("fetch", input=NotAType, run=lambda ctx: None)},
            "skill 'demo', step 'a': action 'fetch' input=NotAType",
        ),
    ],
    ids=["response", "nested-response", "params", "final-output", "store", "action-input"],
)
def test_types_pydantic_cannot_describe_fail_the_build_naming_skill_step_and_schema(
    options, step_options, named
) -> None:
    with pytest.raises(SkillDefinitionError) as raised:
        (
            skill(name="demo", entry="a", **options)
            .step("a", prompt="A?", next=terminal, **step_options)
            .build()
        )
    assert named in str(raised.value)
    assert "pydantic can make a schema of" in str(raised.value)
    assert "PydanticSchemaGenerationError" in str(raised.value)


def test_a_lenient_build_records_an_unusable_schema_and_the_engine_refuses_to_run() -> None:
    from skillkit_core.builder.skill import lenient_builds
    from skillkit_core.engine import WorkflowEngine
    from skillkit_core.errors import SkillRuntimeError

    with lenient_builds():
        definition = (
            skill(name="demo", entry="a")
            .step("a", prompt="A?", response=NotAType, next=terminal)
            .build()
        )
    assert len(definition.problems) == 1
    assert "step 'a': response=NotAType" in definition.problems[0]
    with pytest.raises(SkillRuntimeError, match="response=NotAType"):
        WorkflowEngine(definition)


def test_usable_schemas_pass_the_build_check() -> None:
    definition = (
        skill(name="demo", entry="a", params=dict[str, int], stores={"s": Answer})
        .step("a", prompt="A?", response=Literal["x", "y"] | None, next="b")
        .step("b", prompt="B?", response=tuple[int, ...], next=terminal)
        .build()
    )
    assert definition.problems == ()
