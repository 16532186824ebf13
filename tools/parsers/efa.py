"""EFA on the node: the kernel module (lsmod), the verbs devices (/dev/infiniband) and
libfabric's EFA provider (`fi_info -p efa -t FI_EP_RDM`).

`fi_info` prints one block per endpoint it offers (``provider: efa`` then indented
``fabric``, ``domain``, ``version``, ``type``, ``protocol`` lines), or
``fi_getinfo: -61 (No data available)`` when the provider finds no usable device.
Newer libfabric releases list the same device under more than one fabric (efa and
efa-direct), so the device count is taken from distinct domains, not from entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -- lsmod ---------------------------------------------------------------------------------------

_LSMOD_LINE = re.compile(r"^([A-Za-z0-9_]+)\s+(\d+)\s+(\d+)(?:\s+\S.*)?$")


@dataclass(frozen=True)
class Lsmod:
    modules: frozenset[str] = frozenset()
    parsed: bool = False  # the header or at least one module line was seen

    @property
    def efa_loaded(self) -> bool:
        return "efa" in self.modules


def parse_lsmod(text: str) -> Lsmod:
    modules: set[str] = set()
    header = False
    for raw in text.splitlines():
        line = raw.strip()
        if re.match(r"^Module\s+Size\s+Used by", line):
            header = True
            continue
        match = _LSMOD_LINE.match(line)
        if match:
            modules.add(match.group(1))
    return Lsmod(modules=frozenset(modules), parsed=header or bool(modules))


# -- ls -1 /dev/infiniband ------------------------------------------------------------------------

_UVERBS = re.compile(r"^uverbs(\d{1,4})$")


@dataclass(frozen=True)
class InfinibandDevices:
    uverbs: tuple[str, ...] = ()
    others: tuple[str, ...] = ()
    missing: bool = False  # the directory does not exist

    @property
    def count(self) -> int:
        return len(self.uverbs)

    @property
    def recognised(self) -> bool:
        return bool(self.uverbs or self.others or self.missing)


def parse_infiniband(text: str) -> InfinibandDevices:
    uverbs: list[str] = []
    others: list[str] = []
    missing = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if "no such file or directory" in line.lower():
            missing = True
            continue
        if _UVERBS.match(line):
            if line not in uverbs:
                uverbs.append(line)
        elif re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", line):
            others.append(line)
    return InfinibandDevices(uverbs=tuple(uverbs), others=tuple(others), missing=missing)


# -- fi_info -p efa -t FI_EP_RDM ------------------------------------------------------------------

_FI_KEY = re.compile(r"^\s*(provider|fabric|domain|version|type|protocol)\s*:\s*(.*?)\s*$")
_FI_ERROR = re.compile(r"fi_getinfo\s*:?\s*(-?\d+)(?:\s*\(([^)]*)\))?", re.IGNORECASE)


@dataclass(frozen=True)
class FiEntry:
    provider: str
    fabric: str | None = None
    domain: str | None = None
    version: str | None = None
    type: str | None = None
    protocol: str | None = None

    @property
    def device(self) -> str | None:
        """The EFA device behind the domain ("rdmap79s0-rdm" → "rdmap79s0")."""
        if not self.domain:
            return None
        return re.sub(r"-(rdm|dgrm)$", "", self.domain)


@dataclass(frozen=True)
class FiInfo:
    entries: tuple[FiEntry, ...] = ()
    error: str | None = None  # "fi_getinfo: -61 (No data available)"
    error_code: int | None = None
    not_installed: bool = False

    @property
    def efa_entries(self) -> tuple[FiEntry, ...]:
        return tuple(e for e in self.entries if e.provider.split(";")[0] == "efa")

    @property
    def efa_devices(self) -> tuple[str, ...]:
        devices: list[str] = []
        for entry in self.efa_entries:
            device = entry.device
            if device and device not in devices:
                devices.append(device)
        return tuple(devices)

    @property
    def recognised(self) -> bool:
        return bool(self.entries or self.error or self.not_installed)


def parse_fi_info(text: str) -> FiInfo:
    entries: list[FiEntry] = []
    fields: dict[str, str] = {}
    error: str | None = None
    code: int | None = None
    not_installed = False

    def flush() -> None:
        if "provider" in fields:
            entries.append(
                FiEntry(
                    provider=fields["provider"],
                    fabric=fields.get("fabric"),
                    domain=fields.get("domain"),
                    version=fields.get("version"),
                    type=fields.get("type"),
                    protocol=fields.get("protocol"),
                )
            )
        fields.clear()

    for raw in text.splitlines():
        lowered = raw.lower()
        failure = _FI_ERROR.search(raw)
        if failure:
            error = raw.strip()
            code = int(failure.group(1))
            continue
        if "command not found" in lowered or "fi_info: not found" in lowered:
            not_installed = True
            continue
        match = _FI_KEY.match(raw)
        if not match:
            continue
        key, value = match.group(1), match.group(2)
        if key == "provider":
            flush()
        fields.setdefault(key, value)
    flush()
    return FiInfo(entries=tuple(entries), error=error, error_code=code, not_installed=not_installed)


# -- aws-ofi-nccl plugin (ls -1 <dirs> | grep -E '^/|^libnccl-(net|ofi)') -------------------------

_PLUGIN_DIR = re.compile(r"^(/[\w./+-]{1,200}):$")
_PLUGIN_LIB = re.compile(r"^libnccl-(?:net|ofi)[\w.+-]{0,80}$")


@dataclass(frozen=True)
class OfiNcclPlugin:
    """Where the plugin directories are and which NCCL plugin libraries they hold."""

    directories: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()  # "/opt/amazon/ofi-nccl/lib/libnccl-net.so"
    unexpected: tuple[str, ...] = ()  # lines that are neither (an error, a changed layout)

    @property
    def net_plugin(self) -> tuple[str, ...]:
        """The network plugin NCCL loads (libnccl-net*.so*), not the tuner."""
        return tuple(
            lib for lib in self.libraries if lib.rsplit("/", 1)[-1].startswith("libnccl-net")
        )


def parse_ofi_nccl_plugin(text: str) -> OfiNcclPlugin:
    """The probe's listing. An empty output is a real "nothing there": none of the
    directories exists (ls prints nothing on its stdout and grep keeps nothing)."""
    directories: list[str] = []
    libraries: list[str] = []
    unexpected: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if directory := _PLUGIN_DIR.match(line):
            current = directory.group(1)
            directories.append(current)
        elif _PLUGIN_LIB.match(line):
            path = f"{current}/{line}" if current else line
            if path not in libraries:
                libraries.append(path)
        else:
            unexpected.append(line[:300])
    return OfiNcclPlugin(
        directories=tuple(directories), libraries=tuple(libraries), unexpected=tuple(unexpected)
    )
