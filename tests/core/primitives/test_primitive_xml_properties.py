"""For any text an author (or a store value) puts into a primitive, the rendered tag is
well-formed XML and gives the values back unchanged."""

import re
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from skillkit_core.primitives import act
from skillkit_core.primitives.base import xml_attr, xml_text
from skillkit_core.primitives.registry import render_primitive

# Every character XML 1.0 can carry (no surrogates, no C0 controls besides tab/LF/CR).
NOT_IN_XML = [chr(c) for c in range(32) if chr(c) not in "\t\n\r"] + ["\ufffe", "\uffff"]
xml_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters=NOT_IN_XML)
text = st.text(xml_chars, min_size=1, max_size=40).filter(lambda s: s.strip())
tricky = st.one_of(
    text,
    st.sampled_from(['"', "<", "&", "]]>", "é ü 漢字 🚀", "a\r\nb", "\t"]).map(lambda s: s + "x"),
)
header = st.text(xml_chars, min_size=1, max_size=12).filter(lambda s: s.strip())
option = st.fixed_dictionaries(
    {"value": tricky, "label": tricky},
    optional={"description": tricky, "preview": tricky},
)
options = st.lists(option, min_size=2, max_size=4, unique_by=lambda o: o["value"])


def _options_back(element: ET.Element) -> list[dict]:
    back = []
    for child in element.findall("option"):
        item = {"value": child.get("value"), "label": child.get("label")}
        if child.text:
            item["description"] = child.text
        preview = child.find("preview")
        if preview is not None:
            item["preview"] = preview.text or ""
        back.append(item)
    return back


@settings(max_examples=150)
@given(question=tricky, opts=options, head=st.none() | header, multi=st.booleans())
def test_structured_ask_user_round_trips(question, opts, head, multi):
    xml = render_primitive(
        act.ask_user(question=question, options=opts, header=head, multi_select=multi)
    )
    root = ET.fromstring(xml)
    assert root.tag == "ask-user"
    assert root.get("type") == "structured"
    assert root.get("question") == question
    assert root.get("header") == head
    assert root.get("multi-select") == ("true" if multi else None)
    assert _options_back(root) == opts


@given(question=tricky)
def test_open_ask_user_round_trips(question):
    root = ET.fromstring(render_primitive(act.ask_user(type="open", question=question)))
    assert root.attrib == {"type": "open", "question": question}


@given(message=tricky, destructive=st.booleans(), default=st.sampled_from(["yes", "no"]))
def test_confirm_round_trips(message, destructive, default):
    segment = act.confirm(message, destructive=destructive, default_answer=default)
    root = ET.fromstring(render_primitive(segment))
    assert root.text == message
    assert root.get("default") == default
    assert root.get("destructive") == ("true" if destructive else None)


@given(summary=tricky, steps=st.lists(tricky, min_size=1, max_size=6))
def test_plan_round_trips(summary, steps):
    root = ET.fromstring(render_primitive(act.plan(summary, steps)))
    assert root.get("summary") == summary
    assert [step.text for step in root.findall("step")] == steps


@given(titles=st.lists(tricky, min_size=1, max_size=6))
def test_checklist_round_trips(titles):
    root = ET.fromstring(render_primitive(act.checklist([{"title": t} for t in titles])))
    assert [(item.text, item.get("status")) for item in root] == [(t, "pending") for t in titles]


@given(prompt=tricky, skill=tricky)
def test_subagent_round_trips(prompt, skill):
    root = ET.fromstring(render_primitive(act.subagent(prompt, dict), skill_name=skill))
    assert root.text == prompt
    assert root.get("no-recurse") == skill


@settings(max_examples=100)
@given(
    questions=st.lists(
        st.fixed_dictionaries({"question": tricky, "options": options}), min_size=1, max_size=9
    )
)
def test_survey_blocks_round_trip(questions):
    xml = render_primitive(act.survey(questions))
    # "<" is always escaped inside values, so this split only cuts between blocks.
    first, *rest = xml.split("\n\n<survey>")
    blocks = [ET.fromstring(first)] + [ET.fromstring("<survey>" + block) for block in rest]
    back = [
        {"question": q.get("text"), "options": _options_back(q)}
        for block in blocks
        for q in block.findall("question")
    ]
    assert back == questions
    assert all(len(block) <= 4 for block in blocks)


@given(st.text(max_size=30))
def test_any_string_at_all_still_gives_well_formed_xml(value):
    # Characters XML cannot carry (controls, lone surrogates) become U+FFFD.
    expected = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", "\ufffd", value)
    root = ET.fromstring(f'<t a="{xml_attr(value)}">{xml_text(value)}</t>')
    assert root.get("a") == expected
    assert (root.text or "") == expected
