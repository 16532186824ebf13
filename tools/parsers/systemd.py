"""`systemctl show -p Id -p LoadState -p ActiveState -p SubState <unit>...`.

systemctl prints one block of `Key=value` lines per unit, blocks separated by a blank
line. A unit that does not exist still gets a block, with LoadState=not-found: that is how
"not installed" is told apart from "installed and stopped".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PROPERTY = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9]{0,63})=(?P<value>.*)$")
_KEYS = frozenset({"Id", "LoadState", "ActiveState", "SubState"})
_UNAVAILABLE = re.compile(
    r"systemctl: (?:command )?not found|not been booted with systemd|failed to connect to bus",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class UnitState:
    id: str
    load_state: str | None = None
    active_state: str | None = None
    sub_state: str | None = None

    @property
    def name(self) -> str:
        """The unit name without its type suffix (kubelet.service -> kubelet)."""
        return self.id.removesuffix(".service")

    @property
    def installed(self) -> bool:
        return self.load_state is not None and self.load_state != "not-found"

    @property
    def active(self) -> bool:
        return self.active_state == "active"

    @property
    def state(self) -> str:
        """ActiveState/SubState as systemctl shows them, e.g. "failed/failed"."""
        return f"{self.active_state or '?'}/{self.sub_state or '?'}"


@dataclass(frozen=True)
class Units:
    units: tuple[UnitState, ...] = ()
    unavailable: str | None = None  # why systemctl could not answer, when it says so

    def get(self, name: str) -> UnitState | None:
        wanted = name.removesuffix(".service")
        for unit in self.units:
            if unit.name == wanted:
                return unit
        return None


def _unit(block: dict[str, str]) -> UnitState | None:
    unit_id = block.get("Id", "").strip()
    if not unit_id:
        return None
    return UnitState(
        id=unit_id,
        load_state=block.get("LoadState") or None,
        active_state=block.get("ActiveState") or None,
        sub_state=block.get("SubState") or None,
    )


def parse_units(text: str) -> Units:
    """Never raises. A block starts after a blank line or when a key repeats (output whose
    blank lines were lost); blocks without an Id are dropped."""
    units: list[UnitState] = []
    unavailable: str | None = None
    block: dict[str, str] = {}

    def flush() -> None:
        unit = _unit(block)
        if unit is not None:
            units.append(unit)
        block.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            flush()
            continue
        match = _PROPERTY.match(line)
        if match is None:
            if unavailable is None and _UNAVAILABLE.search(line):
                unavailable = line
            continue
        key, value = match["key"], match["value"].strip()
        if key not in _KEYS:
            continue
        if key in block:
            flush()
        block[key] = value
    flush()
    return Units(tuple(units), unavailable)
