"""What a command names: its targets (`targets_of`), those of the stages that change
something (`targets_acted_on`), instance ids and the nodes it names, and whether those
nodes can all be read off its text (`open_targets`).

Targets are resource ids (instances, node names, security groups, subnets...), cluster
names after ``--cluster-name`` / ``--name``, the instance of an SSM ``--target``, and any
token that is an id seen in the cluster."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

from agent.safety.shell import judge
from agent.safety.vocabulary import ID_PATTERN
from tools.command_safety.parsed import Stage, parse_line

if TYPE_CHECKING:
    from tools.triage.data.sagemaker_model import ClusterNode

_TARGET = re.compile(
    ID_PATTERN.pattern
    + r"|(?<![\w-])--(?:cluster-name|name)(?:=|[ \t]+)['\"]?(?P<cluster>[^\s'\"`]+)"
    # An SSM target names its node as sagemaker-cluster:<id>_<group>-<instance id>.
    + r"|(?<![\w-])--target(?:=|[ \t]+)[^\s-]*-(?:[^\s-]*-)*?(?P<ssm>i-[0-9a-f]{4,17})(?![\w-])"
)
_INSTANCE = re.compile(r"(?<![0-9A-Za-z])i-[0-9a-f]{4,17}(?![0-9A-Za-z])")
_TOKEN = re.compile(r"[^\s=,'\"\[\]{}()`]+")
_NETWORK_PREFIXES = ("sg-", "subnet-", "vpc-", "rtb-", "eni-", "vpce-", "igw-", "nat-", "acl-")


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


def targets_acted_on(command: str, known_ids: Iterable[str] = ()) -> list[str]:
    """The targets of the stages of ``command`` that change something (`targets_of` of each
    stage the classifier does not judge read-only). In ``ssh A sudo reboot && aws sagemaker
    describe-cluster-node ... B`` only A is rebooted: B, only read, must not count as
    rebooted once the user reports the change done, or its later replacement would lose
    the replace-before-reboot flag. When no stage alone changes anything (the change is a
    redirection, or the words do not split), every target counts: it errs towards naming
    more, never fewer."""
    parsed = parse_line(command)
    stages = [shlex.join(stage.words) for stage in parsed.stages] if parsed else []
    acting = [stage for stage in stages if judge(stage).kind != "read_only"]
    if not acting or len(acting) == len(stages):
        return targets_of(command, known_ids)
    found = (t for stage in acting for t in targets_of(stage, known_ids))
    return list(dict.fromkeys(found))


def instance_ids(command: str) -> list[str]:
    """Instance ids anywhere in the command, also inside hyperpod-i-… and SSM targets."""
    return list(dict.fromkeys(_INSTANCE.findall(command)))


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


# What makes the nodes a command acts on unknowable from its text: the shell or the CLI
# fills them in when it runs (a substitution, a variable, a file, a pattern, a loop, a
# selector). A replacement so written cannot be checked node by node, so it earns no
# waiver of the replace-before-reboot flag, whatever else it names.
_OPEN_TEXT: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\$\(|`|[<>]\("), "a command substitution"),
    (re.compile(r"\$(?:\{|[A-Za-z_0-9@*#?!-])"), "a shell variable"),
    (re.compile(r"\b(?:file|fileb|https?)://", re.IGNORECASE), "arguments read from a file"),
    # A pattern the shell expands to names not written. A quoted one is counted too: that
    # only ever keeps the flag.
    (re.compile(r"[*?]"), "a glob pattern"),
    (re.compile(r"\[[^\]\"'\s]*[-,][^\]\"'\s]*\]"), "a pattern or a Slurm host range"),
    (re.compile(r"\{[^{}\s\"']*,[^{}\s\"']*\}"), "a brace expansion"),
)
# Words that make the targets come from elsewhere: input files for the CLI, logical ids
# (not instance ids: this conversation's evidence is keyed by instance), loops and
# argument builders, label selectors.
_OPEN_WORDS: dict[str, str] = {
    "--cli-input-json": "arguments read from JSON input",
    "--cli-input-yaml": "arguments read from YAML input",
    "--node-logical-ids": "logical node ids",
    "for": "a loop",
    "while": "a loop",
    "until": "a loop",
    "select": "a loop",
    "xargs": "arguments read from input",
    "parallel": "arguments read from input",
    "-l": "a label selector",
    "--selector": "a label selector",
    "--all": "every node",
}
# Options whose values are the nodes a replacement acts on, and the shape each must have.
_NODE_LIST_OPTIONS = frozenset({"--node-ids", "--instance-ids"})
_SCONTROL_NODES = re.compile(r"^node(?:name)?s?=(?P<nodes>.*)$", re.IGNORECASE)
_KUBECTL_NODE_KINDS = frozenset({"node", "nodes", "no"})


def _node_values(stage: Stage) -> list[str]:
    """The words that name the nodes a replacement acts on: the values of --node-ids and
    --instance-ids (list or JSON-list form), scontrol's node=/nodename= lists, and the
    names kubectl labels after `label node`."""
    words = list(stage.words)
    values: list[str] = []
    for i, word in enumerate(words):
        option, _, inline = word.partition("=")
        if option in _NODE_LIST_OPTIONS:
            following = [inline] if inline else []
            if not inline:
                for value in words[i + 1 :]:
                    if value.startswith("-"):
                        break
                    following.append(value)
            values += [part for value in following for part in _TOKEN.findall(value)]
        elif (match := _SCONTROL_NODES.match(word)) is not None:
            values += [part for part in match.group("nodes").split(",") if part]
    if stage.tool == "kubectl" and "label" in words:
        after = words[words.index("label") + 1 :]
        positional = [w for w in after if not w.startswith("-")]
        if positional and positional[0].lower() in _KUBECTL_NODE_KINDS:
            positional = positional[1:]
        # key=value sets a label and key- removes one; the other words are the nodes.
        values += [
            w.split("/", 1)[1] if w.lower().startswith(("node/", "nodes/")) else w
            for w in positional
            if "=" not in w and not w.endswith("-")
        ]
    return values


def open_targets(command: str, known_ids: Iterable[str] = ()) -> str | None:
    """Why the nodes ``command`` acts on cannot all be read off its text, or None when
    every one is written out and recognisable: an instance id, a hyperpod-i-… or ip-…
    node name, or a node name seen in the cluster (``known_ids``)."""
    for pattern, text_reason in _OPEN_TEXT:
        if pattern.search(command):
            return text_reason
    parsed = parse_line(command)
    if parsed is None:
        return "quotes that do not balance"  # no shell reading of its words to check
    kubectl = any(stage.tool == "kubectl" for stage in parsed.stages)
    for word in parsed.tokens:
        reason = _OPEN_WORDS.get(word.partition("=")[0])
        if reason is None and word.startswith("-l") and kubectl:
            reason = "a label selector"  # -lkey=value, the selector joined to its option
        if reason is not None:
            return reason
    known = frozenset(known_ids)
    for value in (v for stage in parsed.stages for v in _node_values(stage)):
        if not (ID_PATTERN.fullmatch(value) or value in known):
            return f"a node this conversation cannot recognise ({value[:40]})"
    return None


_IP_NAME = re.compile(r"ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})")


def controller_names(node: ClusterNode) -> set[str]:
    """The names a node goes by in commands: its instance id and Kubernetes-style name, its
    private DNS host name (whole and short: Slurm names nodes by it, ``ip-10-1-0-5``) and its
    private address (whole and in ``ip-a-b-c-d`` form)."""
    names = {node.instance_id, f"hyperpod-{node.instance_id}"}
    if node.private_dns_hostname:
        short = node.private_dns_hostname.split(".", 1)[0]
        names |= {node.private_dns_hostname, short}
        # EC2's IP-based host names spell the address: ip-10-1-0-5 is 10.1.0.5.
        spelled = _IP_NAME.fullmatch(short)
        if spelled:
            names.add(".".join(spelled.groups()))
    if node.private_ip:
        names |= {node.private_ip, "ip-" + node.private_ip.replace(".", "-")}
    return {name for name in names if name and name != "hyperpod-"}


_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*[A-Za-z0-9]")


def words_naming(command: str, names: frozenset[str]) -> set[str]:
    """The words of `command` that are one of `names` (a host name, an address)."""
    return {word for word in _WORD.findall(command) if word in names}
