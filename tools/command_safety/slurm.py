"""Slurm: the read-only query tools, scontrol, and the commands that submit or cancel work.

Cancelling jobs or rebooting Slurm nodes interrupts workloads (rank 1); submitting work
allocates nodes but disrupts none (rank 0), though what the work runs (``srun sudo reboot``,
``sbatch --wrap``) is classified too and can raise the rank. scontrol's options are read by
its own grammar, anywhere on the line as getopt permutes them: an option not known there
may take the next word as its value and so move the subcommand, which is ``unknown``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.command_safety.args import (
    WriteOptions,
    grammar,
    option_values,
    parse,
    reads_unless,
    word_set,
)
from tools.command_safety.result import CommandClass, Handler, Rank, combine, mut, ro, unknown

READ_ONLY_TOOLS = word_set("sinfo squeue sacct sstat sprio sshare sreport")

# tool -> (rank, reason)
ALWAYS_MUTATING: dict[str, tuple[Rank, str]] = {
    "scancel": (1, "cancels Slurm jobs"),
    "salloc": (0, "submits work to Slurm (allocates nodes)"),
}

_SCONTROL = grammar(
    values="-M --clusters -u --uid",
    flags="-a --all -d --details -h --help --hide -o --oneliner -Q --quiet -v --verbose -V"
    " --version --federation --local --sibling --usage --future",
    optional="--json --yaml",
)


def _scontrol(args: Sequence[str], depth: int) -> CommandClass:
    parsed = parse(args, _SCONTROL)
    if parsed.error is not None:
        return unknown(f"scontrol option {parsed.error} not recognised")
    words = parsed.words
    if not words:
        if parsed.has("-h", "--help", "-V", "--version", "--usage"):
            return ro("scontrol help or version")
        return unknown("interactive scontrol can change anything")
    verb = words[0].lower()
    if verb in ("show", "ping", "version", "listpids", "help"):
        return ro(f"scontrol {verb} is read-only")
    if verb in ("reboot", "reboot_nodes"):
        return mut("scontrol reboot reboots Slurm nodes", 1)
    if verb in ("requeue", "requeuehold", "suspend", "shutdown", "takeover"):
        return mut(f"scontrol {verb} interrupts jobs or daemons", 1)
    joined = " ".join(words).lower()
    # On HyperPod, marking a node failed with this reason asks the service to act on it.
    if "action:replace" in joined:
        return mut("scontrol marks the node for HyperPod replacement (volumes are lost)", 2)
    if "action:reboot" in joined:
        return mut("scontrol marks the node for a HyperPod reboot", 1)
    return mut(f"scontrol {verb} changes Slurm state")


# srun stops reading its options at the program it runs ("+" in its getopt string).
_SRUN = grammar(
    values="-A --account -b --begin -c --cpus-per-task -C --constraint -d --dependency -D"
    " --chdir -e --error -i --input -J --job-name -L --licenses -m --distribution -n --ntasks"
    " -N --nodes -o --output -p --partition -q --qos -t --time -w --nodelist -x --exclude -W"
    " --wait -T --threads -G --gpus -B --extra-node-info --mem --mem-per-cpu --mem-per-gpu"
    " --gres --mpi --ntasks-per-node --ntasks-per-socket --ntasks-per-core --ntasks-per-gpu"
    " --cpu-bind --mem-bind --gpus-per-node --gpus-per-task --gpus-per-socket --cpus-per-gpu"
    " --gpu-bind --reservation --signal --time-min --het-group --jobid --export --container"
    " --comment --network --switches --tmp --mincpus --cores-per-socket --sockets-per-node"
    " --threads-per-core --hint --cpu-freq --mail-type --mail-user --profile --wckey"
    " --open-mode --uid --gid -F --nodefile -r --relative"
    # pyxis, the container plugin of HyperPod's Slurm clusters:
    # https://github.com/NVIDIA/pyxis (srun --container-image / --container-mounts)
    " --container-image --container-mounts --container-name --container-workdir",
    flags="-l --label -u --unbuffered -v --verbose -Q --quiet -E --preserve-env -X"
    " --disable-status -Z --no-allocate -O --overcommit -s --oversubscribe -h --help -V"
    " --version --pty --overlap --exact --contiguous --test-only --usage -H --hold"
    " --spread-job --use-min-nodes",
    optional="--exclusive -K --kill-on-bad-exit -k --no-kill -I --immediate --propagate",
)


def _srun(args: Sequence[str], depth: int) -> CommandClass:
    from tools.command_safety.classifier import classify_argv

    base = mut("srun submits work to Slurm (allocates nodes)")
    parsed = parse(args, _SRUN, stop=True)
    if parsed.error is not None or not parsed.rest:
        return base
    inner = classify_argv(parsed.rest, depth + 1)
    on_nodes = f"srun runs on the nodes: {inner.reason}"
    return combine(
        [base, CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, on_nodes)]
    )


def _sbatch(args: Sequence[str], depth: int) -> CommandClass:
    from tools.command_safety.classifier import classify_nested

    base = mut("sbatch submits work to Slurm (allocates nodes)")
    inner = [classify_nested(s, depth + 1) for s in option_values(args, "--wrap")]
    return combine([base, *inner])


def _sacctmgr(args: Sequence[str], depth: int) -> CommandClass:
    """sacctmgr show / list read the accounting database; add, modify, delete change it."""
    words = [a for a in args if not a.startswith("-")]
    if words and words[0].lower() in ("show", "list"):
        return ro("sacctmgr show is read-only")
    if not words:
        return unknown("sacctmgr without a command (interactive)")
    return mut(f"sacctmgr {words[0]} changes the accounting database")


HANDLERS: dict[str, Handler] = {
    "sacctmgr": _sacctmgr,
    "scontrol": _scontrol,
    "srun": _srun,
    "sbatch": _sbatch,
    "sdiag": reads_unless("sdiag", WriteOptions(changes="-r --reset", values="-M --cluster")),
}
