"""Turn a command into a `Suggestion`: its kind, targets, blast radius, IaC note and flags.

The classifier (tools.commands) gives the verdict on the whole line; a few explicit rules
on each simple command of the line (a pipeline or list is split into its stages, and
``bash -c`` strings and ``$(...)`` bodies are read too) tell the kinds apart. The kind is
decided in this order, the first that holds wins:

1. read-only verdict → ``investigate``;
2. destructive rank 2 that takes nodes away (replacement, termination, node deletion,
   stopping instances) → ``replace``; other rank-2 commands (``rm -rf``, ``mkfs``, a
   prune) keep the kind the later rules give, with the data-loss flag;
3. a stage reboots a node (batch-reboot-cluster-nodes, reboot-instances, reboot/shutdown,
   systemctl reboot, scontrol reboot or ``Action:Reboot``), or the classifier's reason says
   the line reboots (a reboot run through an SSM session) → ``reboot``;
4. a stage changes configuration: the classifier's ``touches_config`` on that stage, or a
   kubectl verb that edits objects (label, cordon, drain, set, create...) → ``config``;
5. a stage acts on jobs or pods (scancel, sbatch, kill, scontrol requeue, kubectl delete
   pod, kubectl rollout restart, kubectl exec, docker/crictl stop...) → ``workload``;
6. anything else that is not read-only (unknown included) → ``node``.

Rule 5 is checked per stage before rule 4, so ``kubectl delete pod`` is a workload even
though the classifier marks every kubectl change as touching configuration.

A command run elsewhere keeps its meaning: the command that ``aws ssm send-command`` /
``start-session`` carry in ``--parameters``, ``ssh HOST CMD``, ``srun [-w NODES] CMD``,
``pdsh``/``clush -w NODES CMD`` and ``kubectl exec POD -- CMD`` is judged too, and its
verdict joins the outer one (``ssh ip-10-1-2-3 sudo reboot`` is a reboot of ip-10-1-2-3;
``kubectl exec p -- rm -rf /data`` stays a workload change, with the data-loss flag).
Labelling a node ``sagemaker.amazonaws.com/node-health-status=UnschedulablePendingReplacement``
makes HyperPod replace it (a replacement: volumes are lost), ``...PendingReboot`` reboot it.

Everything shown from the model's input is made inert for Markdown: the purpose (one
line, markup escaped, clipped, and the neutral default when it holds a command of its
own), the section, the blast radius; targets hold no backtick, and the template fences
the command with a backtick run longer than any inside it.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from agent.safety.extract import ID_PATTERN, find_commands, judge, without_comments
from agent.safety.markdown import fence_for
from agent.safety.model import (
    FLAG_BEFORE_TRIAGE,
    FLAG_DATA_LOSS,
    FLAG_REPLACE_BEFORE_REBOOT,
    FLAG_SLURM_CONTROLLER,
    FLAG_UNCLASSIFIED,
    Suggestion,
    SuggestionKind,
)
from prompts import render
from tools.commands import CommandClass
from tools.commands.args import option, word_set
from tools.commands.result import combine, mut
from tools.commands.shell import split_stages, substitutions, tokenize, unwrap

Language = Literal["en", "zh"]


@dataclass(frozen=True)
class SuggestionContext:
    """What the safety layer knows of the conversation when it judges a command."""

    triage_done: bool = False
    rebooted: frozenset[str] = field(default_factory=frozenset)
    """Nodes whose reboot the user reported done: instance ids and node names
    (hyperpod-i-…, ip-…), as the reboot named them."""
    slurm_controllers: frozenset[str] = field(default_factory=frozenset)
    """Instance ids of the Slurm controller nodes."""
    known_ids: frozenset[str] = field(default_factory=frozenset)
    """Ids seen in the cluster (node names, groups...): counted as targets when named."""
    language: Language = "en"


_TARGET = re.compile(
    ID_PATTERN.pattern
    + r"|(?<![\w-])--(?:cluster-name|name)(?:=|[ \t]+)['\"]?(?P<cluster>[^\s'\"`]+)"
    # An SSM target names its node as sagemaker-cluster:<id>_<group>-<instance id>.
    + r"|(?<![\w-])--target(?:=|[ \t]+)[^\s-]*-(?:[^\s-]*-)*?(?P<ssm>i-[0-9a-f]{4,17})(?![\w-])"
)
_INSTANCE = re.compile(r"(?<![0-9A-Za-z])i-[0-9a-f]{4,17}(?![0-9A-Za-z])")
_TOKEN = re.compile(r"[^\s=,'\"\[\]{}()`]+")

_AWS_REBOOTS = frozenset({"batch-reboot-cluster-nodes", "reboot-instances"})
_REBOOT_TOOLS = frozenset({"reboot", "shutdown", "poweroff", "halt"})
_SYSTEMCTL_REBOOTS = frozenset({"reboot", "poweroff", "halt", "kexec"})
_SHELLS = frozenset({"bash", "sh", "zsh", "su"})
_WORKLOAD_TOOLS = frozenset({"scancel", "sbatch", "srun", "salloc", "kill", "pkill", "killall"})
_SCONTROL_WORKLOAD = frozenset(
    {"requeue", "requeuehold", "suspend", "resume", "hold", "release", "top"}
)
_KUBECTL_VERBS = word_set(
    "get describe logs top delete cordon uncordon drain label annotate taint apply patch edit"
    " create scale set rollout exec run debug cp attach replace expose autoscale certificate"
    " config auth"
)
_KUBECTL_WORKLOAD_KINDS = frozenset({"pod", "pods", "po", "job", "jobs", "cronjob", "cronjobs"})
_KUBECTL_WORKLOAD_VERBS = frozenset({"exec", "run", "debug", "cp", "attach"})
_KUBECTL_CONFIG_VERBS = word_set(
    "label annotate cordon uncordon taint drain apply patch edit create scale set replace"
    " expose autoscale certificate delete"
)
_CONTAINER_WORKLOAD = frozenset({"stop", "kill", "restart", "rm", "rmp", "stopp", "run", "exec"})

_DEFAULT_PURPOSE: dict[SuggestionKind, tuple[str, str]] = {
    "investigate": ("Read the current state to confirm the diagnosis.", "读取当前状态以确认诊断。"),
    "config": ("Change the configuration that causes the problem.", "修改导致问题的配置。"),
    "workload": ("Restart or stop the affected workload.", "重启或停止受影响的工作负载。"),
    "node": ("Change the node's state to fix the problem.", "修改节点状态以修复问题。"),
    "reboot": ("Reboot the node to recover it.", "重启节点以恢复。"),
    "replace": (
        "Replace the node or remove the data, only once a reboot has not helped.",
        "在重启无效后，替换节点或删除数据。",
    ),
}
_REBOOT_REASON = re.compile(r"\breboots\b")
_MAX_DEPTH = 4
_MAX_COMMAND_CHARS = 20_000
_STAGE_ORDER: tuple[SuggestionKind, ...] = ("reboot", "config", "workload")


def targets_of(command: str, known_ids: Iterable[str] = ()) -> list[str]:
    """The ids a command names, in order, each once: resource ids, node names, cluster
    names after --cluster-name / --name, and any token that is one of ``known_ids``."""
    found: list[tuple[int, str]] = []
    for match in _TARGET.finditer(command):
        named = match.group("cluster") or match.group("ssm") or match.group()
        found.append((match.start(), named))
    known = frozenset(known_ids)
    if known:
        found.extend((m.start(), m.group()) for m in _TOKEN.finditer(command) if m.group() in known)
    return list(dict.fromkeys(value for _, value in sorted(found)))


def instance_ids(command: str) -> list[str]:
    """Instance ids anywhere in the command, also inside hyperpod-i-… and SSM targets."""
    return list(dict.fromkeys(_INSTANCE.findall(command)))


def _kubectl_kind(args: list[str]) -> SuggestionKind | None:
    words = [a for a in args if not a.startswith("-")]
    verbs = [i for i, w in enumerate(words) if w in _KUBECTL_VERBS]
    if not verbs:
        return None
    verb = words[verbs[0]]
    sub = words[verbs[0] + 1].split("/", 1)[0].lower() if verbs[0] + 1 < len(words) else ""
    if verb in _KUBECTL_WORKLOAD_VERBS or (verb == "rollout" and sub in ("restart", "undo")):
        return "workload"
    if verb == "delete" and sub in _KUBECTL_WORKLOAD_KINDS:
        return "workload"
    return "config" if verb in _KUBECTL_CONFIG_VERBS else None


def _scontrol_kind(args: list[str]) -> SuggestionKind | None:
    words = [a.lower() for a in args if not a.startswith("-")]
    verb = words[0] if words else ""
    joined = " ".join(words)
    if verb in ("reboot", "reboot_nodes") or "action:reboot" in joined:
        return "reboot"
    if verb in _SCONTROL_WORKLOAD or (verb == "update" and "jobid=" in joined):
        return "workload"
    return None


# --- commands run elsewhere -----------------------------------------------------------------

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
    tool, args = words[0].rsplit("/", 1)[-1], words[1:]
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


# Labelling a node's health status asks HyperPod to act on it.
_HEALTH_LABEL = re.compile(
    r"node-health-status=Unschedulable(PendingReplacement|PendingReboot)\b", re.IGNORECASE
)


def _label_effect(tool: str, args: list[str]) -> tuple[SuggestionKind, CommandClass] | None:
    if tool != "kubectl" or "label" not in args:
        return None
    for arg in args:
        match = _HEALTH_LABEL.search(arg)
        if match is None:
            continue
        if match.group(1).lower() == "pendingreplacement":
            return "replace", mut(
                "the node-health-status label UnschedulablePendingReplacement makes HyperPod "
                "replace the node (root and secondary volumes are destroyed)",
                2,
                config=True,
            )
        return "reboot", mut(
            "the node-health-status label UnschedulablePendingReboot: HyperPod reboots the node",
            1,
            config=True,
        )
    return None


@dataclass
class _Facts:
    """What the explicit rules see in a line: kinds, and verdicts the classifier's own
    verdict on the whole line may lack (commands run elsewhere, HyperPod label effects)."""

    kinds: set[SuggestionKind] = field(default_factory=set)
    verdicts: list[CommandClass] = field(default_factory=list)

    def add(self, other: _Facts) -> None:
        self.kinds |= other.kinds
        self.verdicts.extend(other.verdicts)


def _stage_facts(words: list[str], depth: int) -> _Facts:
    """The facts of one simple command by the explicit rules."""
    facts = _Facts()
    words, _ = unwrap(words)
    if not words:
        return facts
    tool, args = words[0].rsplit("/", 1)[-1], words[1:]
    verb = next((a for a in args if not a.startswith("-")), "")
    if tool in _SHELLS and "-c" in args and args.index("-c") + 1 < len(args):
        return _line_facts(args[args.index("-c") + 1], depth + 1)
    for inner in remote_commands(words):
        facts.verdicts.append(judge(inner))
        facts.add(_line_facts(inner, depth + 1))
    effect = _label_effect(tool, args)
    if effect is not None:
        facts.kinds.add(effect[0])
        facts.verdicts.append(effect[1])
    if (tool == "aws" and _AWS_REBOOTS & set(args)) or tool in _REBOOT_TOOLS:
        facts.kinds.add("reboot")
        return facts
    if tool == "systemctl" and verb in _SYSTEMCTL_REBOOTS:
        facts.kinds.add("reboot")
        return facts
    rule: SuggestionKind | None = None
    if tool == "scontrol":
        rule = _scontrol_kind(args)
    elif tool == "kubectl":
        rule = _kubectl_kind(args)
    elif tool in _WORKLOAD_TOOLS or (tool in ("docker", "crictl") and verb in _CONTAINER_WORKLOAD):
        rule = "workload"
    if rule is not None:
        facts.kinds.add(rule)
    elif judge(shlex.join(words)).touches_config:
        facts.kinds.add("config")
    return facts


def _line_facts(command: str, depth: int = 0) -> _Facts:
    facts = _Facts()
    # The classifier's own bounds: deeper or longer than this it answers "unknown" anyway.
    if depth > _MAX_DEPTH or len(command) > _MAX_COMMAND_CHARS:
        return facts
    command = without_comments(command)
    tokens = tokenize(command)
    if tokens is None:
        return facts
    for stage in split_stages(tokens)[0]:
        facts.add(_stage_facts(stage, depth))
    for body in substitutions(command):
        facts.add(_line_facts(body, depth + 1))
    return facts


def _verdict(judged: CommandClass, facts: _Facts) -> CommandClass:
    """The line's verdict joined with what the classifier did not see in it."""
    extra = [v for v in facts.verdicts if v.reason not in judged.reason]
    return combine([judged, *extra]) if extra else judged


