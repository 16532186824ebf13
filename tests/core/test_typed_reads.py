"""Checks judge typed data: no read of `ClusterData` hands a check a raw API shape.

Every public read's return type, and every field of every model it returns (recursively),
is walked; `Any` anywhere in it — `dict[str, Any]`, a list of raw answers, an untyped
field — is what this test refuses. The raw shapes stay below the data layer, where the
recordings keep them (docs/architecture.md, "The pieces of one check").
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from typing import Any

import pytest

from tools.triage.data import ClusterData

# Members that are not reads a check judges: the access client the reads are built on,
# the memo's plumbing, and the run's own scheduling.
NOT_READS = frozenset({"kube", "for_node", "optional", "long_reads"})


def _reads() -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for name, member in inspect.getmembers(ClusterData):
        if name.startswith("_") or name in NOT_READS:
            continue
        function = member.fget if isinstance(member, property) else member
        if callable(function):
            found.append((name, typing.get_type_hints(function)["return"]))
    return found


def untyped_parts(annotation: Any, where: str, seen: set[Any] | None = None) -> list[str]:
    """Where `Any` hides in `annotation`: in its arguments, or in a dataclass's fields."""
    seen = set() if seen is None else seen
    if annotation is Any:
        return [where]
    if isinstance(annotation, typing.TypeVar):
        return []
    found: list[str] = []
    for argument in typing.get_args(annotation):
        if argument is not Ellipsis:
            found += untyped_parts(argument, f"{where}[…]", seen)
    origin = typing.get_origin(annotation)
    if origin is None and isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        if annotation in seen:
            return found
        seen.add(annotation)
        hints = typing.get_type_hints(annotation)
        for field in dataclasses.fields(annotation):
            found += untyped_parts(hints[field.name], f"{annotation.__name__}.{field.name}", seen)
    return found


READS = _reads()


def test_the_reads_are_found() -> None:
    names = {name for name, _ in READS}
    assert {"cluster", "nodes", "events", "security_groups", "kube_nodes"} <= names
    assert len(READS) > 40


@pytest.mark.parametrize(("name", "annotation"), READS, ids=[name for name, _ in READS])
def test_a_read_returns_typed_data(name: str, annotation: Any) -> None:
    assert untyped_parts(annotation, name) == []


@dataclasses.dataclass(frozen=True)
class Inner:
    raw: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Outer:
    name: str
    inner: tuple[Inner, ...]


def test_the_walk_finds_any_where_it_hides() -> None:
    assert untyped_parts(list[dict[str, Any]], "r") == ["r[…][…]"]
    assert untyped_parts(Outer | None, "r") == ["Inner.raw[…]"]
    assert untyped_parts(tuple[str, ...], "r") == []
    assert untyped_parts(types.NoneType, "r") == []
