"""Classify a shell command line as read-only, mutating or unknown.

The agent only ever runs read-only commands itself; anything else is rendered as a
suggested command for the customer to run. This module decides which is which, from the
text alone. It fails closed: a command it does not know is ``unknown``, and callers treat
``unknown`` like ``mutating``.

``touches_config`` marks commands that change cluster, VPC, security-group, subnet, EKS or
Kubernetes-object configuration: those need the IaC drift note. ``destructive_rank`` orders
the blast radius: 0 investigate (or a change that disrupts no node), 1 reboot-ish (restarts
a node, a service or a workload), 2 replace-ish or data-destroying.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Kind = Literal["read_only", "mutating", "unknown"]
Rank = Literal[0, 1, 2]
Handler = Callable[[Sequence[str], int], "CommandClass"]


@dataclass(frozen=True)
class CommandClass:
    kind: Kind
    touches_config: bool
    destructive_rank: Rank
    reason: str


def _ro(reason: str) -> CommandClass:
    return CommandClass("read_only", False, 0, reason)


def _mut(reason: str, rank: Rank = 0, *, config: bool = False) -> CommandClass:
    return CommandClass("mutating", config, rank, reason)


def _unknown(reason: str) -> CommandClass:
    return CommandClass("unknown", False, 0, reason)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MAX_DEPTH = 4
_MAX_COMMAND_CHARS = 20_000
_SEPARATORS = _words("| || && ; ;; & |& ( )")
_REDIRECTS = _words("> >> >| &> &>> >& < << <<< <& <>")
_HARMLESS_TARGETS = _words("/dev/null /dev/stdout /dev/stderr -")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*)>")
_METADATA_HOSTS = ("169.254.169.254", "[fd00:ec2::254]", "169.254.170.2")

# --- plain tools --------------------------------------------------------------------------

_READ_ONLY_TOOLS = _words(
    """
    cat zcat grep egrep fgrep zgrep rg ls ll lsmod lscpu lspci lsblk lsof lsns nproc uptime
    df du free head tail less more wc sort uniq cut tr column jq yq echo printf stat file which
    whereis type whoami id groups uname printenv ps pgrep pstree top htop vmstat iostat mpstat
    sar findmnt fi_info neuron-ls neuron-top neuron-monitor nvidia-debugdump nvcc ss netstat
    ping traceroute tracepath dig nslookup host getent ibv_devinfo ibv_devices ibstat true
    false test basename dirname realpath readlink md5sum sha256sum diff cmp hexdump xxd od
    strings tac nl numactl lstopo dmidecode sinfo squeue sacct sstat sprio sshare sdiag sreport
    env kubectx session-manager-plugin last w who munge unmunge sensors pwd history date
    """
)

# tool -> (rank, reason)
_ALWAYS_MUTATING: dict[str, tuple[Rank, str]] = {
    **dict.fromkeys(("rm", "shred", "truncate", "wipefs"), (2, "deletes or destroys data")),
    **dict.fromkeys(("dd", "mkfs", "fdisk", "parted"), (2, "writes disks or partitions")),
    **dict.fromkeys(("reboot", "shutdown", "poweroff", "halt"), (1, "reboots or stops the node")),
    **dict.fromkeys(("kill", "pkill", "killall"), (1, "signals processes")),
    "scancel": (1, "cancels Slurm jobs"),
    **dict.fromkeys(("sbatch", "srun", "salloc"), (0, "submits work to Slurm (allocates nodes)")),
    **dict.fromkeys(("modprobe", "rmmod", "insmod"), (1, "loads or unloads kernel modules")),
    "umount": (1, "unmounts a filesystem"),
    **dict.fromkeys(("dos2unix", "unix2dos"), (0, "rewrites files in place")),
    **dict.fromkeys(
        ("mv", "cp", "chmod", "chown", "touch", "mkdir", "rmdir", "ln", "fallocate", "install"),
        (0, "changes files"),
    ),
    **dict.fromkeys(("vi", "vim", "nano", "sudoedit"), (0, "edits files")),
    **dict.fromkeys(("export", "unset"), (0, "changes the shell environment (a step of a fix)")),
    **dict.fromkeys(("source", ".", "eval", "exec"), (0, "runs arbitrary code in the shell")),
    **dict.fromkeys(("apt", "apt-get", "yum", "dnf", "snap"), (0, "installs or removes packages")),
    **dict.fromkeys(("useradd", "usermod", "passwd"), (0, "changes accounts")),
    "crontab": (0, "changes scheduled jobs"),
    "iptables": (0, "changes the node firewall"),
    **dict.fromkeys(("swapoff", "swapon"), (0, "changes swap")),
}


def _flag_in(args: Sequence[str], flags: Sequence[str] | frozenset[str]) -> str | None:
    """The first argument that is one of ``flags`` (``--flag=value`` counts too)."""
    for arg in args:
        if arg.split("=", 1)[0] in flags:
            return arg
    return None


def _option(args: Sequence[str], name: str) -> str | None:
    """The value of ``name VALUE`` or ``name=VALUE``."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _positionals(args: Sequence[str], takes_value: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-") and arg != "-":
            skip = arg in takes_value
        else:
            out.append(arg)
    return out


