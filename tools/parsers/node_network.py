"""The node's own network: its ENA interfaces (`net_interfaces`) and the instance metadata
service as the host sees it (`imds`).

`net_interfaces` prints ``grep -H .`` lines for the ENA interfaces' sysfs files, as
``/sys/bus/pci/drivers/ena/<pci>/net/<name>/operstate:up`` or
``.../net/<name>/statistics/rx_errors:0``, then ``ip -o -4 addr show``, one address a
line (``2: ens5    inet 10.1.2.3/24 brd 10.1.2.255 scope global dynamic ens5\\ ...``).
An interface is only known when one of its sysfs lines arrived; addresses of other
interfaces (lo, docker0, pod bridges) are kept but never judged.

`imds` prints ``token: curl_exit=N http=C``, the instance type (the body of the GET),
``instance-type: http=C`` and ``instance-type: curl_exit=N``. curl reports HTTP code 000
when no answer came at all (refused, timed out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# -- net_interfaces --------------------------------------------------------------------------

_SYSFS = re.compile(
    r"^/sys/bus/pci/drivers/ena/(?P<pci>[0-9A-Fa-f:.]{1,32})/net/(?P<name>[\w.@-]{1,32})/"
    r"(?:statistics/)?(?P<leaf>[a-z_]{1,32}):(?P<value>.*)$"
)
_ADDRESS = re.compile(
    r"^\d+:\s+(?P<name>[\w.@-]{1,32})\s+inet\s+(?P<cidr>\d{1,3}(?:\.\d{1,3}){3}/\d{1,2})\b"
)
COUNTERS = ("rx_packets", "tx_packets", "rx_errors", "tx_errors", "rx_dropped", "tx_dropped")
_NO_SUCH = "no such file or directory"


@dataclass
class EnaInterface:
    """One network interface whose PCI device is bound to the ena driver."""

    name: str
    pci: str
    operstate: str | None = None
    counters: dict[str, int] = field(default_factory=dict)
    ipv4: list[str] = field(default_factory=list)

    @property
    def up(self) -> bool:
        return self.operstate == "up"

    @property
    def errors(self) -> int:
        return self.counters.get("rx_errors", 0) + self.counters.get("tx_errors", 0)

    @property
    def dropped(self) -> int:
        return self.counters.get("rx_dropped", 0) + self.counters.get("tx_dropped", 0)


@dataclass(frozen=True)
class NetInterfaces:
    interfaces: tuple[EnaInterface, ...] = ()
    addresses: dict[str, tuple[str, ...]] = field(default_factory=dict)  # every interface
    address_lines: int = 0  # `ip -o -4 addr` lines read (lo alone makes one)
    errors: tuple[str, ...] = ()  # lines that are neither sysfs values nor addresses

    @property
    def recognised(self) -> bool:
        """The ENA sysfs files and the address list both arrived: judgeable."""
        return bool(self.interfaces) and self.address_lines > 0


def parse_net_interfaces(text: str) -> NetInterfaces:
    found: dict[str, EnaInterface] = {}
    addresses: dict[str, list[str]] = {}
    address_lines = 0
    errors: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        sysfs = _SYSFS.match(line)
        if sysfs:
            name = sysfs.group("name")
            iface = found.setdefault(name, EnaInterface(name=name, pci=sysfs.group("pci")))
            leaf, value = sysfs.group("leaf"), sysfs.group("value").strip()
            if leaf == "operstate":
                iface.operstate = value.lower()[:20]
            elif leaf in COUNTERS and value.isdigit():
                iface.counters[leaf] = int(value)
            continue
        address = _ADDRESS.match(line)
        if address:
            address_lines += 1
            addresses.setdefault(address.group("name"), []).append(address.group("cidr"))
            continue
        errors.append(line[:300])
    for iface in found.values():
        iface.ipv4 = list(addresses.get(iface.name, []))
    return NetInterfaces(
        interfaces=tuple(sorted(found.values(), key=lambda i: i.name)),
        addresses={name: tuple(cidrs) for name, cidrs in addresses.items()},
        address_lines=address_lines,
        errors=tuple(errors),
    )


def no_ena_sysfs(result: NetInterfaces) -> bool:
    """grep found no ENA interface at all (its own "No such file" answer)."""
    return not result.interfaces and any(_NO_SUCH in e.lower() for e in result.errors)


# -- imds --------------------------------------------------------------------------------------

_TOKEN = re.compile(r"^token: curl_exit=(?P<exit>\d{1,3}) http=(?P<http>\d{0,3})\s*$")
_GET_HTTP = re.compile(r"^instance-type: http=(?P<http>\d{0,3})\s*$")
_GET_EXIT = re.compile(r"^instance-type: curl_exit=(?P<exit>\d{1,3})\s*$")
_INSTANCE_TYPE = re.compile(r"^[a-z][a-z0-9-]{0,15}\.[a-z0-9-]{1,20}$")
_NOT_INSTALLED = re.compile(r"curl: (?:command )?not found", re.IGNORECASE)

# curl's exit codes that mean "no answer" (curl(1), EXIT CODES).
CURL_EXITS = {
    6: "could not resolve the host",
    7: "could not connect (refused or no route)",
    28: "timed out",
    52: "the server replied with nothing",
    56: "the connection broke while receiving",
}


@dataclass(frozen=True)
class ImdsAnswer:
    token_exit: int | None = None
    token_http: str | None = None  # "200", "403", "000" (no answer) or "" (curl missing)
    get_exit: int | None = None
    get_http: str | None = None
    instance_type: str | None = None
    not_installed: bool = False

    @property
    def recognised(self) -> bool:
        return self.token_exit is not None and self.get_exit is not None

    @property
    def token_ok(self) -> bool:
        return self.token_exit == 0 and self.token_http == "200"

    @property
    def read_ok(self) -> bool:
        return self.get_exit == 0 and self.get_http == "200" and self.instance_type is not None


def parse_imds(text: str) -> ImdsAnswer:
    token_exit: int | None = None
    token_http: str | None = None
    get_exit: int | None = None
    get_http: str | None = None
    body: list[str] = []
    in_body = False
    for raw in text.splitlines():
        line = raw.strip()
        if match := _TOKEN.match(line):
            token_exit, token_http = int(match.group("exit")), match.group("http")
            in_body = True
            continue
        if match := _GET_HTTP.match(line):
            get_http = match.group("http")
            in_body = False
            continue
        if match := _GET_EXIT.match(line):
            get_exit = int(match.group("exit"))
            continue
        if in_body and line:
            body.append(line)
    kind = body[0] if len(body) == 1 and _INSTANCE_TYPE.match(body[0]) else None
    return ImdsAnswer(
        token_exit=token_exit,
        token_http=token_http,
        get_exit=get_exit,
        get_http=get_http,
        instance_type=kind,
        not_installed=bool(_NOT_INSTALLED.search(text)) or token_exit == 127,
    )