# Rank-2 verdicts that take a node away (its volumes with it): a replacement in the sense
# of the destructive order. Other rank-2 commands destroy data on a node (rm -rf, mkfs,
# prune) and keep their own kind, with the data-loss flag.
_REMOVES_NODES = re.compile(r"replac|terminat|deletes nodes|stops instances", re.IGNORECASE)


def _kind(verdict: CommandClass, stage_kinds: set[SuggestionKind]) -> SuggestionKind:
    if verdict.kind == "read_only":
        return "investigate"
    if "replace" in stage_kinds:
        return "replace"
    if verdict.destructive_rank == 2 and _REMOVES_NODES.search(verdict.reason):
        return "replace"
    if _REBOOT_REASON.search(verdict.reason):
        return "reboot"  # a reboot the stage rules cannot see, e.g. run by an SSM session
    return next((k for k in _STAGE_ORDER if k in stage_kinds), "node")


_NETWORK_PREFIXES = ("sg-", "subnet-", "vpc-", "rtb-", "eni-", "vpce-", "igw-", "nat-", "acl-")


@dataclass(frozen=True)
class _Named:
    """A command's targets sorted by what they are, for the blast-radius sentence."""

    nodes: list[str]
    networks: list[str]
    clusters: list[str]

    @classmethod
    def of(cls, targets: list[str], command: str) -> _Named:
        clusters = [m.group("cluster") for m in _TARGET.finditer(command) if m.group("cluster")]
        networks = [t for t in targets if t.startswith(_NETWORK_PREFIXES)]
        nodes = [t for t in targets if t not in networks and t not in clusters]
        return cls(nodes, networks, list(dict.fromkeys(clusters)))

    def who(self, fallback: str, *, everything: bool = False) -> str:
        """The nodes (or all targets), then "in cluster c"; ``fallback`` when none."""
        names = [*self.nodes, *self.networks] if everything else self.nodes
        where = f" in cluster {', '.join(self.clusters)}" if self.clusters else ""
        if not names:
            return f"cluster {', '.join(self.clusters)}" if self.clusters else fallback
        return ", ".join(names) + where


