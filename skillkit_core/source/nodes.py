"""Small readers of tree-sitter Python nodes: names, shapes, literal leaves, arguments.

Every loop here is bounded and nothing recurses on the tree's depth, so deeply nested
input cannot exhaust the stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skillkit_core.source.positions import decode

# How far parentheses and parents are followed: any real code is far below this.
MAX_CLIMB = 64


@dataclass
class Args:
    """The arguments of one call: positional values and keyword values by name."""

    positional: list[Any] = field(default_factory=list)
    keywords: dict[str, Any] = field(default_factory=dict)  # name -> value node
    items: list[tuple[str | None, Any, Any]] = field(default_factory=list)  # (name, arg, value)
    span: tuple[int, int] | None = None  # the argument list, parentheses included

    def first(self, keyword: str) -> Any:
        """The first positional argument, or the value of ``keyword``."""
        if self.positional:
            return self.positional[0]
        return self.keywords.get(keyword)

    def second(self, keyword: str) -> Any:
        """The second positional argument, or the value of ``keyword``."""
        if len(self.positional) > 1:
            return self.positional[1]
        return self.keywords.get(keyword)


def text(node: Any, data: bytes) -> str:
    """The source text of ``node``."""
    return decode(data[node.start_byte : node.end_byte])


def read_args(call: Any, data: bytes) -> Args:
    """The arguments of a ``call`` node (empty for ``f(x for x in y)`` and broken calls)."""
    found = Args()
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return found
    found.span = (arguments.start_byte, arguments.end_byte)
    for child in arguments.named_children:
        kind = child.type
        if kind == "keyword_argument":
            name_node = child.child_by_field_name("name")
            value = child.child_by_field_name("value")
            if name_node is None or value is None:
                continue
            name = text(name_node, data)
            found.keywords.setdefault(name, value)
            found.items.append((name, child, value))
        elif kind not in ("comment", "ERROR", "list_splat", "dictionary_splat"):
            found.positional.append(child)
            found.items.append((None, child, child))
    return found


def unwrap(node: Any) -> Any:
    """The expression inside any number of parentheses (None stays None)."""
    for _ in range(MAX_CLIMB):
        if node is None or node.type != "parenthesized_expression":
            return node
        node = next((child for child in node.named_children if child.type != "comment"), None)
    return node


def method_name(function: Any, data: bytes) -> str | None:
    """``m`` for an ``x.m`` attribute node, else None."""
    if function is None or function.type != "attribute":
        return None
    attribute = function.child_by_field_name("attribute")
    return text(attribute, data) if attribute is not None else None


def last_name(node: Any, data: bytes) -> str:
    """The last dotted part of a name or attribute: ``terminal`` of ``sk.terminal``."""
    return text(node, data).rsplit(".", 1)[-1].strip()


def is_act(node: Any, data: bytes) -> bool:
    """``act`` or ``<anything>.act``: the object of a primitive call."""
    if node.type == "identifier":
        return text(node, data) == "act"
    return node.type == "attribute" and method_name(node, data) == "act"


def is_steps_accessor(node: Any, data: bytes) -> bool:
    """``<anything>.store.steps`` or ``store.steps``."""
    if node is None or node.type != "attribute" or method_name(node, data) != "steps":
        return False
    owner = unwrap(node.child_by_field_name("object"))
    if owner is None:
        return False
    if owner.type == "identifier":
        return text(owner, data) == "store"
    return owner.type == "attribute" and method_name(owner, data) == "store"


def is_tools_available(node: Any, data: bytes) -> bool:
    """``<anything>.tools_available``."""
    return (
        node is not None
        and node.type == "attribute"
        and method_name(node, data) == "tools_available"
    )


def dot_start(attribute: Any) -> int:
    """Start of the ``.`` of ``x.method`` (where a chained call's range begins)."""
    for child in reversed(attribute.children):
        if child.type == ".":
            return child.start_byte
    name = attribute.child_by_field_name("attribute")
    return name.start_byte if name is not None else attribute.start_byte


def binding(top: Any, data: bytes) -> tuple[str | None, tuple[int, int]]:
    """(assigned variable, statement span) of the expression ``top``."""
    node = top
    for _ in range(MAX_CLIMB):
        parent = node.parent
        if parent is None or parent.type != "parenthesized_expression":
            break
        node = parent
    parent = node.parent
    if parent is not None and parent.type == "assignment":
        right = parent.child_by_field_name("right")
        left = parent.child_by_field_name("left")
        if (
            right is not None
            and right.id == node.id
            and left is not None
            and left.type == "identifier"
        ):
            return text(left, data), (parent.start_byte, parent.end_byte)
    return None, (node.start_byte, node.end_byte)


def literal_leaves(node: Any) -> tuple[list[Any], bool]:
    """String leaves of a literal or of conditional expressions over literals.

    Returns the string nodes found and whether every leaf was a string (``"a" if c else
    "b"`` is fully known; ``"a" if c else pick(ctx)`` is not).
    """
    if node is None:
        return [], False
    leaves: list[Any] = []
    known = True
    stack = [node]
    while stack:
        current = unwrap(stack.pop())
        if current is None:
            known = False
        elif current.type == "string":
            leaves.append(current)
        elif current.type == "conditional_expression":
            named = [child for child in current.named_children if child.type != "comment"]
            if len(named) < 3:
                known = False
                continue
            stack.append(named[2])
            stack.append(named[0])
        else:
            known = False
    return leaves, known


def enclosing_def(node: Any) -> int | None:
    """Id of the innermost ``def`` around ``node`` (a lambda or class stops the search)."""
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            return current.id
        if current.type in ("lambda", "class_definition"):
            return None
        current = current.parent
    return None


def ancestors(root: Any, target: Any) -> list[Any]:
    """The nodes from ``root`` down to ``target``'s parent (empty when not found).

    tree-sitter's ``Node.parent`` searches down from the tree's root each time, which is
    slow deep inside a long builder chain; one cursor walk down from a near root is not.
    """
    path: list[Any] = []
    cursor = root.walk()
    key = (target.start_byte, target.end_byte)
    for _ in range(100_000):
        node = cursor.node
        if node is None or node.id == target.id:
            return path
        if node.start_byte > key[0] or node.end_byte < key[1]:
            return []
        path.append(node)
        if cursor.goto_first_child_for_byte(key[0]) is None:
            return []
    return []


def guarded_code(expression: Any, path: list[Any] | None = None) -> Any:
    """The code that runs only when ``expression`` holds: an if-body, a true branch, the
    right side of an ``and``; None when it guards nothing visible.

    ``path`` (from `ancestors`) saves climbing with ``Node.parent``.
    """
    climb = list(path) if path else None
    node = expression
    for _ in range(MAX_CLIMB):
        parent = node.parent if climb is None else climb.pop() if climb else None
        if parent is None:
            return None
        kind = parent.type
        if kind == "parenthesized_expression":
            node = parent
            continue
        if kind == "boolean_operator":
            operator = next((child.type for child in parent.children if not child.is_named), "")
            if operator != "and":
                return None
            right = parent.child_by_field_name("right")
            if right is not None and right.id != node.id:
                return right
            node = parent
            continue
        if kind in ("if_statement", "elif_clause", "while_statement"):
            condition = parent.child_by_field_name("condition")
            if condition is not None and condition.id == node.id:
                return parent.child_by_field_name("consequence")
            return None
        if kind == "conditional_expression":
            named = [child for child in parent.named_children if child.type != "comment"]
            if len(named) >= 3 and named[1].id == node.id:
                return named[0]
        return None
    return None


def document_order(nodes: list[Any]) -> list[Any]:
    """Nodes sorted by start, outer before inner when they start together."""
    return sorted(nodes, key=lambda node: (node.start_byte, -node.end_byte))
