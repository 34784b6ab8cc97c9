"""``NamedTuple`` without importing :mod:`typing`, for the modules ``skillkit check`` loads.

Importing :mod:`typing` costs a checking process about 2 ms (a one-folder check takes a
few times that on top of the interpreter's start), and :class:`typing.NamedTuple` makes
a ``ForwardRef`` (a compiled expression) of every string annotation when a class is
defined. The :class:`NamedTuple` here takes the same class syntax (annotated fields,
trailing defaults, methods, properties, a docstring) and builds the same kind of class,
a :func:`collections.namedtuple` with the namespace's other members, keeping the
annotations as written. Modules using it write ``from __future__ import annotations``.

Type checkers see :class:`typing.NamedTuple` itself.
"""

from collections import namedtuple

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # Members of a class body that are not the class's own attributes.
    _NOT_COPIED = frozenset(
        {
            "__module__",
            "__annotations__",
            "__annotate__",
            "__annotate_func__",
            "__annotations_cache__",
            "__classcell__",
            "__firstlineno__",
            "__static_attributes__",
        }
    )
    # What namedtuple makes: a class body must not replace it.
    _RESERVED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
        }
    )

    class _NamedTupleType(type):
        def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
            if not bases:  # NamedTuple itself
                return super().__new__(mcs, name, bases, namespace)
            if bases != (NamedTuple,):
                raise TypeError(f"{name}: a NamedTuple derives from NamedTuple alone")
            annotations = namespace.get("__annotations__")
            if not isinstance(annotations, dict):
                raise TypeError(f"{name}: its module needs 'from __future__ import annotations'")
            fields = list(annotations)
            defaults = [namespace[field] for field in fields if field in namespace]
            with_default = [field in namespace for field in fields]
            if with_default != sorted(with_default):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            made = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            for key, value in namespace.items():
                if key in _RESERVED:
                    raise AttributeError(f"{name}: cannot overwrite NamedTuple attribute {key}")
                if key not in _NOT_COPIED and key not in annotations:
                    setattr(made, key, value)
            made.__annotations__ = dict(annotations)
            return made

    class NamedTuple(metaclass=_NamedTupleType):
        """Base of a named tuple class written with annotated fields (see the module)."""