# --- AWS CLI ------------------------------------------------------------------------------

_AWS_GLOBAL_VALUE = _words(
    "--region --profile --output --query --endpoint-url --color --ca-bundle --cli-read-timeout"
    " --cli-connect-timeout --cli-binary-format"
)
_AWS_READ_PREFIXES = tuple(
    _words(
        "describe- list- get- filter- lookup- search- batch-get- head- validate- simulate-"
        " estimate- wait"
    )
)
_AWS_CONFIG_PREFIXES = tuple(
    _words(
        "update- modify- authorize- revoke- create- delete- put- attach- detach- associate-"
        " disassociate- replace- enable- disable- register- deregister- tag- untag- set- add-"
        " remove- reset- restore- import-"
    )
)
_AWS_STATE_PREFIXES: tuple[tuple[str, Rank, str], ...] = (
    ("batch-reboot-", 1, "reboots nodes"),
    ("reboot-", 1, "reboots instances"),
    ("batch-replace-", 2, "replaces nodes (root and secondary volumes are destroyed)"),
    ("batch-delete-", 2, "deletes nodes"),
    ("terminate-", 2, "terminates instances"),
    ("stop-", 2, "stops instances (instance-store data is lost)"),
    ("start-", 0, "starts resources"),
    ("send-", 0, "sends commands or messages"),
    ("cancel-", 0, "cancels operations"),
    ("run-", 0, "launches resources"),
    ("invoke", 0, "invokes a function"),
    ("copy-", 0, "copies resources"),
    ("execute-", 0, "executes statements"),
)
_AWS_CONFIG_SERVICES = _words("ec2 sagemaker eks iam fsx route53 elbv2 elb ssm s3api logs")
_SSM_READONLY_DOCS = _words("AWS-StartNonInteractiveCommand AWS-StartInteractiveCommand")


def _ssm_inner_commands(parameters: str) -> list[str]:
    """Commands carried by ``--parameters`` of an SSM session document."""
    text = parameters.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        value = data.get("command", [])
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]
    if text.startswith("command="):
        inner = text.removeprefix("command=").strip()
        if inner.startswith("[") and inner.endswith("]"):
            inner = inner[1:-1]
        return [inner.strip().strip("'\"")]
    return [text]


def _aws_ssm_start_session(args: Sequence[str], depth: int) -> CommandClass:
    document = _option(args, "--document-name")
    if document is None:
        return _ro("interactive SSM session: opens a shell, changes nothing by itself")
    if document not in _SSM_READONLY_DOCS:
        return _unknown(f"SSM session with document {document}")
    parameters = _option(args, "--parameters")
    if parameters is None:
        return _ro(f"SSM session ({document}) with no command")
    inner = _combine([_classify(c, depth + 1) for c in _ssm_inner_commands(parameters)])
    if inner.kind == "read_only":
        return _ro(f"SSM session runs a read-only command ({inner.reason})")
    reason = f"SSM session runs: {inner.reason}"
    return CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, reason)


