"""The version of hyperpod-debug that runs, and how two versions compare.

Recordings carry the version that made them (`RecordedCluster.tool_version`): a replay
by a newer version asks for calls an older one never made, and says so instead of
letting the checks that needed them skip quietly (tools/recorded/replay.py).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

DISTRIBUTION = "hyperpod-debug"
UNKNOWN = "unknown"

_RELEASE = re.compile(r"\s*v?(\d+(?:\.\d+)*)")


@functools.cache
def tool_version() -> str:
    """The installed distribution's version; in a source tree that was never installed,
    the version pyproject.toml declares; "unknown" when neither can be read. Asked once
    a process: importlib.metadata scans every installed distribution."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return _source_tree_version() or UNKNOWN


def _source_tree_version() -> str | None:
    import tomllib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project") or {}
    except (OSError, ValueError):
        return None
    value = project.get("version") if project.get("name") == DISTRIBUTION else None
    return value if isinstance(value, str) and value else None


def release(version: str) -> tuple[int, ...] | None:
    """The numeric release of a version string ("0.2.0rc1" -> (0, 2, 0)), trailing zeros
    dropped so 1.0 and 1.0.0 compare equal; None when it does not start with a number."""
    match = _RELEASE.match(version)
    if match is None:
        return None
    parts = [int(p) for p in match.group(1).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def predates(recorded_with: str | None, current: str) -> bool:
    """Whether a recording stamped `recorded_with` was made by an earlier version than
    `current`. No stamp at all means a version from before recordings were stamped;
    two versions whose releases cannot both be read are not said to be ordered."""
    if recorded_with is None:
        return True
    before, now = release(recorded_with), release(current)
    return before is not None and now is not None and before < now
