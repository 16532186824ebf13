"""Slurm: the read-only query tools, scontrol, and the commands that submit or cancel work.

Cancelling jobs or rebooting Slurm nodes interrupts workloads (rank 1); submitting work
allocates nodes but disrupts none (rank 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.commands.args import positionals, word_set
from tools.commands.result import CommandClass, Handler, Rank, mut, ro, unknown

READ_ONLY_TOOLS = word_set("sinfo squeue sacct sstat sprio sshare sdiag sreport")

# tool -> (rank, reason)
ALWAYS_MUTATING: dict[str, tuple[Rank, str]] = {
    "scancel": (1, "cancels Slurm jobs"),
    **dict.fromkeys(("sbatch", "srun", "salloc"), (0, "submits work to Slurm (allocates nodes)")),
}


def _scontrol(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args)
    if not words:
        return unknown("interactive scontrol can change anything")
    verb = words[0].lower()
    if verb in ("show", "ping", "version", "listpids", "help"):
        return ro(f"scontrol {verb} is read-only")
    if verb in ("reboot", "reboot_nodes"):
        return mut("scontrol reboot reboots Slurm nodes", 1)
    if verb in ("requeue", "requeuehold", "suspend", "shutdown", "takeover"):
        return mut(f"scontrol {verb} interrupts jobs or daemons", 1)
    joined = " ".join(args).lower()
    # On HyperPod, marking a node failed with this reason asks the service to act on it.
    if "action:replace" in joined:
        return mut("scontrol marks the node for HyperPod replacement (volumes are lost)", 2)
    if "action:reboot" in joined:
        return mut("scontrol marks the node for a HyperPod reboot", 1)
    return mut(f"scontrol {verb} changes Slurm state")


HANDLERS: dict[str, Handler] = {"scontrol": _scontrol}