def _aws_s3(verb: str, words: Sequence[str]) -> CommandClass:
    label = f"aws s3 {verb}"
    if verb in ("ls", "presign"):
        return _ro(f"{label} is read-only")
    if verb == "cp" and len(words) >= 4 and words[3] == "-":
        return _ro(f"{label} to stdout is read-only")
    return _mut(f"{label} writes objects or files", 2 if verb in ("rm", "rb", "sync") else 0)


def _aws(args: Sequence[str], depth: int) -> CommandClass:
    words = _positionals(args, _AWS_GLOBAL_VALUE)
    if not words or words[0] == "help":
        return _ro("aws CLI help or version")
    if len(words) < 2:
        return _unknown("aws command without an operation")
    service, verb = words[0], words[1]
    label = f"aws {service} {verb}"
    if service == "ssm" and verb == "start-session":
        return _aws_ssm_start_session(args, depth)
    if service == "s3":
        return _aws_s3(verb, words)
    if verb.startswith(_AWS_READ_PREFIXES) or verb == "help":
        return _ro(f"{label} is a read-only API")
    for prefix, rank, what in _AWS_STATE_PREFIXES:
        if verb.startswith(prefix):
            return _mut(f"{label} {what}", rank)
    if verb.startswith(_AWS_CONFIG_PREFIXES):
        wipes = verb == "update-cluster-software" or (
            verb.startswith("delete-") and ("cluster" in verb or "volume" in verb)
        )
        config = service in _AWS_CONFIG_SERVICES
        return _mut(f"{label} changes configuration", 2 if wipes else 0, config=config)
    return _unknown(f"{label}: operation not recognised")


# --- kubectl ------------------------------------------------------------------------------

_KUBECTL_VALUE = _words(
    "-n --namespace --context --kubeconfig --cluster --user -s --server -o --output -l"
    " --selector --field-selector -c --container --since --tail --as --token --request-timeout"
    " -f --filename -L --sort-by"
)
_KUBECTL_READ = _words(
    "get describe logs top explain version api-resources api-versions cluster-info events wait"
)
_KUBECTL_OBJECT_CHANGE = _words(
    "label annotate cordon uncordon taint apply patch edit create scale set replace expose"
    " autoscale certificate"
)
_KUBECTL_WIPES = _words("node nodes no namespace namespaces ns pvc pv persistentvolumeclaim")


def _kubectl(args: Sequence[str], depth: int) -> CommandClass:
    words = _positionals(args, _KUBECTL_VALUE)
    if not words:
        return _ro("kubectl help")
    verb, sub = words[0], (words[1] if len(words) > 1 else "")
    if verb in _KUBECTL_READ:
        return _ro(f"kubectl {verb} is read-only")
    if verb == "auth" and sub in ("can-i", "whoami"):
        return _ro(f"kubectl auth {sub} is read-only")
    if verb == "config":
        if sub in ("view", "get-contexts", "current-context", "get-clusters", "get-users"):
            return _ro(f"kubectl config {sub} is read-only")
        return _mut(f"kubectl config {sub} changes the local kubeconfig")
    if verb == "rollout":
        if sub in ("status", "history"):
            return _ro(f"kubectl rollout {sub} is read-only")
        return _mut(f"kubectl rollout {sub} restarts or changes workloads", 1, config=True)
    if verb == "drain":
        return _mut("kubectl drain evicts every pod from the node", 1, config=True)
    if verb == "delete":
        kind = sub.split("/", 1)[0].lower()
        rank: Rank = 2 if kind in _KUBECTL_WIPES else 1
        what = f"kubectl delete {kind}".rstrip()
        return _mut(f"{what} removes Kubernetes objects", rank, config=True)
    if verb in _KUBECTL_OBJECT_CHANGE:
        return _mut(f"kubectl {verb} changes Kubernetes objects", config=True)
    if verb == "exec":
        return _mut("kubectl exec runs an arbitrary command in a container (treated as mutating)")
    if verb in ("run", "debug", "cp", "attach"):
        return _mut(f"kubectl {verb} creates pods or writes into containers")
    return _unknown(f"kubectl {verb}: verb not recognised")


# --- Slurm, systemd -----------------------------------------------------------------------


