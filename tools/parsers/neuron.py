"""`neuron-ls --json-output` → the Neuron devices a Trainium / Inferentia node can see.

The tool prints a JSON list with one object per device (``neuron_device``, ``bdf``,
``nc_count``, ``memory_size``, ``connected_to``, ``neuron_processes``, ...). Some builds
wrap the list as ``{"neuron_devices": [...]}``; both are read. Neuron 2.34 drops
``--json-output`` for ``--output-format json``, whose document adds top-level fields
around the device list; the probe falls back to it, and the parser takes the first list
of device objects under a key naming devices. Anything else parses as `error` (not
judgeable), never as zero devices; the check then counts the driver's /dev/neuronN files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NeuronDevice:
    index: int | None
    bdf: str | None
    core_count: int | None
    memory_bytes: int | None
    connected_to: tuple[int, ...]


@dataclass(frozen=True)
class NeuronListing:
    devices: tuple[NeuronDevice, ...] = ()
    parsed: bool = False  # the JSON list was found (an empty list is a real zero)
    error: str | None = None

    @property
    def count(self) -> int:
        return len(self.devices)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _device(entry: Any) -> NeuronDevice | None:
    if not isinstance(entry, dict):
        return None
    connected = entry.get("connected_to")
    links = (
        tuple(i for i in (_int(v) for v in connected if not isinstance(v, bool)) if i is not None)
        if isinstance(connected, list)
        else ()
    )
    bdf = entry.get("bdf")
    return NeuronDevice(
        index=_int(entry.get("neuron_device")),
        bdf=bdf if isinstance(bdf, str) else None,
        core_count=_int(entry.get("nc_count")),
        memory_bytes=_int(entry.get("memory_size")),
        connected_to=links,
    )


def _document(text: str) -> Any:
    decoder = json.JSONDecoder()
    # Only a bracket that opens a line can start the document: trying every bracket of a
    # hostile text would be quadratic.
    for match in re.finditer(r"^[ \t]*([\[{])", text, re.MULTILINE):
        index = match.start(1)
        try:
            value, _ = decoder.raw_decode(text, index)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, list) or (isinstance(value, dict) and _device_list(value)):
            return value
    return None


def _device_list(document: dict[str, Any]) -> list[Any] | None:
    """The device list of a JSON object: "neuron_devices" first, else the first list of
    objects under a key that names devices (the newer output wraps it in instance data)."""
    known = document.get("neuron_devices")
    if isinstance(known, list):
        return known
    for key, value in document.items():
        if (
            "device" in str(key).lower()
            and isinstance(value, list)
            and value
            and all(isinstance(item, dict) for item in value)
        ):
            return value
    return None


def parse_neuron_ls(text: str) -> NeuronListing:
    document = _document(text)
    entries = _device_list(document) if isinstance(document, dict) else document
    if not isinstance(entries, list):
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return NeuronListing(error=first[:300] or "no output")
    devices = _distinct(d for d in (_device(e) for e in entries) if d is not None)
    return NeuronListing(devices=devices, parsed=True)


def _distinct(devices: Iterable[NeuronDevice]) -> tuple[NeuronDevice, ...]:
    """Each device once: a second entry with an index or PCI address already seen (the
    listing repeated) is dropped."""
    kept: list[NeuronDevice] = []
    seen: set[tuple[str, object]] = set()
    for device in devices:
        keys = {
            *((("index", device.index),) if device.index is not None else ()),
            *((("bdf", device.bdf),) if device.bdf else ()),
        }
        if keys & seen:
            continue
        seen |= keys
        kept.append(device)
    return tuple(kept)


_DEVICE_FILE = re.compile(r"^neuron(\d+)$")


def parse_neuron_device_files(text: str) -> NeuronListing:
    """`ls -1 /dev | grep '^neuronN$'`: one device per file the Neuron driver created.
    Lines that are not device names (an error from ls) make the listing unparsed."""
    devices: list[NeuronDevice] = []
    for line in text.splitlines():
        name = line.strip()
        if not name:
            continue
        match = _DEVICE_FILE.match(name)
        if match is None:
            return NeuronListing(error=name[:300])
        devices.append(NeuronDevice(int(match.group(1)), None, None, None, ()))
    return NeuronListing(devices=_distinct(devices), parsed=True)
