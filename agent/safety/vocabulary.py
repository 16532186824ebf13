"""What the command finders know of words and lines, whatever place a command is in.

The tools the classifier judges by name and the wrappers before them (`is_tool`,
`_first_tool`); the word sets that tell an argument from prose (subcommands, connectives,
tools that are English words, run verbs...); resource ids (`ID_PATTERN`); and the shape of
a command line whatever its tool (a line quoted from a triage report is no exception: the
cluster text in it is read for commands like any other text):

* **commands of tools the classifier does not know** — in inline code and in shell or
  unlabelled fences (a bare line of a ``$ `` session too), a line whose first word is
  shaped like a command name (lower case, no trailing ``:``) and that has an argument is a
  command: the classifier answers "unknown", which counts as mutating. Lines that look like
  output or prose stay out: triage ``[FAIL]`` lines, JSON, YAML ``key: value``, logs
  (timestamps, capitalised words), aligned columns, rows of numbers, ids, ``ls -l`` modes,
  an English or programming keyword first (`command_candidate`).
"""

from __future__ import annotations

import re
from functools import cache

from tools.command_safety.args import word_set
from tools.command_safety.classifier import known_tools
from tools.command_safety.words import command_name, command_word, is_cmdlet

# Resource ids a command acts on; also evidence that a tool word is followed by arguments.
ID_PATTERN = re.compile(
    r"(?<![\w-])(?:hyperpod-i-[0-9a-f]{4,17}|i-[0-9a-f]{4,17}"
    r"|(?:sg|subnet|vpc|rtb|eni|vpce|igw|nat|acl)-[0-9a-f]{4,17}"
    r"|ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})(?![\w-])"
)

# Wrappers run the rest of the line; the classifier strips them before the tool lookup.
_WRAPPERS = word_set(
    "sudo nohup timeout xargs nice ionice stdbuf unbuffer watch time command exec builtin"
)
# Programs that run the command after them (besides their own use): "env reboot".
_LAUNCHERS = word_set("env numactl taskset chrt")
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    tool: word_set(words)
    for tool, words in {
        "aws": "sagemaker ec2 eks iam ssm s3 s3api sts logs cloudwatch cloudtrail fsx elbv2"
        " elb route53 autoscaling cloudformation service-quotas servicequotas ecr kms"
        " secretsmanager configure help",
        "kubectl": "get describe logs top delete cordon uncordon drain label annotate taint"
        " apply patch edit create scale set rollout exec run debug cp attach auth config"
        " explain version events wait replace expose autoscale port-forward proxy"
        " api-resources cluster-info certificate",
        "scontrol": "show update reboot reboot_nodes requeue requeuehold suspend resume hold"
        " release shutdown takeover ping version listpids create delete",
        "systemctl": "status start stop restart reload enable disable mask unmask kill"
        " is-active is-enabled is-failed show cat list-units daemon-reload reset-failed"
        " reboot poweroff halt isolate try-restart reload-or-restart edit set-property",
        "crictl": "ps logs inspect inspecti inspectp images pods stats info stop rm rmi rmp"
        " stopp exec pull",
        "docker": "ps logs inspect images info stats top stop kill restart rm rmi exec run"
        " system pull volume network",
        "dcgmi": "diag health discovery dmon nvlink topo group stats policy config",
        "chronyc": "tracking sources sourcestats makestep burst online offline",
        "timedatectl": "status show set-ntp set-time set-timezone timesync-status",
        "service": "slurmd slurmctld slurmdbd munge docker containerd kubelet chronyd chrony"
        " sshd amazon-ssm-agent nvidia-fabricmanager nvidia-persistenced dcgm nvidia-dcgm",
        "ip": "addr address link route rule neigh a l r",
        "pip": "install uninstall list show freeze check",
        "pip3": "install uninstall list show freeze check",
        "apt": "install remove purge update upgrade autoremove",
        "apt-get": "install remove purge update upgrade autoremove",
        "yum": "install remove update upgrade erase",
        "dnf": "install remove update upgrade erase",
        "hyperpod-debug": "triage explain checks",
        # Infrastructure-as-code and cluster tools: their verbs are what makes them commands
        # in a sentence ("then helm uninstall gpu-operator", "run terraform destroy").
        "helm": "install upgrade uninstall delete rollback list ls status get history repo"
        " template test plugin pull push show",
        "eksctl": "create delete upgrade scale drain get utils update set unset enable",
        "terraform": "apply destroy plan init import state taint untaint refresh output show"
        " validate workspace force-unlock",
        "tofu": "apply destroy plan init import state taint untaint refresh output show"
        " validate workspace force-unlock",
        "cdk": "deploy destroy diff synth bootstrap list ls import",
        "pulumi": "up destroy preview refresh import stack cancel state",
    }.items()
}
_NUMBER_TOOLS = word_set("kill scancel")
# Tools whose name is no English word: any following word (not a connective) is an argument.
_FREE_ARGUMENT_TOOLS = word_set(
    "scancel pkill killall modprobe rmmod insmod sbatch srun salloc dos2unix unix2dos wipefs shred"
    " scontrol"
)
# Words that name the tool in a sentence rather than give it an argument ("the scontrol
# command", "scancel output").
_PROSE_NOUNS = word_set(
    "command commands tool tools output utility cli binary manual man page docs documentation"
    " syntax usage itself daemon verb verbs subcommand subcommands option options"
)
# Tool names that are also English words: an id after them reads as prose ("the hostname
# ip-10-1-2-3", "reboot i-0abc first"), so only flags, paths and the like count.
_ENGLISH_TOOLS = word_set("""
    cat file type last w who host test true false date history kill install source more less
    head tail sort cut diff top free ping id groups echo env mount export halt shutdown reboot
    poweroff touch service watch time command nice timeout hostname strings column stat
    sensors which apt snap yum vim nano curl tee docker pip bash sh su ip dig node
    """)