def _scontrol(args: Sequence[str], depth: int) -> CommandClass:
    words = _positionals(args)
    if not words:
        return _unknown("interactive scontrol can change anything")
    verb = words[0].lower()
    if verb in ("show", "ping", "version", "listpids", "help"):
        return _ro(f"scontrol {verb} is read-only")
    if verb in ("reboot", "reboot_nodes"):
        return _mut("scontrol reboot reboots Slurm nodes", 1)
    if verb in ("requeue", "requeuehold", "suspend", "shutdown", "takeover"):
        return _mut(f"scontrol {verb} interrupts jobs or daemons", 1)
    return _mut(f"scontrol {verb} changes Slurm state")


_SYSTEMCTL_READ = _words(
    "status is-active is-enabled is-failed is-system-running show cat list-units"
    " list-unit-files list-timers list-dependencies list-sockets help"
)


def _systemctl(args: Sequence[str], depth: int) -> CommandClass:
    words = _positionals(args, _words("-p --property -t --type --state -n --lines"))
    verb = words[0] if words else "list-units"
    if verb in _SYSTEMCTL_READ:
        return _ro(f"systemctl {verb} is read-only")
    if verb in ("reboot", "poweroff", "halt", "kexec"):
        return _mut(f"systemctl {verb} reboots or stops the node", 1)
    if verb in ("restart", "stop", "kill", "try-restart", "reload-or-restart"):
        return _mut(f"systemctl {verb} interrupts a service", 1)
    return _mut(f"systemctl {verb} changes services")


def _service(args: Sequence[str], depth: int) -> CommandClass:
    words = _positionals(args)
    if len(words) >= 2 and words[1] == "status":
        return _ro("service status is read-only")
    return _mut("service changes a service's state", 1)


# --- GPU tools ----------------------------------------------------------------------------

_NVSMI_SETTERS = _words(
    "-r --gpu-reset -pm --persistence-mode -e --ecc-config -c --compute-mode -pl --power-limit"
    " -ac --applications-clocks -rac --reset-applications-clocks -lgc --lock-gpu-clocks -rgc"
    " --reset-gpu-clocks -lmc --lock-memory-clocks -rmc --reset-memory-clocks -mig"
    " --multi-instance-gpu -am --accounting-mode -caa --clear-accounted-apps -p"
    " --reset-ecc-errors -cc --cuda-clocks -dm --driver-model -fdm"
)


def _nvidia_smi(args: Sequence[str], depth: int) -> CommandClass:
    setter = _flag_in(args, _NVSMI_SETTERS)
    if setter is not None:
        rank: Rank = 1 if setter in ("-r", "--gpu-reset", "-e", "--ecc-config") else 0
        return _mut(f"nvidia-smi {setter} changes GPU settings", rank)
    words = _positionals(args, _words("-i --id -d --display -f --filename -q --query"))
    sub = words[0] if words else ""
    if sub == "nvlink" and not _flag_in(args, ("-r", "--resetcounters")):
        return _ro("nvidia-smi nvlink status is read-only")
    if sub in ("mig", "vgpu", "drain", "nvlink", "conf-compute", "c2c"):
        return _unknown(f"nvidia-smi {sub} may change settings")
    if _flag_in(args, ("-f", "--filename")):
        return _mut("nvidia-smi -f writes its output into a file")
    return _ro("nvidia-smi query is read-only")


def _dcgmi(args: Sequence[str], depth: int) -> CommandClass:
    words = _positionals(args)
    sub = words[0] if words else ""
    if sub == "health" and _flag_in(args, ("-s", "--set", "--clear")):
        return _mut("dcgmi health --set changes DCGM health watches")
    if sub in ("diag", "health", "discovery", "dmon", "nvlink", "topo", "introspect", "version"):
        return _ro(f"dcgmi {sub} is read-only")
    listing = _flag_in(args, ("-l", "--list", "-i", "--info", "--get"))
    if sub in ("group", "fieldgroup", "stats", "policy", "config") and listing:
        return _ro(f"dcgmi {sub} listing is read-only")
    return _unknown(f"dcgmi {sub}: may change DCGM state")


# --- text and system tools ----------------------------------------------------------------


