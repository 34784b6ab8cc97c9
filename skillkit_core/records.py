"""Read-only views of plain JSON data with both attribute and item access."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class Record(Mapping[str, Any]):
    """An immutable mapping whose keys also read as attributes (``r.field`` or ``r["field"]``).

    Nested dicts and lists are wrapped on access, so nothing reachable from a record can be
    mutated. ``what`` names the record in error messages (e.g. ``step 'choose'``).
    """

    __slots__ = ("_data", "_what")

    def __init__(self, data: Mapping[str, Any], what: str = "record") -> None:
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_what", what)

    def __getitem__(self, key: str) -> Any:
        return wrap(self._data[key], f"{self._what}.{key}")

    def __getattr__(self, key: str) -> Any:
        if key.startswith("__"):
            raise AttributeError(key)
        try:
            return wrap(self._data[key], f"{self._what}.{key}")
        except KeyError:
            fields = ", ".join(self._data) or "no fields"
            raise AttributeError(f"{self._what} has no field '{key}' (it has: {fields})") from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise TypeError(f"{self._what} is read-only")

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Record):
            return self._data == other._data
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def to_data(self) -> dict[str, Any]:
        """A deep copy as plain JSON data."""
        return unwrap(self)

    def __repr__(self) -> str:
        return f"Record({dict(self._data)!r})"


def wrap(value: Any, what: str = "value") -> Any:
    """Wrap dicts as ``Record`` and lists as tuples, recursively on access."""
    if isinstance(value, Mapping) and not isinstance(value, Record):
        return Record(value, what)
    if isinstance(value, list):
        return tuple(wrap(item, f"{what}[{i}]") for i, item in enumerate(value))
    return value


def unwrap(value: Any) -> Any:
    """Turn records and tuples back into fresh plain dicts and lists."""
    if isinstance(value, Record):
        return {key: unwrap(value._data[key]) for key in value._data}
    if isinstance(value, Mapping):
        return {key: unwrap(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [unwrap(item) for item in value]
    return value


def deep_merge(base: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: ``update`` merged into ``base``; nested mappings merge, the rest replaces."""
    merged = dict(base)
    for key, value in update.items():
        old = merged.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            merged[key] = deep_merge(old, value)
        else:
            merged[key] = unwrap(value)
    return merged