def _reboot_how(command: str) -> str:
    if "batch-reboot-cluster-nodes" in command or "node-health-status" in command:
        return "HyperPod node reboot"
    if "reboot-instances" in command:
        return "graceful EC2 reboot"
    if "scontrol" in command:
        return "Slurm-driven reboot"
    return "OS reboot"


def _config_radius(verdict: CommandClass, named: _Named, command: str) -> str:
    groups = [t for t in named.networks if t.startswith("sg-")]
    if groups:
        return f"changes security group {', '.join(groups)} rules for every node that uses it"
    if named.networks:
        return f"changes {', '.join(named.networks)} for every node and endpoint that uses it"
    if "kubectl" in command:
        return f"changes Kubernetes objects on {named.who('the cluster')} ({verdict.reason})"
    return f"changes the configuration of {named.who('the cluster')} ({verdict.reason})"


def _blast_radius(
    kind: SuggestionKind, verdict: CommandClass, targets: list[str], command: str
) -> str:
    named = _Named.of(targets, command)
    its, it = ("its", "it") if len(named.nodes) <= 1 else ("their", "them")
    if kind == "investigate":
        return f"changes nothing ({verdict.reason})"
    if kind == "reboot":
        who = named.who("the node it runs on")
        return f"reboots {who} ({_reboot_how(command)}; running jobs on {it} stop)"
    if kind == "replace":
        reason = verdict.reason.lower()
        if "replace" in reason:
            who = named.who("the named nodes")
            return f"replaces {who}: {its} root and secondary volumes are destroyed"
        if "terminat" in reason or "deletes nodes" in reason:
            return f"removes {named.who('the named instances')}: {its} volumes are lost"
        who = named.who("the node it runs on", everything=True)
        return f"destroys data on {who} ({verdict.reason}); this cannot be undone"
    if kind == "config":
        return _config_radius(verdict, named, command)
    if kind == "workload":
        who = named.who("the cluster")
        if verdict.destructive_rank == 2:
            return f"interrupts workloads on {who} and destroys data ({verdict.reason})"
        return f"interrupts workloads on {who} ({verdict.reason})"
    prefix = "unclassified, treated as a change: " if verdict.kind == "unknown" else ""
    who = named.who("the node it runs on", everything=True)
    if verdict.destructive_rank == 2:
        return f"destroys data on {who} ({verdict.reason}); this cannot be undone"
    return f"{prefix}changes state on {who} ({verdict.reason})"


