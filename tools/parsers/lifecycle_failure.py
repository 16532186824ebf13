"""Which lifecycle script failed, at which line, with which exit status: read from the
lines of one LifecycleConfig stream.

Three line shapes carry the facts, each as a real tool prints it:

- Python's `subprocess.CalledProcessError`, which the sample `lifecycle_script.py` of
  aws-samples/awsome-distributed-training raises when a script it runs through
  `subprocess.run(["sudo", "bash", script, ...]).check_returncode()` exits non-zero:
  ``subprocess.CalledProcessError: Command '['sudo', 'bash', 'mount_fsx.sh', 'fs-1']'
  returned non-zero exit status 127.``
- bash's own error for a script, ``/tmp/lcs/mount_fsx.sh: line 31: lfs: command not found``
  (bash prefixes the script path and the line number).
- a wrapper's summary, ``on_create.sh failed with exit code 2`` or ``... exited with status
  1``.

The exit status and the script come from the newest line that states a status; the line
number from bash's error for that script when there is one. Any of the three may be
missing: the caller says "unknown" rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_SCRIPT = r"[\w./-]{0,200}?(?P<name>[\w.-]{1,80}\.(?:sh|py|bash))"
# Command '['sudo', 'bash', 'x.sh', 'arg']' returned non-zero exit status 1.
_CALLED_PROCESS = re.compile(
    r"Command '\[(?P<argv>[^\]]{0,600})\]' returned non-zero exit status (?P<status>-?\d{1,4})"
)
_ARG_SCRIPT = re.compile(r"'(?:[^']{0,200}/)?(?P<name>[\w.-]{1,80}\.(?:sh|py|bash))'")
# /tmp/x/mount_fsx.sh: line 31: lfs: command not found
_BASH_ERROR = re.compile(rf"(?<![\w./-]){_SCRIPT}: line (?P<line>\d{{1,6}}):")
# on_create.sh failed with exit code 2 · install.sh exited with status 1 · exit code: 3
_SUMMARY = re.compile(
    r"(?:exit(?:ed)? (?:with )?(?:exit )?(?:code|status)|returned)[ :=]*(?P<status>-?\d{1,4})\b",
    re.IGNORECASE,
)
_ANY_SCRIPT = re.compile(rf"(?<![\w./-]){_SCRIPT}\b")


@dataclass(frozen=True)
class ScriptFailure:
    script: str | None
    line: int | None
    exit_status: int | None

    @property
    def known(self) -> bool:
        return any(v is not None for v in (self.script, self.line, self.exit_status))

    def describe(self) -> str:
        """ "mount_fsx.sh, line 31, exit status 127" with "unknown" for what is missing."""
        script = self.script or "script unknown"
        line = f"line {self.line}" if self.line is not None else "line unknown"
        status = (
            f"exit status {self.exit_status}" if self.exit_status is not None else "exit unknown"
        )
        return f"{script}, {line}, {status}"


def _status_line(message: str) -> tuple[str | None, int] | None:
    """(script or None, exit status) when the line states a non-zero exit status."""
    called = _CALLED_PROCESS.search(message)
    if called is not None:
        scripts = _ARG_SCRIPT.findall(called["argv"])
        return (scripts[-1] if scripts else None), int(called["status"])
    summary = _SUMMARY.search(message)
    if summary is not None and int(summary["status"]) != 0:
        named = _ANY_SCRIPT.search(message[: summary.start()]) or _ANY_SCRIPT.search(message)
        return (named["name"] if named else None), int(summary["status"])
    return None


def script_failure(messages: Iterable[str]) -> ScriptFailure:
    """The failing script, its line and exit status from one stream's lines, oldest first."""
    listed = [m for m in messages if isinstance(m, str)]
    script: str | None = None
    status: int | None = None
    for message in reversed(listed):
        found = _status_line(message)
        if found is not None:
            script, status = found
            break
    line: int | None = None
    for message in reversed(listed):
        bash = _BASH_ERROR.search(message)
        if bash is not None and (script is None or bash["name"] == script):
            script = script or bash["name"]
            line = int(bash["line"])
            break
    return ScriptFailure(script, line, status)