_RUN_VERBS = word_set("run execute")
_RUN_VERBS_ZH = ("执行", "运行", "输入", "命令")
# Words that end a command written in prose (outside quotes).
_CONNECTIVES = word_set("""
    and then or but before after once if when while until so because which that to on in
    for with of the an is are was will would should can could may might must it this these
    those you your we our they them now first again instead afterwards later only also as
    via by not at into without within here there please yourself manually immediately
    from inside across using during unless whenever
    """)
_OPERATORS = word_set("| || && ; > >> 2> 2>&1 &> <")
_SHELL_CONTEXT = ("$(", "&&", "||")
_FILE_NAME = re.compile(
    r"[\w.-]+\.(?:sh|py|yaml|yml|json|txt|conf|cfg|log|sbatch|service|ini|toml|tar|gz)"
)
_FLAG = re.compile(r"--?[A-Za-z0-9]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=\S")
_PATH_PREFIXES = ("/", "./", "../", "~/", "s3://", "file://", "$HOME/")
_COMMAND_LIKE = re.compile(r"[a-z][\w.-]*[ \t]+--?[A-Za-z]")

# The shape of a command name, for tools the classifier does not know.
_COMMAND_NAME = re.compile(r"[a-z][a-z0-9._+-]{0,40}")
# First words that start a sentence, a log line or a program, not a command.
_NOT_COMMAND_WORDS = word_set("""
    a an the this that these those it its is are was were be been there here we you they no
    i he she my your our their note see also only please error warning warn info debug
    notice fatal critical trace total import from def class return raise yield lambda pass
    assert const let var function public private package func
    """)
# Words of a sentence: in a span with no argument-looking word they make it prose.
_PROSE_WORDS = _CONNECTIVES | word_set(
    "no such than more most near some any all every each same other has have had does did"
    " very too just been being"
)
_SHELL_LOOP = re.compile(r";[ \t]*(?:do|then)\b")
_PERMISSIONS = re.compile(r"[-dlcbps][-rwxsStT]{9}[.+@]?")
_QUANTITY = re.compile(r"[-+]?\d[\d.,:]*[%A-Za-z]{0,3}")
_ALIGNED = re.compile(r"\S(?:\t| {3,})\S")


@cache
def _tools() -> frozenset[str]:
    return known_tools() | _WRAPPERS


