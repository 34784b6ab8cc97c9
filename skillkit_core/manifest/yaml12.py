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
def _loader(unique_keys: bool = False, js_yaml_3: bool = False) -> type:
    import yaml

    class Core12Loader(yaml.SafeLoader):
        """PyYAML's safe loader with the YAML 1.2 core schema's implicit types."""

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if unique_keys and isinstance(node, yaml.MappingNode):
                seen = set()
                for key_node, _ in node.value:
                    if not isinstance(key_node, yaml.ScalarNode):
                        continue
                    if key_node.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None,
                            None,
                            f"duplicated mapping key {key_node.value!r}",
                            key_node.start_mark,
                        )
                    seen.add(key_node.value)
            return super().construct_mapping(node, deep=deep)

    if js_yaml_3:
        # js-yaml 3's default safe schema: YAML 1.1's numbers, timestamps and merge keys
        # (as PyYAML has them), but only true and false as booleans, and a float's dot
        # optional (1e3 is a number); a key that is no scalar is made text.
        Core12Loader.yaml_implicit_resolvers = {
            first: [entry for entry in entries if entry[0] != "tag:yaml.org,2002:bool"]
            for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }
        for tag, pattern, first in (_CORE[1], _JS_YAML_3_EXPONENT):
            Core12Loader.add_implicit_resolver(tag, re.compile(rf"^(?:{pattern})$"), first)
        Core12Loader.add_constructor("tag:yaml.org,2002:bool", _boolean)
        Core12Loader.construct_mapping = _texts_for_keys(Core12Loader.construct_mapping)
        return Core12Loader
    Core12Loader.yaml_implicit_resolvers = {}
    for tag, pattern, first in _CORE:
        Core12Loader.add_implicit_resolver(tag, re.compile(rf"^(?:{pattern})$"), first)
    Core12Loader.add_constructor("tag:yaml.org,2002:int", _integer)
    Core12Loader.add_constructor("tag:yaml.org,2002:bool", _boolean)
    return Core12Loader


_JS_YAML_3_EXPONENT = (
    "tag:yaml.org,2002:float",
    r"[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+",
    list("-+0123456789"),
)


def _texts_for_keys(construct_mapping: Any) -> Any:
    """``construct_mapping`` that makes a key which is no scalar its text, as js-yaml 3
    does (PyYAML refuses a list or mapping as a key)."""
    import yaml

    def construct(loader: Any, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode) and any(
            not isinstance(key, yaml.ScalarNode) for key, _ in node.value
        ):
            node = yaml.MappingNode(
                node.tag,
                [(_as_text(key), value) for key, value in node.value],
                node.start_mark,
                node.end_mark,
                node.flow_style,
            )
        return construct_mapping(loader, node, deep=deep)

    return construct


def _as_text(node: Any) -> Any:
    import yaml

    if isinstance(node, yaml.ScalarNode):
        return node
    text = node.start_mark.buffer[node.start_mark.pointer : node.end_mark.pointer]
    return yaml.ScalarNode("tag:yaml.org,2002:str", text.strip(), node.start_mark, node.end_mark)


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


# What PyYAML takes for line breaks or a stream's mark and js-yaml for plain characters;
# the JS readers below put a letter in their place, so they tell the values' types (all
# the host verdicts ask of them), not always their exact text.
_JS_PLAIN = str.maketrans({"\x85": "x", "\u2028": "x", "\u2029": "x", "\ufeff": "x"})
_LEADING_TABS = re.compile(r"^\t+", re.MULTILINE)


def load_js_yaml_4(text: str) -> Any:
    """``text`` typed as js-yaml 4's ``load`` types it (Gemini CLI's reader): YAML 1.2's
    core schema, a repeated key an error, U+2028, U+2029 and U+0085 no line breaks.
    Raises ``yaml.YAMLError``."""
    return load_core12(text.translate(_JS_PLAIN), unique_keys=True)


def load_js_yaml_3(text: str) -> Any:
    """``text`` typed as js-yaml 3's ``safeLoad`` types it (OpenCode's reader): YAML 1.1's
    types but for booleans, which are only ``true`` and ``false``; a repeated key an
    error; U+2028, U+2029, U+0085 and leading tabs taken where PyYAML refuses them.
    Raises ``yaml.YAMLError``."""
    import yaml

    text = _LEADING_TABS.sub(lambda tabs: "  " * len(tabs.group()), text)
    return yaml.load(text.translate(_JS_PLAIN), Loader=_loader(True, True))
