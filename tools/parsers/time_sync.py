"""`timedatectl show -p NTPSynchronized -p NTP; chronyc tracking` (stderr folded in).

Either half may be missing ("command not found", chronyd not running): each is read on
its own, and what could not be read is None rather than a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PROPERTY = re.compile(r"^(?P<key>NTP|NTPSynchronized)=(?P<value>\S*)\s*$")
_TRACKING = re.compile(r"^(?P<key>[A-Za-z][A-Za-z ()]{0,40}?)\s*:\s(?P<value>.*?)\s*$")
_OFFSET = re.compile(
    r"^(?P<amount>\d{1,12}(?:\.\d{1,12})?) seconds (?P<direction>fast|slow) of NTP time"
)
_STRATUM = re.compile(r"^\d{1,3}$")
_NOT_FOUND = re.compile(
    r"(?P<tool>timedatectl|chronyc)(?::\s*| )(?:command )?not found", re.IGNORECASE
)
_CHRONY_DOWN = re.compile(r"506 Cannot talk to daemon|Could not open connection", re.IGNORECASE)
_BOOLEAN = {"yes": True, "no": False}


@dataclass(frozen=True)
class TimeSync:
    ntp_synchronized: bool | None = None  # timedatectl NTPSynchronized
    ntp_enabled: bool | None = None  # timedatectl NTP
    leap_status: str | None = None  # chronyc "Leap status", e.g. "Normal", "Not synchronised"
    offset_s: float | None = None  # system clock minus NTP time (positive: fast)
    reference: str | None = None  # chronyc "Reference ID"
    stratum: int | None = None
    notes: tuple[str, ...] = ()  # tools missing, chronyd unreachable

    @property
    def chrony_synchronised(self) -> bool | None:
        if self.leap_status is None:
            return None
        return self.leap_status.strip().lower() != "not synchronised"

    @property
    def empty(self) -> bool:
        return self.ntp_synchronized is None and self.leap_status is None


def parse_time_sync(text: str) -> TimeSync:
    """Never raises; absent fields are None."""
    props: dict[str, bool] = {}
    tracking: dict[str, str] = {}
    notes: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        prop = _PROPERTY.match(line)
        if prop is not None:
            value = _BOOLEAN.get(prop["value"].lower())
            if value is not None:
                props.setdefault(prop["key"], value)
            continue
        missing = _NOT_FOUND.search(line)
        if missing is not None:
            notes.append(f"{missing['tool'].lower()} not installed")
            continue
        if _CHRONY_DOWN.search(line):
            notes.append("chronyd not answering")
            continue
        field = _TRACKING.match(line)
        if field is not None:
            tracking.setdefault(field["key"].strip(), field["value"])
    offset: float | None = None
    system_time = _OFFSET.match(tracking.get("System time", ""))
    if system_time is not None:
        amount = float(system_time["amount"])
        offset = amount if system_time["direction"] == "fast" else -amount
    stratum = tracking.get("Stratum", "")
    return TimeSync(
        ntp_synchronized=props.get("NTPSynchronized"),
        ntp_enabled=props.get("NTP"),
        leap_status=tracking.get("Leap status") or None,
        offset_s=offset,
        reference=tracking.get("Reference ID") or None,
        stratum=int(stratum) if _STRATUM.match(stratum) else None,
        notes=tuple(dict.fromkeys(notes)),
    )