def is_tool(word: str) -> bool:
    """A word the classifier judges by name, a wrapper such as sudo, or a PowerShell cmdlet,
    read as the shell reads a command word (``'kubectl'``, ``k\\ubectl`` and
    ``/usr/local/bin/aws`` name kubectl, kubectl and aws: `command_name`)."""
    name = command_name(word)
    return name in _tools() or name.startswith("mkfs.") or is_cmdlet(name)


def _is_cjk(char: str) -> bool:
    return (
        "\u2e80" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff" or "\uff00" <= char <= "\uffef"
    )


_CLOSERS = ",.;:!?)]}>*`'\"”’»」"  # punctuation and markup that may end a word in prose


def _bare(token: str) -> str:
    return token.rstrip(_CLOSERS).lower()


def _first_tool(text: str) -> str:
    """The program ``text`` runs, named as the shell resolves it: the first word after a
    prompt, wrappers, ``VAR=value`` and their flags (`command_word`)."""
    found = command_word(text, wrappers=_WRAPPERS)
    return found.name if found is not None else ""


# A line that is only a redirection into a path (``: > f``, ``> f``, ``true >> f``): the
# shell opens the file for writing, which empties it or adds to it.
_REDIRECTION_LINE = re.compile(r"(?:(?::|true)[ \t]*)?[0-9&]?>>?\|?[ \t]*(?:[/~.$]|[\w-]+\.\w)")


def _looks_like_command(text: str) -> bool:
    if _REDIRECTION_LINE.match(text):
        return True
    found = command_word(text, wrappers=_WRAPPERS)
    if found is None:
        return False
    written = text[found.start : found.end]
    return (
        is_tool(found.name)
        or written.startswith(("/", "./", "~/"))
        or bool(_COMMAND_LIKE.match(text, found.start))
    )


def command_candidate(text: str, *, block: bool = True) -> bool:
    """Is ``text`` shaped like ``name argument...``: a command, whatever its tool?

    The first word is shaped like a command name (lower case, no trailing ``:``, not an id,
    an ``ls -l`` mode or an English or programming keyword; a shell loop only with its
    ``; do``) and an argument follows that is not ``=``, ``:`` or an English connective.
    Messages and sentences stay out: a word ending in ``:`` or ``,``, a ``(remark)``, an
    ellipsis, or words of a sentence ("of", "no", "than"...) with no flag, path, id or
    ``=`` among them. In a block (a fence, ``<pre>``), output stays out too: columns
    aligned with a tab or three spaces, and rows mostly of numbers."""
    words = text.split()
    if words and is_cmdlet(words[0]):
        return True  # Stop-Computer: PowerShell's Verb-Noun names no English word
    if len(words) < 2:
        return False
    first, second = words[0], words[1]
    if not _COMMAND_NAME.fullmatch(first) or first in _NOT_COMMAND_WORDS:
        return False
    if first in _CONNECTIVES:  # "for", "while", "if" start a shell loop only with "; do"
        return first in ("for", "while", "until", "if") and bool(_SHELL_LOOP.search(text))
    if ID_PATTERN.fullmatch(first) or _PERMISSIONS.fullmatch(first):
        return False
    if second in ("=", ":", "->", "=>", "<-") or _bare(second) in _CONNECTIVES:
        return False
    rest = words[1:]
    if "..." in text or "…" in text or any(w.endswith((":", ",")) or w[0] == "(" for w in rest):
        return False
    if not any(_argument_like(w) for w in rest) and any(_bare(w) in _PROSE_WORDS for w in rest):
        return False
    if not block:
        return True
    if _ALIGNED.search(text.strip()):
        return False
    arguments = words[1:]
    numbers = sum(1 for word in arguments if _QUANTITY.fullmatch(word))
    return not (len(arguments) >= 2 and numbers * 2 >= len(arguments))


def _argument_like(word: str) -> bool:
    """A word that only a command line would hold: a flag, a path, an id, ``a=b``..."""
    if _FLAG.match(word) or word.startswith(_PATH_PREFIXES) or word[:1] in "'\"$":
        return True
    return "=" in word or "/" in word or bool(ID_PATTERN.fullmatch(word.rstrip(_CLOSERS)))