def _sed(args: Sequence[str], depth: int) -> CommandClass:
    for arg in args:
        short = arg.startswith("-") and not arg.startswith("--") and "i" in arg[1:]
        if short or arg.startswith("--in-place"):
            return _mut("sed -i edits files in place")
    return _ro("sed without -i only prints")


_AWK_SIDE_EFFECT = re.compile(r"system\(|\bprintf?\b[^;}]*[>|]|inplace|getline")


def _awk(args: Sequence[str], depth: int) -> CommandClass:
    if any(_AWK_SIDE_EFFECT.search(a) for a in args):
        return _unknown("awk program may run commands or write files")
    return _ro("awk only prints")


def _dmesg(args: Sequence[str], depth: int) -> CommandClass:
    if _flag_in(args, ("-C", "--clear", "-c", "--read-clear")):
        return _mut("dmesg --clear destroys the kernel log (evidence)", 2)
    if _flag_in(args, ("-n", "--console-level", "-D", "--console-off", "-E", "--console-on")):
        return _mut("dmesg changes the console log level")
    return _ro("dmesg is read-only")


def _journalctl(args: Sequence[str], depth: int) -> CommandClass:
    if any(a.startswith("--vacuum") for a in args):
        return _mut("journalctl --vacuum deletes logs (evidence)", 2)
    if _flag_in(args, ("--rotate", "--flush", "--sync", "--relinquish-var", "--setup-keys")):
        return _mut("journalctl changes journal files")
    return _ro("journalctl is read-only")


def _sysctl(args: Sequence[str], depth: int) -> CommandClass:
    assigns = any("=" in a for a in args if not a.startswith("-"))
    if assigns or _flag_in(args, ("-w", "--write", "-p", "--load", "--system")):
        return _mut("sysctl -w changes kernel parameters")
    return _ro("sysctl read is read-only")


_IP_CHANGES = _words("add del delete set flush change replace append")


def _ip(args: Sequence[str], depth: int) -> CommandClass:
    words = _positionals(args, _words("-n -netns -f -family"))
    if any(w in _IP_CHANGES for w in words[1:]):
        return _mut("ip changes node networking")
    return _ro("ip show is read-only")


_ETHTOOL_SETTERS = _words("-s -K --features -G -L -A -C -E -r -W -X -N -f --flash -p --reset")


def _ethtool(args: Sequence[str], depth: int) -> CommandClass:
    if _flag_in(args, _ETHTOOL_SETTERS):
        return _mut("ethtool changes NIC settings")
    return _ro("ethtool query is read-only")


def _ulimit(args: Sequence[str], depth: int) -> CommandClass:
    if all(a.startswith("-") for a in args):
        return _ro("ulimit query is read-only")
    return _mut("ulimit with a value changes shell limits")


_CURL_VALUE = _words("-H --header -m --max-time -w --write-out --connect-timeout -X --request")
_CURL_WRITES = _words(
    "-d --data --data-raw --data-binary --data-urlencode -T --upload-file -F --form -o --output"
    " -O --remote-name"
)


def _curl(args: Sequence[str], depth: int) -> CommandClass:
    urls = _positionals(args, _CURL_VALUE)
    if urls and all(any(h in u for h in _METADATA_HOSTS) for u in urls):
        return _ro("curl to the instance metadata service is read-only")
    if _flag_in(args, _CURL_WRITES):
        return _mut("curl sends data or writes a file")
    method = _option(args, "-X") or _option(args, "--request")
    if method is not None and method.upper() not in ("GET", "HEAD"):
        return _mut(f"curl {method.upper()} request")
    if urls and all(("://localhost" in u or "://127.0.0.1" in u) for u in urls):
        return _ro("curl GET to a local endpoint is read-only")
    return _unknown("curl to a remote endpoint")


def _tee(args: Sequence[str], depth: int) -> CommandClass:
    targets = [a for a in _positionals(args) if a not in _HARMLESS_TARGETS]
    return _mut(f"tee writes into {targets[0]}") if targets else _ro("tee to stdout only")


def _shell(args: Sequence[str], depth: int) -> CommandClass:
    if "-c" in args:
        i = args.index("-c")
        if i + 1 < len(args):
            return _classify(args[i + 1], depth + 1)
    return _unknown("starts a shell or runs a script")


