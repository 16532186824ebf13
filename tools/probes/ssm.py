"""The live transport: one non-interactive SSM session per node, through session-manager-plugin.

StartSession goes through `AwsAccess` (so the guard sees the exact command: a catalogue
bundle, the AWS-StartNonInteractiveCommand document, a HyperPod node target); the plugin
then carries the session's stream, started the way the AWS CLI starts it. The plugin only
forwards the node's output when its stdout is a terminal (the original skill wrapped it in
`unbuffer` for that), so it runs on a pseudo-terminal from the standard library and we read
the master side until it exits or the node's budget is spent. The session is always
terminated afterwards, so nothing is left running on the node.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tools.aws.errors import AccessDenied, AwsAccessError, CredentialsMissing, Throttled
from tools.aws.ssm_guard import PROBE_DOCUMENT
from tools.probes.transport import NodeUnreachable, ProbeTarget

if TYPE_CHECKING:
    from tools.aws.session import AwsAccess

PLUGIN = "session-manager-plugin"
# Plugins newer than this read the StartSession response from the environment variable
# named in argv instead of argv itself (the AWS CLI does the same): the session token then
# never shows in the process list.
_LAST_VERSION_WITHOUT_ENV = (1, 2, 497, 0)
_RESPONSE_ENV = "AWS_SSM_START_SESSION_RESPONSE"
_MAX_OUTPUT_BYTES = 16 * 1024 * 1024  # the probes tail their logs; this is a safety net
_READ_CHUNK = 65536
# The plugin tells the node our terminal size; a zero-sized one can make tools on the node
# wrap or truncate their tables. Wide enough for any probe line.
_WINDOW = struct.pack("HHHH", 50, 512, 0, 0)
_NONCE = re.compile(r"@@HPD-([0-9a-f]{16}) BEGIN ")
# The reason a node refused with TargetNotConnected is reported with (the bundled scenario
# of that refusal uses it too, so replay reads as a live run does).
TARGET_NOT_CONNECTED = (
    "TargetNotConnected: SSM cannot reach this node. Usually the wrong account, region or "
    "cluster id (the target must use the cluster id, not its name), or the SSM agent on "
    "the node is down"
)


def find_plugin() -> str | None:
    return shutil.which(PLUGIN)


def _error_code(exc: AwsAccessError) -> str:
    return exc.detail.split(":", 1)[0].strip()


def _version(text: str) -> tuple[int, ...] | None:
    cleaned = "".join(text.split())
    if not re.fullmatch(r"\d+(\.\d+){0,3}", cleaned):
        return None
    parts = [int(p) for p in cleaned.split(".")]
    return tuple(parts + [0] * (4 - len(parts)))


class SsmSessionTransport:
    """ProbeTransport over SSM sessions. One instance serves many nodes concurrently."""

    def __init__(
        self,
        access: AwsAccess,
        plugin: str,
        *,
        profile: str | None,
        endpoint_url: str | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._access = access
        self._plugin = plugin
        self._profile = profile
        self._endpoint_url = endpoint_url
        self._clock = clock
        self._env_handoff: bool | None = None

    # -- ProbeTransport --------------------------------------------------------------------

    def run_command(self, target: ProbeTarget, command: str, timeout_s: float) -> str:
        params: dict[str, Any] = {
            "Target": target.ssm_target,
            "DocumentName": PROBE_DOCUMENT,
            "Parameters": {"command": [command]},
        }
        response = self._start(params)
        session_id = response.get("SessionId")
        try:
            output, exited = self._run_plugin(response, params, timeout_s)
        finally:
            if isinstance(session_id, str) and session_id:
                self._terminate(session_id)
        nonce = _NONCE.search(command)
        if nonce is None or f"@@HPD-{nonce.group(1)} BEGIN " not in output:
            last = _last_line(output)
            what = (
                "the session-manager-plugin ended"
                if exited
                else f"no output within {timeout_s:.0f} s"
            )
            detail = f": {last}" if last else " without any output"
            raise NodeUnreachable(f"{what} before any probe started{detail}")
        return output

    # -- AWS -------------------------------------------------------------------------------

    def _start(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._access.call("ssm", "StartSession", **params)
        except AccessDenied:
            raise NodeUnreachable("Missing IAM permission for ssm:StartSession") from None
        except Throttled as exc:
            raise NodeUnreachable(
                f"SSM throttled StartSession ({exc.detail})", transient=True
            ) from None
        except AwsAccessError as exc:
            if _error_code(exc) == "TargetNotConnected":
                raise NodeUnreachable(TARGET_NOT_CONNECTED, transient=True) from None
            raise NodeUnreachable(exc.reason) from None

    def _terminate(self, session_id: str) -> None:
        # Best effort: the session ends by itself when the command does; this only makes
        # sure a timed-out one does not keep running on the node.
        with contextlib.suppress(AwsAccessError, CredentialsMissing):
            self._access.call("ssm", "TerminateSession", SessionId=session_id)

    # -- the plugin ------------------------------------------------------------------------

    def _supports_env_handoff(self) -> bool:
        if self._env_handoff is None:
            try:
                done = subprocess.run(
                    [self._plugin, "--version"],
                    capture_output=True,
                    text=True,
                    timeout=15,
                    stdin=subprocess.DEVNULL,
                    check=False,
                )
                version = _version(done.stdout)
            except (OSError, subprocess.SubprocessError):
                version = None
            self._env_handoff = version is not None and version > _LAST_VERSION_WITHOUT_ENV
        return self._env_handoff

    def _argv(
        self, response: dict[str, Any], params: dict[str, Any]
    ) -> tuple[list[str], dict[str, str]]:
        session = json.dumps(
            {key: response.get(key) for key in ("SessionId", "TokenValue", "StreamUrl")}
        )
        env = dict(os.environ)
        first = session
        if self._supports_env_handoff():
            env[_RESPONSE_ENV] = session
            first = _RESPONSE_ENV
        endpoint = self._endpoint_url or str(self._access.client("ssm").meta.endpoint_url)
        argv = [
            self._plugin,
            first,
            self._access.region,
            "StartSession",
            self._profile or "",
            json.dumps(params),
            endpoint,
        ]
        return argv, env

    def _run_plugin(
        self, response: dict[str, Any], params: dict[str, Any], timeout_s: float
    ) -> tuple[str, bool]:
        """Everything the plugin printed, and whether it exited by itself."""
        argv, env = self._argv(response, params)
        master, slave = os.openpty()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, _WINDOW)
            process = subprocess.Popen(
                argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                start_new_session=True,  # its own process group: a timeout kills it all
                close_fds=True,
            )
        except OSError as exc:
            os.close(master)
            os.close(slave)
            raise NodeUnreachable(f"cannot run {PLUGIN}: {exc.strerror or exc}") from None
        os.close(slave)  # only the child holds it now: EOF/EIO on master once it exits
        exited = False
        try:
            data, ended = self._read_until_exit(master, process, self._clock() + timeout_s)
            if ended:
                # The terminal closed: the plugin is exiting; reap it (or kill a straggler).
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=2)
            exited = process.poll() is not None
        finally:
            if not exited:
                _kill_group(process)
            os.close(master)
        return data.decode("utf-8", errors="replace"), exited

    def _read_until_exit(
        self, master: int, process: subprocess.Popen[bytes], deadline: float
    ) -> tuple[bytes, bool]:
        """Read the terminal until it closes (True), or the deadline or size cap (False)."""
        chunks: list[bytes] = []
        size = 0
        while size < _MAX_OUTPUT_BYTES:
            remaining = deadline - self._clock()
            if remaining <= 0:
                break
            ready, _, _ = select.select([master], [], [], min(remaining, 0.25))
            if not ready:
                if process.poll() is not None:
                    return b"".join(chunks), True
                continue
            try:
                chunk = os.read(master, _READ_CHUNK)
            except OSError:  # EIO: every slave end is closed, the plugin is gone
                return b"".join(chunks), True
            if not chunk:
                return b"".join(chunks), True
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), False


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


def _last_line(output: str) -> str:
    lines = [
        line.strip()
        for line in output.replace("\r", "\n").split("\n")
        if line.strip() and not line.strip().startswith("Starting session with SessionId")
    ]
    return lines[-1][:200] if lines else ""
