"""Frontmatter as a YAML 1.2 reader types it (the core schema), for what hosts compare.

PyYAML implements YAML 1.1, where ``yes`` is a boolean, ``017`` an octal 15, ``1:30``
the sexagesimal 90 and ``2025-01-01 10:00`` a timestamp. The hosts and clients that read
a SKILL.md today use YAML 1.2 readers (js-yaml 4 in Gemini CLI, Bun's in Claude Code,
the ``yaml`` package in the TypeScript MCP SDK, whose skills client compares the
frontmatter ``skills/list`` gives with its own reading of the file and refuses the skill
on any difference: SEP-2640, "Integrity and verification"). Under the 1.2 core schema
those four are strings, 17, a string and a string.
"""

from __future__ import annotations

import functools
import re
from typing import Any

# YAML 1.2.2, 10.3.2 "Tag Resolution" of the core schema.
_CORE = (
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", list("tTfF")),
    ("tag:yaml.org,2002:int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        list("-+0123456789."),
    ),
)


@functools.cache
def _loader(unique_keys: bool = False) -> type:
    import yaml

    class Core12Loader(yaml.SafeLoader):
        """PyYAML's safe loader with the YAML 1.2 core schema's implicit types."""

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if unique_keys and isinstance(node, yaml.MappingNode):
                seen = set()
                for key_node, _ in node.value:
                    key = getattr(key_node, "value", None)
                    if isinstance(key_node, yaml.ScalarNode) and key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"duplicated mapping key {key!r}", key_node.start_mark
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    Core12Loader.yaml_implicit_resolvers = {}
    for tag, pattern, first in _CORE:
        Core12Loader.add_implicit_resolver(tag, re.compile(rf"^(?:{pattern})$"), first)
    Core12Loader.add_constructor("tag:yaml.org,2002:int", _integer)
    Core12Loader.add_constructor("tag:yaml.org,2002:bool", _boolean)
    return Core12Loader


def _integer(loader: Any, node: Any) -> int:
    text = loader.construct_scalar(node)
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)  # 017 is seventeen in YAML 1.2


def _boolean(loader: Any, node: Any) -> bool:
    return loader.construct_scalar(node).lower() == "true"


def load_core12(text: str, *, unique_keys: bool = False) -> Any:
    """``text`` read as YAML 1.2 (core schema); raises ``yaml.YAMLError``. With
    ``unique_keys``, a key repeated in a mapping is an error, as js-yaml makes it."""
    import yaml

    return yaml.load(text, Loader=_loader(unique_keys))