def _no_positionals(tool: str) -> Handler:
    def handler(args: Sequence[str], depth: int) -> CommandClass:
        if _positionals(args):
            return _mut(f"{tool} with arguments changes state")
        return _ro(f"{tool} listing is read-only")

    return handler


def _subcommands(tool: str, read: str, *, bare: bool = False, value_flags: str = "") -> Handler:
    """Read-only when the first word is one of ``read`` (or absent, when ``bare``)."""
    read_set, flags = _words(read), _words(value_flags)

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        words = _positionals(args, flags)
        if (not words and bare) or (words and words[0] in read_set):
            return _ro(f"{tool} {words[0] if words else ''} is read-only".replace("  ", " "))
        return _mut(f"{tool} {words[0] if words else ''} changes state".replace("  ", " "))

    return handler


def _query_flags(tool: str, flags: str) -> Handler:
    flag_set = _words(flags)

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        if _flag_in(args, flag_set):
            return _ro(f"{tool} query is read-only")
        return _mut(f"{tool} changes installed packages")

    return handler


_HANDLERS: dict[str, Handler] = {
    "aws": _aws,
    "kubectl": _kubectl,
    "scontrol": _scontrol,
    "systemctl": _systemctl,
    "service": _service,
    "nvidia-smi": _nvidia_smi,
    "dcgmi": _dcgmi,
    "sed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "dmesg": _dmesg,
    "journalctl": _journalctl,
    "sysctl": _sysctl,
    "ip": _ip,
    "ethtool": _ethtool,
    "ulimit": _ulimit,
    "curl": _curl,
    "tee": _tee,
    **dict.fromkeys(("bash", "sh", "zsh", "su"), _shell),
    "mount": _no_positionals("mount"),
    "hostname": _no_positionals("hostname"),
    "chronyc": _subcommands(
        "chronyc",
        "tracking sources sourcestats activity ntpdata serverstats clients selectdata authdata"
        " waitsync",
    ),
    "timedatectl": _subcommands(
        "timedatectl", "status show list-timezones timesync-status show-timesync", bare=True
    ),
    "crictl": _subcommands(
        "crictl",
        "ps logs inspect inspecti inspectp images img pods stats statsp info version imagefsinfo",
        value_flags="-r --runtime-endpoint -i --image-endpoint",
    ),
    "docker": _subcommands("docker", "ps logs inspect images info version stats top"),
    "hyperpod-debug": _subcommands("hyperpod-debug", "triage explain checks", bare=True),
    "pip": _subcommands("pip", "list show freeze check", bare=True),
    "pip3": _subcommands("pip3", "list show freeze check", bare=True),
    "dpkg": _query_flags("dpkg", "-l --list -s --status -L --listfiles -S --search --version"),
    "rpm": _query_flags("rpm", "-q -qa -qi -ql -qf -qai --query --version"),
}

# Wrappers that run the rest of the line as a command, with their value-taking options.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": _words("-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir"),
    "env": _words("-u --unset -C --chdir -S --split-string"),
    "nice": _words("-n --adjustment"),
    "ionice": _words("-c -n"),
    "stdbuf": _words("-i -o -e"),
    "xargs": _words("-I -n -P -L -d -s -E -a --max-procs --max-args --delimiter --arg-file"),
    "watch": _words("-n --interval -d"),
    "timeout": _words("-s --signal -k --kill-after"),
    **dict.fromkeys(("time", "nohup", "unbuffer", "command", "builtin"), frozenset()),
}
_WRAPPER_POSITIONALS = {"timeout": 1}  # timeout DURATION COMMAND...


def _unwrap(words: list[str]) -> tuple[list[str], str | None]:
    """Strip wrappers and VAR=value prefixes; return the real command, or why there is none."""
    while words:
        head = words[0].rsplit("/", 1)[-1]
        if _ASSIGNMENT.match(words[0]):
            words = words[1:]
            continue
        if head not in _WRAPPERS:
            return words, None
        value_flags = _WRAPPERS[head]
        i = 1
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            i += 2 if words[i] in value_flags else 1
        while head == "env" and i < len(words) and _ASSIGNMENT.match(words[i]):
            i += 1
        i += _WRAPPER_POSITIONALS.get(head, 0)
        if i >= len(words):
            if head == "env":
                return ["env"], None
            return [], f"{head} " + ("opens a root shell" if head == "sudo" else "has no command")
        words = words[i:]
    return words, None