def iac_warning(language: Language) -> str:
    """The IaC question and drift warning, from the shared template."""
    return render("iac_warning.jinja2", language=language).strip()


def _named_nodes(command: str, known_ids: frozenset[str]) -> list[frozenset[str]]:
    """The nodes a command names, each as the names it may go by: an instance id with its
    hyperpod-i-… node name, a Slurm ip-… name, or a known node name seen in the cluster."""
    nodes: dict[str, frozenset[str]] = {}
    for instance in instance_ids(command):
        nodes[instance] = frozenset({instance, f"hyperpod-{instance}"})
    for match in ID_PATTERN.finditer(command):
        if match.group().startswith("ip-"):
            nodes.setdefault(match.group(), frozenset({match.group()}))
    if known_ids:
        for match in _TOKEN.finditer(command):
            name = match.group()
            covered = any(name in aliases for aliases in nodes.values())
            if name in known_ids and not covered and not name.startswith(_NETWORK_PREFIXES):
                nodes[name] = frozenset({name})
    return list(nodes.values())


def _flags(
    kind: SuggestionKind, verdict: CommandClass, command: str, context: SuggestionContext
) -> list[str]:
    nodes = _named_nodes(command, context.known_ids)
    flags: list[str] = []
    # The flag goes only when every node named was rebooted; a replacement that names no
    # node we can check ($(cat ids.txt), a group) keeps it.
    if kind == "replace" and (not nodes or any(not (n & context.rebooted) for n in nodes)):
        flags.append(FLAG_REPLACE_BEFORE_REBOOT)
    named = {name for aliases in nodes for name in aliases} | set(targets_of(command))
    if kind in ("replace", "reboot") and named & context.slurm_controllers:
        flags.append(FLAG_SLURM_CONTROLLER)
    if verdict.kind != "read_only" and not context.triage_done:
        flags.append(FLAG_BEFORE_TRIAGE)
    if verdict.kind == "unknown":
        flags.append(FLAG_UNCLASSIFIED)
    if verdict.destructive_rank == 2:
        flags.append(FLAG_DATA_LOSS)
    return flags


