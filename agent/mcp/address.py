"""The `--http HOST:PORT` address, checked before the SDK is imported."""

from __future__ import annotations

import ipaddress
import re

_ADDRESS = re.compile(
    r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9.-]+)):(?P<port>\d{1,5})$"
)


def parse_address(text: str) -> tuple[str, int]:
    """(host, port) from "127.0.0.1:8765", "localhost:8765" or "[::1]:8765"; ValueError
    with a sentence otherwise."""
    match = _ADDRESS.match(text.strip())
    if match is None:
        raise ValueError("expected HOST:PORT, e.g. 127.0.0.1:8765 or [::1]:8765")
    port = int(match["port"])
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} is out of range (1-65535)")
    return match["v6"] or match["host"], port


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only: `localhost` or a loopback address (a
    name that only resolves to one is not trusted to stay that way)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
