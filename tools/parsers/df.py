"""`df -P <paths>` and `df -P -i <paths>`: one row per requested path that exists.

df answers a path with the file system that holds it, so a path that is not a mount point
of its own comes back under its parent's row (e.g. /opt/dlami/nvme reported as mounted on
"/" means the instance store is not mounted there). A path that does not exist produces a
"df: <path>: No such file or directory" line and no row; df prints rows in the order of
its arguments, so the remaining rows line up with the remaining paths.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# The paths the catalogue's disk_usage / disk_inodes probes ask about, in order.
DEFAULT_PATHS: tuple[str, ...] = ("/", "/opt/sagemaker", "/opt/dlami/nvme", "/dev/shm")

# Numbers are bounded in length: a garbage line of ten thousand digits must not reach int().
_ROW = re.compile(
    r"^(?P<fs>\S.*?)\s+(?P<size>\d{1,20}|-)\s+(?P<used>\d{1,20}|-)\s+(?P<avail>\d{1,20}|-)"
    r"\s+(?P<pct>\d{1,3}%|-)\s+(?P<mount>/.*?)\s*$"
)
_HEADER = re.compile(r"^Filesystem\s", re.IGNORECASE)
_ERROR = re.compile(r"^(?:\S*/)?df: (?P<rest>.*)$")
_MISSING = re.compile(r"^[‘'`\"]?(?P<path>/[^:]*?)[’'`\"]?: No such file or directory\s*$")


@dataclass(frozen=True)
class DfRow:
    """One file system line. Sizes are 1024-byte blocks (or inodes for `df -i`); None
    where df printed "-" (file systems without a fixed inode table)."""

    filesystem: str
    size: int | None
    used: int | None
    available: int | None
    use_pct: int | None  # 0..100, or None
    mounted_on: str


@dataclass(frozen=True)
class DfReport:
    rows: tuple[DfRow, ...] = ()
    # requested path -> its row, when the rows could be lined up with the paths.
    paths: tuple[tuple[str, DfRow], ...] = ()
    missing: tuple[str, ...] = ()  # requested paths df said do not exist
    errors: tuple[str, ...] = ()  # other "df: ..." complaints, verbatim

    def row_for(self, path: str) -> DfRow | None:
        for requested, row in self.paths:
            if requested == path:
                return row
        for row in self.rows:
            if row.mounted_on == path:
                return row
        return None

    def is_mount_point(self, path: str) -> bool | None:
        """True when `path` is its own mount, False when df put it under another mount or
        said it does not exist, None when the output does not tell."""
        if path in self.missing:
            return False
        row = self.row_for(path)
        if row is None:
            return None
        return row.mounted_on == path

    def mounts(self) -> tuple[DfRow, ...]:
        """Each mounted file system once (a path under its parent repeats the parent row)."""
        seen: dict[str, DfRow] = {}
        for row in self.rows:
            seen.setdefault(row.mounted_on, row)
        return tuple(seen.values())


def _number(text: str) -> int | None:
    return None if text == "-" else int(text)


def _percent(text: str) -> int | None:
    if text == "-":
        return None
    value = int(text.rstrip("%"))
    return value if 0 <= value <= 100 else None


def parse_row(line: str) -> DfRow | None:
    match = _ROW.match(line)
    if match is None:
        return None
    return DfRow(
        filesystem=match["fs"],
        size=_number(match["size"]),
        used=_number(match["used"]),
        available=_number(match["avail"]),
        use_pct=_percent(match["pct"]),
        mounted_on=match["mount"],
    )


def parse_df(text: str, requested: Sequence[str] = DEFAULT_PATHS) -> DfReport:
    """Rows, missing paths and errors of a `df -P [-i] <requested...>` output (stderr
    folded in). Never raises; unknown lines are ignored."""
    rows: list[DfRow] = []
    missing: list[str] = []
    errors: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or _HEADER.match(line):
            continue
        error = _ERROR.match(line)
        if error is not None:
            gone = _MISSING.match(error["rest"])
            if gone is not None and gone["path"] in requested:
                missing.append(gone["path"])
            else:
                errors.append(line)
            continue
        row = parse_row(line)
        if row is not None:
            rows.append(row)
    answered = [p for p in requested if p not in missing]
    # Only line rows up with paths when the counts agree and no other error could have
    # swallowed a row; otherwise a path is found by an exact mount point alone.
    paths = tuple(zip(answered, rows, strict=True)) if len(answered) == len(rows) else ()
    if errors:
        paths = ()
    return DfReport(tuple(rows), paths, tuple(missing), tuple(errors))
