"""Commands run on other machines: ssh, pdsh, clush.

Each joins the words after the host (or host list) into a command line that a shell on the
far side runs, so that line is classified as ``bash -c`` classifies its argument.
`remote_commands` returns that line, and the command that ``srun``, ``kubectl`` / ``docker``
/ ``crictl exec`` and ``aws ssm send-command`` / ``start-session`` run, for the safety
layer's rules (`agent.safety.kinds`), reading options by the grammars the handlers use. With no
command they open an interactive shell (``unknown``). Options that run local commands
(ssh's ProxyCommand or LocalCommand, a config file) or that are not known make the answer
``unknown``: an unknown option may take the next word, which would move the command.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from tools.command_safety.args import Grammar, Parsed, grammar, option, parse, word_set
from tools.command_safety.result import CommandClass, Handler, mut, unknown
from tools.command_safety.slurm import _SRUN
from tools.command_safety.words import command_name

_SSH = grammar(
    values="-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w",
    flags="-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y",
    abbreviate=False,
)
_SSH_REFUSED = {
    "-F": "reads a config file (which can run local commands)",
    "-O": "sends a control command to a master connection",
    "-s": "starts a subsystem, not a command",
    "-W": "forwards a connection, runs no command",
    "-N": "runs no command (port forwarding)",
    "-G": "only prints its configuration",
    "-Q": "only prints what it supports",
    "-L": "forwards a port as well",
    "-R": "forwards a port as well (a local service becomes reachable from the host)",
    "-D": "opens a SOCKS proxy as well",
    "-w": "creates tunnel devices as well",
}
_SSH_SAFE_OPTIONS = word_set(
    """
    stricthostkeychecking userknownhostsfile connecttimeout batchmode loglevel
    serveraliveinterval serveralivecountmax user port identityfile identitiesonly
    passwordauthentication pubkeyauthentication proxyjump connectionattempts compression
    forwardagent requesttty addkeystoagent hostkeyalgorithms globalknownhostsfile
    checkhostip hostname
    """
)


def _remote(tool: str, host: str, command: Sequence[str], depth: int) -> CommandClass:
    # Imported here: the dispatcher imports this module for its handler table.
    from tools.command_safety.classifier import classify_nested

    if not command:
        return unknown(f"{tool} opens an interactive shell on {host}")
    inner = classify_nested(" ".join(command), depth + 1)
    reason = f"{tool} runs on {host}: {inner.reason}"
    return CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, reason)


def _ssh_refusal(parsed: Parsed) -> str | None:
    if parsed.error is not None:
        return f"option {parsed.error} not recognised"
    for name, value in parsed.options:
        if name in _SSH_REFUSED:
            return f"{name} {_SSH_REFUSED[name]}"
        if name == "-o":
            key = (value or "").replace("=", " ").split(" ", 1)[0].lower()
            if key not in _SSH_SAFE_OPTIONS:
                return f"-o {key or '?'} may run local commands or change what runs"
    return None


def _ssh(args: Sequence[str], depth: int) -> CommandClass:
    # ssh reads options before the host and again right after it.
    first = parse(args, _SSH, stop=True)
    refusal = _ssh_refusal(first)
    if refusal is None and first.rest:
        host = first.rest[0]
        second = parse(first.rest[1:], _SSH, stop=True)
        refusal = _ssh_refusal(second)
        if refusal is None:
            return _remote("ssh", host, second.rest, depth)
    return unknown(f"ssh {refusal or 'without a host'}")


def _fan_out(tool: str, g: Grammar, copies: frozenset[str], refused: frozenset[str]) -> Handler:
    """pdsh and clush: options, then the command every node runs."""

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        parsed = parse(args, g, stop=True)
        if parsed.error is not None:
            return unknown(f"{tool} option {parsed.error} not recognised")
        names = {n for n, _ in parsed.options}
        if names & copies:
            return mut(f"{tool} copies files to the nodes")
        if names & refused:
            return unknown(f"{tool} {sorted(names & refused)[0]} changes how it connects")
        hosts = ",".join(v for n, v in parsed.options if n in ("-w", "-g", "--group") and v)
        return _remote(tool, hosts or "the nodes", parsed.rest, depth)

    return handler


_PDSH = grammar(
    values="-w -x -g -X -l -t -u -f -R -M -P -j -F -C -m",
    flags="-a -A -N -b -d -S -k -Q -q -V -L -h",
    abbreviate=False,
)
_CLUSH = grammar(
    values="-w -x -g --group -X -l --user -f --fanout -t --connect_timeout -u"
    " --command_timeout -R --worker -m --mode --hostfile -s --groupsource --dest --color"
    " -O --option -o --options --pick --topology --conf",
    flags="-a --all -b --dshbak -B -L -q --quiet -v --verbose -d --debug -N -S --nostdin"
    " --diff -P --progress --version -h --help -r --regroup -G --groupbase -c --copy"
    " --rcopy -p -n --nostdout",
)

HANDLERS: dict[str, Handler] = {
    "ssh": _ssh,
    "pdsh": _fan_out("pdsh", _PDSH, frozenset(), word_set("-F")),
    "clush": _fan_out(
        "clush", _CLUSH, word_set("-c --copy --rcopy"), word_set("-O --option -o --options --conf")
    ),
}


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
        at = _first_positional(args, _SSH.values)
        return [" ".join(args[at + 1 :])] if at + 1 < len(args) else []
    if tool == "srun":
        at = _first_positional(args, _SRUN.values)
        return [shlex.join(args[at:])] if at < len(args) else []
    if tool in ("pdsh", "clush"):
        at = _first_positional(args, (_PDSH if tool == "pdsh" else _CLUSH).values)
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