_PURPOSE_CHARS = 300
_SECTION_CHARS = 40
_RADIUS_CHARS = 1_000
_PURPOSE_READ = 2_000  # of a purpose, read for a command of its own
# Characters Markdown acts on inside a line, escaped with a backslash; and invisible ones
# (controls, bidirectional overrides) that would change what a terminal shows.
_MARKDOWN_ACTIVE = re.compile(r"([\\*_#<>\[\]|~])")
_INVISIBLE = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_LIST_START = re.compile(r"(\d{1,9})([.)])")


def inert_line(text: str, limit: int) -> str:
    """``text`` as one line of plain text that Markdown shows as written: whitespace
    collapsed, invisible characters dropped, backticks turned into quotes, characters
    Markdown acts on escaped, clipped to ``limit`` characters (before escaping)."""
    line = " ".join(_INVISIBLE.sub(" ", text.replace("`", "'")).split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    line = _MARKDOWN_ACTIVE.sub(r"\\\1", line)
    if line[:1] in ("-", "+"):
        line = "\\" + line  # not a list item
    return _LIST_START.sub(r"\1\\\2", line, count=1) if _LIST_START.match(line) else line


def _runs_a_command(text: str) -> bool:
    """Does ``text`` hold a command the gate would turn into a suggestion?"""
    for variant in (text, " ".join(text.split())):
        if any(judge(f.command).kind != "read_only" for f in find_commands(variant)):
            return True
    return False


def _purpose(purpose: str, default: str) -> str:
    """The purpose as shown: a line of inert text, or the neutral default when it is
    empty or holds a command of its own (a second, forged command block)."""
    if not purpose.strip() or _runs_a_command(purpose[:_PURPOSE_READ]):
        return default
    return inert_line(purpose, _PURPOSE_CHARS) or default


def build_suggestion(
    command: str,
    *,
    purpose: str,
    context: SuggestionContext,
    section: str | None = None,
    source: Literal["tool", "text"] = "tool",
) -> Suggestion:
    """Judge ``command`` and describe it for the user; it is never run here."""
    command = command.strip()
    judged = judge(command)
    facts = _line_facts(command) if judged.kind != "read_only" else _Facts()
    verdict = _verdict(judged, facts)
    kind = _kind(verdict, facts.kinds)
    targets = targets_of(command, context.known_ids)
    english, chinese = _DEFAULT_PURPOSE[kind]
    default = chinese if context.language == "zh" else english
    radius = _blast_radius(kind, verdict, targets, command)
    return Suggestion(
        command=command,
        kind=kind,
        mutating=verdict.kind != "read_only",
        purpose=_purpose(purpose, default),
        targets=targets,
        blast_radius=inert_line(radius, _RADIUS_CHARS),
        iac_warning=iac_warning(context.language) if "config" in facts.kinds else None,
        flags=_flags(kind, verdict, command, context),
        section=None if section is None else inert_line(section, _SECTION_CHARS),
        source=source,
    )


def render_suggestion(suggestion: Suggestion, language: Language) -> str:
    """The Markdown block shown to the user, from the shared template.

    The command is fenced with a backtick run longer than any inside it, so no line of it
    can close the block early."""
    return render(
        "suggested_command.jinja2",
        suggestion=suggestion,
        language=language,
        fence=fence_for(suggestion.command),
    )
