"""Commands run elsewhere: what one simple command runs on another node or in a container.

The command that ``aws ssm send-command`` / ``start-session`` carry in ``--parameters``,
``ssh HOST CMD``, ``srun [-w NODES] CMD``, ``pdsh``/``clush -w NODES CMD`` and ``kubectl
exec POD -- CMD`` (``docker`` / ``crictl exec`` too) is returned by `remote_commands`, so
that it is judged as well (see `agent.safety.kinds`)."""

from __future__ import annotations

import json
import shlex

from tools.command_safety.args import option, word_set
from tools.command_safety.words import command_name

_SSH_VALUE = word_set("-b -B -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w")
_SRUN_VALUE = word_set(
    "-A --account -c --cpus-per-task -C --constraint -d --dependency -D --chdir -e --error"
    " -i --input -J --job-name -L --licenses -m --distribution -n --ntasks -N --nodes -o"
    " --output -p --partition -q --qos -t --time -w --nodelist -x --exclude -G --gpus --gres"
    " --mem --mem-per-cpu --mem-per-gpu --gpus-per-node --gpus-per-task --ntasks-per-node"
    " --cpu-bind --mpi --container-image --container-mounts --export -T --threads"
    " --reservation --time-min -B --extra-node-info -r --relative --nodefile -F"
)
_PARALLEL_SHELL_VALUE = word_set("-w -x -g -X -l -t -u -f -R -M -F -o -O")
_DOCKER_EXEC_VALUE = word_set("-u --user -w --workdir -e --env --env-file --detach-keys")


def _first_positional(args: list[str], takes_value: frozenset[str]) -> int:
    """The index of the first argument that is neither an option nor an option's value."""
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        index += 2 if args[index] in takes_value else 1
    return index


def _ssm_commands(parameters: str) -> list[str]:
    """The commands an SSM document's ``--parameters`` carry (``commands=...``, JSON)."""
    text = parameters.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        found: list[str] = []
        for key in ("commands", "command"):
            value = data.get(key)
            if isinstance(value, list):
                found.extend(str(v) for v in value)
            elif value is not None:
                found.append(str(value))
        return found
    for key in ("commands=", "command="):
        if text.startswith(key):
            inner = text.removeprefix(key).strip()
            if inner.startswith("[") and inner.endswith("]"):
                try:
                    values = json.loads(inner)
                except ValueError:
                    values = None
                if isinstance(values, list):
                    return [str(v) for v in values]
                inner = inner[1:-1]
            # Shorthand syntax: a comma separates the list's items.
            return [piece.strip().strip("'\"") for piece in inner.split(",") if piece.strip()]
    return []


def remote_commands(words: list[str]) -> list[str]:
    """The commands one simple command runs elsewhere: on another node (ssh, srun, pdsh,
    clush, SSM) or in a container (kubectl / docker / crictl exec)."""
    tool, args = command_name(words[0]), words[1:]
    if tool == "ssh":
        at = _first_positional(args, _SSH_VALUE)
        return [" ".join(args[at + 1 :])] if at + 1 < len(args) else []
    if tool == "srun":
        at = _first_positional(args, _SRUN_VALUE)
        return [shlex.join(args[at:])] if at < len(args) else []
    if tool in ("pdsh", "clush"):
        at = _first_positional(args, _PARALLEL_SHELL_VALUE)
        return [" ".join(args[at:])] if at < len(args) else []
    if tool in ("kubectl", "docker", "crictl") and "exec" in args:
        if "--" in args:
            return [shlex.join(args[args.index("--") + 1 :])]
        if tool == "kubectl":
            return []
        rest = args[args.index("exec") + 1 :]
        at = _first_positional(rest, _DOCKER_EXEC_VALUE)
        return [shlex.join(rest[at + 1 :])] if at + 1 < len(rest) else []
    if tool == "aws" and "ssm" in args and {"send-command", "start-session"} & set(args):
        parameters = option(args, "--parameters")
        return _ssm_commands(parameters) if parameters else []
    return []
