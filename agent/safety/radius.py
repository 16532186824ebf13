"""The blast radius of a command: one sentence on what it affects (`_blast_radius`).

Its kind (see `agent.safety.kinds`) and its targets (see `agent.safety.targets`) say who is
hit and how: which nodes reboot or are replaced, which network objects or Kubernetes
objects change, which workloads are interrupted, where data is destroyed.

The sentence is in the conversation's language (`_PHRASES`: English and Chinese). The
classifier's reason in parentheses stays as the classifier words it (English): it names the
command's own operation (``aws ec2 authorize-security-group-egress changes configuration``)
and is the same evidence in both languages."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.safety.model import SuggestionKind
from agent.safety.targets import _NETWORK_PREFIXES, _TARGET
from tools.command_safety import CommandClass
from tools.command_safety.parsed import parse_line

# A rank-2 verdict whose nodes are replaced only if they fail (StartClusterHealthCheck,
# tools/command_safety/aws.py): the loss is possible, not certain.
_MAY_REPLACE = re.compile(r"\bthose that fail are\b[^;]*\breplaced\b", re.IGNORECASE)

Language = Literal["en", "zh"]

# Every sentence and fragment of the blast radius, (English, Chinese), filled by str.format.
_PHRASES: dict[str, tuple[str, str]] = {
    "in_cluster": (" in cluster {clusters}", "（集群 {clusters}）"),
    "cluster": ("cluster {clusters}", "集群 {clusters}"),
    "list": (", ", "、"),
    "the node it runs on": ("the node it runs on", "执行它的节点"),
    "the named nodes": ("the named nodes", "命令所列的节点"),
    "the named instances": ("the named instances", "命令所列的实例"),
    "the cluster": ("the cluster", "集群"),
    "how:hyperpod": ("HyperPod node reboot", "HyperPod 节点重启"),
    "how:ec2": ("graceful EC2 reboot", "EC2 正常重启"),
    "how:slurm": ("Slurm-driven reboot", "由 Slurm 发起的重启"),
    "how:os": ("OS reboot", "操作系统重启"),
    "investigate": ("changes nothing ({reason})", "不做任何更改（{reason}）"),
    "reboot": (
        "reboots {who} ({how}; running jobs on {it} stop)",
        "重启 {who}（{how}；其上正在运行的作业会停止）",
    ),
    "replace": (
        "replaces {who}: {its} root and secondary volumes are destroyed",
        "替换 {who}：其根卷和辅助卷会被销毁",
    ),
    "remove": ("removes {who}: {its} volumes are lost", "移除 {who}：其卷会丢失"),
    "destroy": (
        "destroys data on {who} ({reason}); this cannot be undone",
        "销毁 {who} 上的数据（{reason}）；此操作无法撤销",
    ),
    "may_destroy": (
        "may destroy data on {who}: {reason}; a replacement cannot be undone",
        "可能销毁 {who} 上的数据：{reason}；替换无法撤销",
    ),
    "security_group": (
        "changes security group {groups} rules for every node that uses it",
        "修改安全组 {groups} 的规则，影响使用它的每个节点",
    ),
    "network": (
        "changes {networks} for every node and endpoint that uses it",
        "修改 {networks}，影响使用它的每个节点和终端节点",
    ),
    "kubernetes": (
        "changes Kubernetes objects on {who} ({reason})",
        "修改 {who} 上的 Kubernetes 对象（{reason}）",
    ),
    "configuration": (
        "changes the configuration of {who} ({reason})",
        "修改 {who} 的配置（{reason}）",
    ),
    "workload": ("interrupts workloads on {who} ({reason})", "中断 {who} 上的工作负载（{reason}）"),
    "workload_data": (
        "interrupts workloads on {who} and destroys data ({reason})",
        "中断 {who} 上的工作负载并销毁数据（{reason}）",
    ),
    "unclassified": ("unclassified, treated as a change: ", "无法分类，按会改变状态处理："),
    "state": ("changes state on {who} ({reason})", "改变 {who} 的状态（{reason}）"),
}


# A space left between two Chinese characters where a fallback ("集群") fills a slot meant
# for an id: Chinese sets no space there.
_CJK_GAP = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")


def _say(key: str, language: Language, **values: str) -> str:
    english, chinese = _PHRASES[key]
    if language == "zh":
        return _CJK_GAP.sub("", chinese.format(**values))
    return english.format(**values)


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

    def who(self, fallback: str, language: Language, *, everything: bool = False) -> str:
        """The nodes (or all targets), then "in cluster c"; ``fallback`` (a key of
        `_PHRASES`) when none."""
        names = [*self.nodes, *self.networks] if everything else self.nodes
        clusters = _say("list", language).join(self.clusters)
        where = _say("in_cluster", language, clusters=clusters) if self.clusters else ""
        if not names:
            if self.clusters:
                return _say("cluster", language, clusters=clusters)
            return _say(fallback, language)
        return _say("list", language).join(names) + where


def _tools(command: str) -> set[str]:
    """The programs the line runs, named as the shell resolves them (one parse, shared with
    the classifier: ``'scontrol'`` or ``/usr/bin/kubectl`` count as scontrol and kubectl)."""
    parsed = parse_line(command)
    return {stage.tool for stage in parsed.stages} if parsed is not None else set()


def _reboot_how(command: str) -> str:
    if "batch-reboot-cluster-nodes" in command or "node-health-status" in command:
        return "how:hyperpod"
    if "reboot-instances" in command:
        return "how:ec2"
    if "scontrol" in command or "scontrol" in _tools(command):
        return "how:slurm"
    return "how:os"


def _config_radius(verdict: CommandClass, named: _Named, command: str, language: Language) -> str:
    sep = _say("list", language)
    groups = [t for t in named.networks if t.startswith("sg-")]
    if groups:
        return _say("security_group", language, groups=sep.join(groups))
    if named.networks:
        return _say("network", language, networks=sep.join(named.networks))
    key = "kubernetes" if "kubectl" in command or "kubectl" in _tools(command) else "configuration"
    return _say(key, language, who=named.who("the cluster", language), reason=verdict.reason)


def _blast_radius(
    kind: SuggestionKind,
    verdict: CommandClass,
    targets: list[str],
    command: str,
    language: Language = "en",
) -> str:
    named = _Named.of(targets, command)
    its, it = ("its", "it") if len(named.nodes) <= 1 else ("their", "them")
    reason = verdict.reason
    if kind == "investigate":
        return _say("investigate", language, reason=reason)
    if kind == "reboot":
        who = named.who("the node it runs on", language)
        how = _say(_reboot_how(command), language)
        return _say("reboot", language, who=who, how=how, it=it)
    if kind == "replace":
        lowered = reason.lower()
        if "replace" in lowered:
            return _say("replace", language, who=named.who("the named nodes", language), its=its)
        if "terminat" in lowered or "deletes nodes" in lowered:
            who = named.who("the named instances", language)
            return _say("remove", language, who=who, its=its)
        who = named.who("the node it runs on", language, everything=True)
        return _say("destroy", language, who=who, reason=reason)
    if kind == "config":
        return _config_radius(verdict, named, command, language)
    if kind == "workload":
        who = named.who("the cluster", language)
        key = "workload_data" if verdict.destructive_rank == 2 else "workload"
        return _say(key, language, who=who, reason=reason)
    prefix = _say("unclassified", language) if verdict.kind == "unknown" else ""
    who = named.who("the node it runs on", language, everything=True)
    if verdict.destructive_rank == 2 and _MAY_REPLACE.search(reason):
        return _say("may_destroy", language, who=who, reason=reason)
    if verdict.destructive_rank == 2:
        return _say("destroy", language, who=who, reason=reason)
    return prefix + _say("state", language, who=who, reason=reason)
