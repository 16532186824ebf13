"""The kind of a command (`_kind`), and the verdict that the explicit rules add (`_verdict`).

The classifier (tools.command_safety) gives the verdict on the whole line; a few explicit rules
on each simple command of the line (a pipeline or list is split into its stages, a loop or
conditional into the commands it runs, and
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

A command run elsewhere keeps its meaning (`tools.command_safety.parsed.Stage.remote`): its
verdict joins the outer one (``ssh ip-10-1-2-3 sudo reboot`` is a reboot of ip-10-1-2-3;
``kubectl exec p -- rm -rf /data`` stays a workload change, with the data-loss flag).
Labelling a node
``sagemaker.amazonaws.com/node-health-status=UnschedulablePendingReplacement`` makes
HyperPod replace it (a replacement: volumes are lost), ``...PendingReboot`` reboot it.

Whether a line changes infrastructure (``_Facts.infrastructure``: the IaC question and drift
warning go with it) is told by what it changes, not by its kind. The cluster, VPC, security
groups, subnets, EKS settings and the Kubernetes objects deployed to the cluster (add-on
DaemonSets, namespaces, RBAC, aws-auth) are what templates and pipelines own; a change the
classifier marks ``touches_config`` is such a change. A node's or a workload's runtime state
is not: ``kubectl cordon`` / ``uncordon`` / ``drain``, labels, taints and annotations on a
node, a node or pod object deleted, ``eksctl drain``. No template holds whether a node is
schedulable, so there is no drift to warn of (the seed's IaC note lists ``kubectl
cordon`` / ``drain`` among its examples; issue 24 found the paragraph under them noise, and
the eval grader for the note, evals/agent_eval/grading/iac.py, never required it there).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from agent.safety.model import SuggestionKind
from agent.safety.shell import judge, without_comments
from tools.command_safety import CommandClass
from tools.command_safety.args import word_set
from tools.command_safety.parsed import Stage, parse_line
from tools.command_safety.result import combine, mut

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
# Objects whose state is the node's or the workload's at run time, held by no template.
_KUBECTL_RUNTIME_KINDS = frozenset({"node", "nodes", "no", "pod", "pods", "po", "job", "jobs"})
_KUBECTL_NODE_VERBS = frozenset({"cordon", "uncordon", "drain"})
_CONTAINER_WORKLOAD = frozenset({"stop", "kill", "restart", "rm", "rmp", "stopp", "run", "exec"})

_REBOOT_REASON = re.compile(r"\breboots\b")
_MAX_DEPTH = 4
_MAX_COMMAND_CHARS = 20_000
_STAGE_ORDER: tuple[SuggestionKind, ...] = ("reboot", "config", "workload")


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


def _kubectl_changes_runtime_state(args: list[str]) -> bool:
    """Whether a kubectl change acts on nodes or workload objects only (no IaC drift)."""
    words = [a for a in args if not a.startswith("-")]
    verbs = [i for i, w in enumerate(words) if w in _KUBECTL_VERBS]
    if not verbs:
        return False
    verb = words[verbs[0]]
    if verb in _KUBECTL_NODE_VERBS:
        return True
    if verbs[0] + 1 >= len(words):
        return False
    kinds = words[verbs[0] + 1].split("/", 1)[0].lower().split(",")
    return all(k.split(".", 1)[0] in _KUBECTL_RUNTIME_KINDS for k in kinds)


def _scontrol_kind(args: list[str]) -> SuggestionKind | None:
    words = [a.lower() for a in args if not a.startswith("-")]
    verb = words[0] if words else ""
    joined = " ".join(words)
    if verb in ("reboot", "reboot_nodes") or "action:reboot" in joined:
        return "reboot"
    if verb in _SCONTROL_WORKLOAD or (verb == "update" and "jobid=" in joined):
        return "workload"
    return None


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
    infrastructure: bool = False
    """A stage changes what infrastructure as code usually owns (see the module docstring)."""

    def add(self, other: _Facts) -> None:
        self.kinds |= other.kinds
        self.verdicts.extend(other.verdicts)
        self.infrastructure = self.infrastructure or other.infrastructure


def _stage_facts(stage: Stage, depth: int) -> _Facts:
    """The facts of one simple command by the explicit rules."""
    facts = _Facts()
    if not stage.argv:
        return facts
    words, tool, args, verb = list(stage.argv), stage.tool, list(stage.args), stage.verb
    if tool in _SHELLS and "-c" in args and args.index("-c") + 1 < len(args):
        return _line_facts(args[args.index("-c") + 1], depth + 1)
    for inner in stage.remote:
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
        if rule == "config" and tool == "kubectl" and not _kubectl_changes_runtime_state(args):
            facts.infrastructure = True
    elif judge(shlex.join(words)).touches_config:
        facts.kinds.add("config")
        # A command run elsewhere (ssh, srun, SSM...) carries the classifier's view of the
        # command it runs: that command's own facts, added above, tell what it changes.
        if not stage.remote and not (tool == "eksctl" and verb == "drain"):
            facts.infrastructure = True
    return facts


def _line_facts(command: str, depth: int = 0) -> _Facts:
    facts = _Facts()
    # The classifier's own bounds: deeper or longer than this it answers "unknown" anyway.
    if depth > _MAX_DEPTH or len(command) > _MAX_COMMAND_CHARS:
        return facts
    command = without_comments(command)
    parsed = parse_line(command)
    if parsed is None:
        return facts
    for stage in parsed.stages:
        facts.add(_stage_facts(stage, depth))
    for body in parsed.substitutions:
        facts.add(_line_facts(body, depth + 1))
    return facts


def _verdict(judged: CommandClass, facts: _Facts) -> CommandClass:
    """The line's verdict joined with what the classifier did not see in it."""
    extra = [v for v in facts.verdicts if v.reason not in judged.reason]
    return combine([judged, *extra]) if extra else judged


# Rank-2 verdicts that take a node away (its volumes with it): a replacement in the sense
# of the destructive order. Other rank-2 commands destroy data on a node (rm -rf, mkfs,
# prune) and keep their own kind, with the data-loss flag; so does a command after which
# nodes may be replaced ("those that fail are ... replaced": StartClusterHealthCheck).
_REMOVES_NODES = re.compile(
    r"\breplac(?:es|ement)\b|\breplace the node\b|terminat|deletes nodes|stops instances",
    re.IGNORECASE,
)


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