def _split_stages(tokens: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """Split tokens on shell operators; collect the files that redirections write."""
    stages: list[list[str]] = [[]]
    writes: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _SEPARATORS:
            stages.append([])
        elif tok in _REDIRECTS:
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            writing = tok.startswith((">", "&")) or tok == "<>"
            if writing and target not in _HARMLESS_TARGETS and not target.isdigit():
                writes.append(target or "?")
            i += 1
        elif not (tok.isdigit() and i + 1 < len(tokens) and tokens[i + 1] in _REDIRECTS):
            stages[-1].append(tok)
        i += 1
    return [s for s in stages if s], writes


def _classify_stage(words: list[str], depth: int) -> CommandClass:
    words, refusal = _unwrap(words)
    if refusal is not None:
        return _unknown(refusal)
    if not words:
        return _ro("variable assignment only")
    tool, args = words[0].rsplit("/", 1)[-1], words[1:]
    if tool in _HANDLERS:
        return _HANDLERS[tool](args, depth)
    if tool in _ALWAYS_MUTATING:
        rank, reason = _ALWAYS_MUTATING[tool]
        return _mut(f"{tool} {reason}", rank)
    if tool.startswith("mkfs."):
        return _mut(f"{tool} formats a filesystem", 2)
    if tool == "date" and _flag_in(args, ("-s", "--set")):
        return _mut("date --set changes the clock")
    if tool in _READ_ONLY_TOOLS:
        return _ro(f"{tool} is read-only")
    return _unknown(f"{tool}: command not recognised")


_SEVERITY = {"read_only": 0, "unknown": 1, "mutating": 2}


def _combine(parts: Sequence[CommandClass]) -> CommandClass:
    if not parts:
        return _unknown("empty command")
    worst = max(parts, key=lambda p: _SEVERITY[p.kind])
    reasons = dict.fromkeys(p.reason for p in parts if p.kind == worst.kind)
    rank = max(p.destructive_rank for p in parts)
    return CommandClass(worst.kind, any(p.touches_config for p in parts), rank, "; ".join(reasons))


def _substitutions(text: str) -> list[str]:
    """Bodies of ``$(...)``, ``<(...)``, ``>(...)`` and backticks, wherever they appear.

    Quotes are ignored on purpose: double quotes do not stop substitution, and treating a
    single-quoted one as live only ever makes the answer more cautious.
    """
    bodies = text.split("`")[1::2]
    for match in re.finditer(r"[$<>]\(", text):
        depth, start = 0, match.end()
        for i in range(start, len(text)):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                if depth == 0:
                    bodies.append(text[start:i])
                    break
                depth -= 1
        else:
            bodies.append(text[start:])
    return bodies


def _tokenize(command: str) -> list[str] | None:
    text = _PLACEHOLDER.sub(r"_\1_", command)  # <INSTANCE_ID> is a word, not two redirections
    text = text.replace("\\\n", " ").replace("\r", "\n").replace("\n", " ; ")
    text = text.replace("`", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def _classify(command: str, depth: int) -> CommandClass:
    if depth > _MAX_DEPTH:
        return _unknown("command nested too deeply")
    if len(command) > _MAX_COMMAND_CHARS:
        return _unknown("command too long to classify")
    tokens = _tokenize(command)
    if tokens is None:
        return _unknown("cannot parse the command (unbalanced quotes)")
    stages, writes = _split_stages(tokens)
    parts = [_classify_stage(stage, depth) for stage in stages]
    parts.extend(_mut(f"redirects output into {target}") for target in writes)
    parts.extend(_classify(body, depth + 1) for body in _substitutions(command) if body.strip())
    return _combine(parts)


def classify(command: str) -> CommandClass:
    """Classify one command line; a pipeline or list is as mutating as its worst stage."""
    return _classify(command, 0)
