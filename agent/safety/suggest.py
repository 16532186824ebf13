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
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from agent.safety.extract import ID_PATTERN, judge
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
from tools.commands.args import word_set
from tools.commands.shell import split_stages, substitutions, tokenize, unwrap

Language = Literal["en", "zh"]


@dataclass(frozen=True)
class SuggestionContext:
    """What the safety layer knows of the conversation when it judges a command."""

    triage_done: bool = False
    rebooted: frozenset[str] = field(default_factory=frozenset)
    """Instance ids whose reboot the user reported done."""
    slurm_controllers: frozenset[str] = field(default_factory=frozenset)
    """Instance ids of the Slurm controller nodes."""
    known_ids: frozenset[str] = field(default_factory=frozenset)
    """Ids seen in the cluster (node names, groups...): counted as targets when named."""
    language: Language = "en"


_TARGET = re.compile(
    ID_PATTERN.pattern
    + r"|(?<![\w-])--(?:cluster-name|name)(?:=|[ \t]+)['\"]?(?P<cluster>[^\s'\"]+)"
    # An SSM target names its node as sagemaker-cluster:<id>_<group>-<instance id>.
    + r"|(?<![\w-])--target(?:=|[ \t]+)[^\s-]*-(?:[^\s-]*-)*?(?P<ssm>i-[0-9a-f]{4,17})(?![\w-])"
)
_INSTANCE = re.compile(r"(?<![0-9A-Za-z])i-[0-9a-f]{4,17}(?![0-9A-Za-z])")
_TOKEN = re.compile(r"[^\s=,'\"\[\]{}()]+")

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


def _stage_kinds(words: list[str], depth: int) -> set[SuggestionKind]:
    """The kinds one simple command shows by the explicit rules (empty: none applies)."""
    words, _ = unwrap(words)
    if not words:
        return set()
    tool, args = words[0].rsplit("/", 1)[-1], words[1:]
    verb = next((a for a in args if not a.startswith("-")), "")
    if tool in _SHELLS and "-c" in args and args.index("-c") + 1 < len(args):
        return _line_kinds(args[args.index("-c") + 1], depth + 1)
    if (tool == "aws" and _AWS_REBOOTS & set(args)) or tool in _REBOOT_TOOLS:
        return {"reboot"}
    if tool == "systemctl" and verb in _SYSTEMCTL_REBOOTS:
        return {"reboot"}
    rule: SuggestionKind | None = None
    if tool == "scontrol":
        rule = _scontrol_kind(args)
    elif tool == "kubectl":
        rule = _kubectl_kind(args)
    elif tool in _WORKLOAD_TOOLS or (tool in ("docker", "crictl") and verb in _CONTAINER_WORKLOAD):
        rule = "workload"
    if rule is not None:
        return {rule}
    return {"config"} if judge(shlex.join(words)).touches_config else set()


def _line_kinds(command: str, depth: int = 0) -> set[SuggestionKind]:
    # The classifier's own bounds: deeper or longer than this it answers "unknown" anyway.
    if depth > _MAX_DEPTH or len(command) > _MAX_COMMAND_CHARS:
        return set()
    tokens = tokenize(command)
    if tokens is None:
        return set()
    kinds: set[SuggestionKind] = set()
    for stage in split_stages(tokens)[0]:
        kinds |= _stage_kinds(stage, depth)
    for body in substitutions(command):
        kinds |= _line_kinds(body, depth + 1)
    return kinds


# Rank-2 verdicts that take a node away (its volumes with it): a replacement in the sense
# of the destructive order. Other rank-2 commands destroy data on a node (rm -rf, mkfs,
# prune) and keep their own kind, with the data-loss flag.
_REMOVES_NODES = re.compile(r"replac|terminat|deletes nodes|stops instances", re.IGNORECASE)


def _kind(verdict: CommandClass, stage_kinds: set[SuggestionKind]) -> SuggestionKind:
    if verdict.kind == "read_only":
        return "investigate"
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
    if "batch-reboot-cluster-nodes" in command:
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
        return f"interrupts workloads on {named.who('the cluster')} ({verdict.reason})"
    prefix = "unclassified, treated as a change: " if verdict.kind == "unknown" else ""
    who = named.who("the node it runs on", everything=True)
    if verdict.destructive_rank == 2:
        return f"destroys data on {who} ({verdict.reason}); this cannot be undone"
    return f"{prefix}changes state on {who} ({verdict.reason})"


def iac_warning(language: Language) -> str:
    """The IaC question and drift warning, from the shared template."""
    return render("iac_warning.jinja2", language=language).strip()


def _flags(
    kind: SuggestionKind, verdict: CommandClass, command: str, context: SuggestionContext
) -> list[str]:
    instances = instance_ids(command)
    flags: list[str] = []
    if kind == "replace" and (
        any(i not in context.rebooted for i in instances)
        or (not instances and not context.rebooted)
    ):
        flags.append(FLAG_REPLACE_BEFORE_REBOOT)
    named = [*instances, *targets_of(command)]
    if kind in ("replace", "reboot") and any(n in context.slurm_controllers for n in named):
        flags.append(FLAG_SLURM_CONTROLLER)
    if verdict.kind != "read_only" and not context.triage_done:
        flags.append(FLAG_BEFORE_TRIAGE)
    if verdict.kind == "unknown":
        flags.append(FLAG_UNCLASSIFIED)
    if verdict.destructive_rank == 2:
        flags.append(FLAG_DATA_LOSS)
    return flags


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
    stage_kinds = _line_kinds(command) if judged.kind != "read_only" else set()
    kind = _kind(judged, stage_kinds)
    targets = targets_of(command, context.known_ids)
    english, chinese = _DEFAULT_PURPOSE[kind]
    default = chinese if context.language == "zh" else english
    return Suggestion(
        command=command,
        kind=kind,
        mutating=judged.kind != "read_only",
        purpose=purpose.strip() or default,
        targets=targets,
        blast_radius=_blast_radius(kind, judged, targets, command),
        iac_warning=iac_warning(context.language) if "config" in stage_kinds else None,
        flags=_flags(kind, judged, command, context),
        section=section,
        source=source,
    )


def render_suggestion(suggestion: Suggestion, language: Language) -> str:
    """The Markdown block shown to the user, from the shared template."""
    return render("suggested_command.jinja2", suggestion=suggestion, language=language)
