"""``topics`` and ``topic NAME``: a composite's or a reference skill's on-demand content."""

from __future__ import annotations

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition, Topic
from skillkit_core.errors import UsageError
from skillkit_core.hosts import Handshake

Owner = SkillDefinition | ReferenceDefinition


def topic_lines(definition: Owner) -> str:
    """One ``name: label`` line per topic."""
    return "".join(f"{topic.name}: {topic.label}\n" for topic in _topics(definition))


def find_topic(definition: Owner, name: str) -> Topic:
    """The topic called ``name``; an ``unknown_topic`` error lists the known ones."""
    topics = _topics(definition)
    topic = definition.topic(name)
    if topic is None:
        known = ", ".join(t.name for t in topics)
        raise UsageError(
            f"'{definition.name}' has no topic '{name}' (topics: {known})", code="unknown_topic"
        )
    return topic


def read_topic(definition: Owner, name: str, handshake: Handshake) -> str:
    """The content of topic ``name`` (lazy content is resolved with the skill's refs)."""
    from skillkit_core.composite import topic_content
    from skillkit_core.refs import ReferenceLoader

    topic = find_topic(definition, name)
    refs = ReferenceLoader.beside(definition.source_file)
    return topic_content(definition, topic, refs, handshake)


def _topics(definition: Owner) -> tuple[Topic, ...]:
    if not definition.topics:
        raise UsageError(f"'{definition.name}' has no topics")
    return definition.topics
