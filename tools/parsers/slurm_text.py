"""What every Slurm controller probe's parser shares: reading non-empty lines, keeping a
few error-looking lines, telling a missing command apart, and the shape of a state word.

Each parser takes the raw stdout of one catalogued probe (stderr folded in) and returns a
frozen value; none of them raises, whatever the text. Lines that are not what the probe's
fixed format prints are counted, and lines that look like Slurm errors are kept, so a
check can say "could not read" instead of judging an empty list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_ERROR_HINTS = re.compile(
    r"error|unable to contact|connection refused|connect failure|timed out|"
    r"not found|no such file|permission denied|invalid|could not",
    re.IGNORECASE,
)
_MISSING_TOOL = re.compile(r"command not found|not found: (?:sinfo|squeue|scontrol)", re.I)
_MAX_KEPT_ERRORS = 5


def tool_missing(text: str) -> bool:
    """The probe's command is not installed where it ran (the shell said so)."""
    return bool(_MISSING_TOOL.search(text or ""))


def lines(text: str) -> Iterator[str]:
    for raw in (text or "").splitlines():
        line = raw.strip()
        if line:
            yield line


def keep_error(errors: list[str], line: str) -> bool:
    """Remember an error-looking line (a few of them); True when the line was one."""
    if not _ERROR_HINTS.search(line):
        return False
    if len(errors) < _MAX_KEPT_ERRORS:
        errors.append(line[:300])
    return True


# A state word as sinfo and squeue print it once upper-cased (IDLE, DOWN, COMPLETING).
STATE_WORD = re.compile(r"^[A-Z_]+$")
