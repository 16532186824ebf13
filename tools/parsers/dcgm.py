"""`dcgmi health -c -j` → overall health and per-entity incidents.

dcgmi prints its JSON as a tree of boxes: ``{"header": ["Health Monitor Report"],
"body": {"Overall Health": {"value": "Failure"}, "GPU": {"children": {"1": {"value":
"Failure", "children": {"Errors": {"children": {"Memory system": {"value": "Failure",
"overflow": ["message, split in chunks"]}}}}}}}}}``. When it cannot answer it prints a plain
"Error: ..." line instead (no watches set, host engine not running), and a node without
DCGM prints the shell's "command not found".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

DcgmState = Literal["ok", "not-installed", "no-watches", "error", "unparsed"]
HEALTH_VALUES = ("Healthy", "Warning", "Failure")


@dataclass(frozen=True)
class DcgmIncident:
    entity_group: str  # "GPU", "NvSwitch", ...
    entity_id: str
    system: str  # "Memory system", "PCIe system", ...
    health: str  # Healthy / Warning / Failure
    message: str

    @property
    def label(self) -> str:
        return f"{self.entity_group} {self.entity_id} {self.system}: {self.health}"


@dataclass(frozen=True)
class DcgmEntity:
    group: str
    id: str
    health: str


@dataclass(frozen=True)
class DcgmHealth:
    state: DcgmState
    overall: str | None = None
    entities: tuple[DcgmEntity, ...] = ()
    incidents: tuple[DcgmIncident, ...] = ()
    error: str | None = None


def _first_json_object(text: str) -> Any:
    decoder = json.JSONDecoder()
    # Only a brace that opens a line can start the report (dcgmi pretty-prints it); trying
    # every brace of a hostile text would be quadratic.
    for match in re.finditer(r"^[ \t]*\{", text, re.MULTILINE):
        try:
            value, _ = decoder.raw_decode(text, match.end() - 1)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _value(node: Any) -> str | None:
    if isinstance(node, dict):
        value = node.get("value")
        return value.strip() if isinstance(value, str) else None
    return None


def _children(node: Any) -> dict[str, Any]:
    if isinstance(node, dict):
        children = node.get("children")
        if isinstance(children, dict):
            return children
    return {}


def _message(node: Any) -> str:
    if not isinstance(node, dict):
        return ""
    overflow = node.get("overflow")
    if isinstance(overflow, list):
        return " ".join(str(part).strip() for part in overflow if isinstance(part, str)).strip()
    return ""


def _error_line(text: str) -> str | None:
    for raw in text.splitlines():
        line = raw.strip()
        if line.lower().startswith("error") or "unable to" in line.lower():
            return line
    return None


def parse_dcgm_health(text: str) -> DcgmHealth:
    lowered = text.lower()
    if "command not found" in lowered or "dcgmi: not found" in lowered:
        return DcgmHealth(state="not-installed", error=text.strip()[:300] or None)
    document = _first_json_object(text)
    body = document.get("body") if isinstance(document, dict) else None
    if not isinstance(body, dict):
        if "watches not enabled" in lowered:
            return DcgmHealth(state="no-watches", error=_error_line(text))
        line = _error_line(text)
        if line is not None:
            return DcgmHealth(state="error", error=line)
        return DcgmHealth(state="unparsed", error=text.strip()[:300] or None)
    overall = _value(body.get("Overall Health"))
    entities: list[DcgmEntity] = []
    incidents: list[DcgmIncident] = []
    for group, group_node in body.items():
        if group == "Overall Health":
            continue
        for entity_id, entity_node in _children(group_node).items():
            entities.append(DcgmEntity(str(group), str(entity_id), _value(entity_node) or ""))
            errors = _children(entity_node).get("Errors")
            for system, system_node in _children(errors).items():
                incidents.append(
                    DcgmIncident(
                        entity_group=str(group),
                        entity_id=str(entity_id),
                        system=str(system),
                        health=_value(system_node) or "",
                        message=_message(system_node),
                    )
                )
    return DcgmHealth(
        state="ok",
        overall=overall if overall in HEALTH_VALUES else overall or None,
        entities=tuple(entities),
        incidents=tuple(incidents),
    )
