"""One session command per node, and reading its output back probe by probe.

A node gets a single non-interactive SSM session that runs the chosen catalogue probes one
after another. Each probe's output is wrapped in markers that carry a random per-session
nonce, so a log line that happens to contain a marker (or text written to forge one) cannot
end a probe early or inject a result; the END marker carries the probe's exit status, which
SSM does not return. Everything outside the markers (the plugin's "Starting session ..."
banner, terminal noise) is ignored, and a probe whose END never arrived (timeout, dropped
session) is kept as truncated rather than lost.

Each probe runs as `timeout -s KILL <seconds> sh -c '<command>'`. GNU timeout puts itself
and everything it starts into a process group of its own, and at the deadline it sends
SIGKILL to that whole group: the probe's shell, the tool it runs and every stage of a
pipeline die together, whether `sh` is bash or dash. (A TERM first, as `timeout -k` sends,
is not enough: bash and dash both die on it while a tool that ignores it keeps running,
and timeout, seeing its child gone, never sends the KILL.) Timeout is in that group too, so
a probe cut off this way ends with status 137; `ProbeOutput.timed_out` reads that as
unfinished. A tool blocked inside the kernel (uninterruptible sleep) dies only when it
leaves the kernel: no signal reaches it sooner.
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import Sequence

from tools.probes.catalog import CATALOGUE
from tools.probes.model import ProbeOutput

_NONCE = re.compile(r"^[0-9a-f]{16}$")
_PROBE_NAME = r"[a-z][a-z0-9_]*"


def new_nonce() -> str:
    return secrets.token_hex(8)


def _probe_script(name: str, nonce: str) -> str:
    spec = CATALOGUE[name]
    return (
        f"printf '\\n@@HPD-{nonce} BEGIN {name}@@\\n'; "
        f"timeout -s KILL {spec.timeout_s} sh -c {shlex.quote(spec.command)} "
        "2>&1 </dev/null; "
        f"printf '\\n@@HPD-{nonce} END {name} %s@@\\n' \"$?\""
    )


def build_bundle(names: Sequence[str], nonce: str) -> str:
    """The one command a node's session runs: the named probes, framed. Unknown names and
    malformed nonces raise: there is no way to put other text into the command."""
    if not _NONCE.match(nonce):
        raise ValueError("nonce must be 16 lowercase hex digits")
    if not names:
        raise ValueError("a probe bundle needs at least one probe")
    unknown = [name for name in names if name not in CATALOGUE]
    if unknown:
        raise ValueError(f"not catalogued probes: {', '.join(unknown)}")
    if len(set(names)) != len(names):
        raise ValueError("a probe appears twice in one bundle")
    return "; ".join(_probe_script(name, nonce) for name in names)


_BUNDLE_HEAD = re.compile(r"^printf '\\n@@HPD-(?P<nonce>[0-9a-f]{16}) BEGIN ")


def bundle_probes(command: str) -> list[str] | None:
    """The probe names of `command` if it is exactly a catalogue bundle, else None.

    Rebuilds the bundle from the names it claims and compares byte for byte, so any
    addition, removal or edit of a single character is refused."""
    head = _BUNDLE_HEAD.match(command)
    if head is None:
        return None
    nonce = head.group("nonce")
    names = re.findall(rf"@@HPD-{nonce} BEGIN ({_PROBE_NAME})@@", command)
    try:
        rebuilt = build_bundle(names, nonce)
    except ValueError:
        return None
    return names if rebuilt == command else None


def parse_bundle(output: str, nonce: str, expected: Sequence[str]) -> dict[str, ProbeOutput]:
    """Split a session's output into one ProbeOutput per probe that started.

    Probes that never started are absent; one that started but did not end is truncated
    with whatever it printed. Terminal carriage returns are normalised away."""
    text = output.replace("\r\n", "\n").replace("\r", "\n")
    marker = re.compile(
        rf"^@@HPD-{re.escape(nonce)} (?P<edge>BEGIN|END) (?P<name>{_PROBE_NAME})"
        r"(?: (?P<rc>-?\d+))?@@$",
        re.MULTILINE,
    )
    wanted = set(expected)
    results: dict[str, ProbeOutput] = {}
    current: str | None = None
    start = 0
    for match in marker.finditer(text):
        name = match.group("name")
        if match.group("edge") == "BEGIN":
            if current is not None:  # the previous probe never ended
                results[current] = ProbeOutput(
                    stdout=_body(text[start : match.start()]), exit_code=None, truncated=True
                )
            current = name if name in wanted else None
            start = match.end()
        elif current is not None and name == current:
            rc = match.group("rc")
            results[current] = ProbeOutput(
                stdout=_body(text[start : match.start()]),
                exit_code=int(rc) if rc is not None else None,
                truncated=rc is None,
            )
            current = None
    if current is not None:
        results[current] = ProbeOutput(stdout=_body(text[start:]), exit_code=None, truncated=True)
    return results


def _body(chunk: str) -> str:
    # The markers are printed with a newline on each side; drop exactly those.
    chunk = chunk.removeprefix("\n")
    return chunk.removesuffix("\n")


def frame(outputs: dict[str, ProbeOutput], nonce: str) -> str:
    """The session output a node would have printed for these probe outputs (replay and
    simulation use it, so parsing is exercised the same way as live)."""
    parts: list[str] = []
    for name, out in outputs.items():
        parts.append(f"\n@@HPD-{nonce} BEGIN {name}@@\n{out.stdout}")
        if not out.truncated:
            rc = out.exit_code if out.exit_code is not None else 0
            parts.append(f"\n@@HPD-{nonce} END {name} {rc}@@\n")
    return "".join(parts)
