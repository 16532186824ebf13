"""Run the Slurm controller probes on this machine, when it is a Slurm login/controller host.

Only probes of kind SLURM_CONTROLLER (sinfo, squeue, scontrol ping, HyperPod's resource
config) may run here: they read the scheduler's view, which is the same from any host of
the cluster. Node probes (disks, GPUs, kernel) describe the machine they run on, so running
them here would report on the wrong host; they are refused.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import IO

from tools.probes.catalog import CATALOGUE, NodeKind
from tools.probes.framing import bundle_probes
from tools.probes.model import NodeProbes
from tools.probes.runner import ProbeRunner
from tools.probes.transport import ProbeTarget

_GRACE_S = 1.0  # how long to wait for the last output once the shell has ended


def _drain(stream: IO[bytes], chunks: list[bytes]) -> None:
    descriptor = stream.fileno()
    for chunk in iter(lambda: os.read(descriptor, 65536), b""):
        chunks.append(chunk)


class LocalSlurmTransport:
    """A ProbeTransport that runs a bundle of Slurm controller probes in a local shell."""

    def run_command(self, target: ProbeTarget, command: str, timeout_s: float) -> str:
        names = bundle_probes(command)
        if names is None:
            raise ValueError("refusing a command that is not a catalogue bundle")
        not_here = [n for n in names if CATALOGUE[n].kind is not NodeKind.SLURM_CONTROLLER]
        if not_here:
            raise ValueError(f"refusing to run node probes on this machine: {', '.join(not_here)}")
        process = subprocess.Popen(
            ["/bin/sh", "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a timeout kills the probes' children too
        )
        # Read in a thread: each probe runs under `timeout`, which moves itself to its own
        # process group, so after we kill ours a probe's `timeout` can keep the pipe open
        # for up to its own limit. We return what arrived instead of waiting for EOF.
        chunks: list[bytes] = []
        assert process.stdout is not None
        reader = threading.Thread(target=_drain, args=(process.stdout, chunks), daemon=True)
        reader.start()
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        reader.join(timeout=_GRACE_S)
        return b"".join(list(chunks)).decode("utf-8", errors="replace")


def local_slurm_runner(
    *, on_node_done: Callable[[NodeProbes], None] | None = None
) -> ProbeRunner | None:
    """A runner for the Slurm controller probes here, or None when sinfo is not installed."""
    if shutil.which("sinfo") is None:
        return None
    return ProbeRunner(LocalSlurmTransport(), concurrency=1, on_node_done=on_node_done)
