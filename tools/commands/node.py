"""Tools run on a node, judged by a table lookup or by their arguments.

The plain tables list the tools that are always read-only or always change something. The
handlers cover the tools whose verdict depends on their arguments: systemd, the GPU tools
(nvidia-smi, dcgmi), kernel logs and settings, node networking, text tools, curl, docker
and package managers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tools.commands.args import (
    flag_in,
    no_positionals,
    option,
    positionals,
    query_flags,
    subcommands,
    word_set,
)
from tools.commands.result import CommandClass, Handler, Rank, mut, ro, unknown
from tools.commands.shell import HARMLESS_TARGETS

_METADATA_HOSTS = ("169.254.169.254", "[fd00:ec2::254]", "169.254.170.2")

# --- plain tools --------------------------------------------------------------------------

READ_ONLY_TOOLS = word_set(
    """
    cat zcat grep egrep fgrep zgrep rg ls ll lsmod lscpu lspci lsblk lsof lsns nproc uptime
    df du free head tail less more wc sort uniq cut tr column jq yq echo printf stat file which
    whereis type whoami id groups uname printenv ps pgrep pstree top htop vmstat iostat mpstat
    sar findmnt fi_info neuron-ls neuron-top neuron-monitor nvidia-debugdump nvcc ss netstat
    ping traceroute tracepath dig nslookup host getent ibv_devinfo ibv_devices ibstat true
    false test basename dirname realpath readlink md5sum sha256sum diff cmp hexdump xxd od
    strings tac nl numactl lstopo dmidecode
    env kubectx session-manager-plugin last w who munge unmunge sensors pwd history date
    """
)

# tool -> (rank, reason)
ALWAYS_MUTATING: dict[str, tuple[Rank, str]] = {
    **dict.fromkeys(("rm", "shred", "truncate", "wipefs"), (2, "deletes or destroys data")),
    **dict.fromkeys(("dd", "mkfs", "fdisk", "parted"), (2, "writes disks or partitions")),
    **dict.fromkeys(("reboot", "shutdown", "poweroff", "halt"), (1, "reboots or stops the node")),
    **dict.fromkeys(("kill", "pkill", "killall"), (1, "signals processes")),
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

# --- systemd ------------------------------------------------------------------------------

_SYSTEMCTL_READ = word_set(
    "status is-active is-enabled is-failed is-system-running show cat list-units"
    " list-unit-files list-timers list-dependencies list-sockets help"
)


def _systemctl(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args, word_set("-p --property -t --type --state -n --lines"))
    verb = words[0] if words else "list-units"
    if verb in _SYSTEMCTL_READ:
        return ro(f"systemctl {verb} is read-only")
    if verb in ("reboot", "poweroff", "halt", "kexec"):
        return mut(f"systemctl {verb} reboots or stops the node", 1)
    if verb in ("restart", "stop", "kill", "try-restart", "reload-or-restart"):
        return mut(f"systemctl {verb} interrupts a service", 1)
    return mut(f"systemctl {verb} changes services")


def _service(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args)
    if len(words) >= 2 and words[1] == "status":
        return ro("service status is read-only")
    return mut("service changes a service's state", 1)


# --- GPU tools ----------------------------------------------------------------------------

_NVSMI_SETTERS = word_set(
    "-r --gpu-reset -pm --persistence-mode -e --ecc-config -c --compute-mode -pl --power-limit"
    " -ac --applications-clocks -rac --reset-applications-clocks -lgc --lock-gpu-clocks -rgc"
    " --reset-gpu-clocks -lmc --lock-memory-clocks -rmc --reset-memory-clocks -mig"
    " --multi-instance-gpu -am --accounting-mode -caa --clear-accounted-apps -p"
    " --reset-ecc-errors -cc --cuda-clocks -dm --driver-model -fdm"
)


def _nvidia_smi(args: Sequence[str], depth: int) -> CommandClass:
    setter = flag_in(args, _NVSMI_SETTERS)
    if setter is not None:
        rank: Rank = 1 if setter in ("-r", "--gpu-reset", "-e", "--ecc-config") else 0
        return mut(f"nvidia-smi {setter} changes GPU settings", rank)
    words = positionals(args, word_set("-i --id -d --display -f --filename -q --query"))
    sub = words[0] if words else ""
    if sub == "nvlink" and not flag_in(args, ("-r", "--resetcounters")):
        return ro("nvidia-smi nvlink status is read-only")
    if sub in ("mig", "vgpu", "drain", "nvlink", "conf-compute", "c2c"):
        return unknown(f"nvidia-smi {sub} may change settings")
    if flag_in(args, ("-f", "--filename")):
        return mut("nvidia-smi -f writes its output into a file")
    return ro("nvidia-smi query is read-only")


def _dcgmi(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args)
    sub = words[0] if words else ""
    if sub == "health" and flag_in(args, ("-s", "--set", "--clear")):
        return mut("dcgmi health --set changes DCGM health watches")
    if sub in ("diag", "health", "discovery", "dmon", "nvlink", "topo", "introspect", "version"):
        return ro(f"dcgmi {sub} is read-only")
    listing = flag_in(args, ("-l", "--list", "-i", "--info", "--get"))
    if sub in ("group", "fieldgroup", "stats", "policy", "config") and listing:
        return ro(f"dcgmi {sub} listing is read-only")
    return unknown(f"dcgmi {sub}: may change DCGM state")


# --- text and system tools ----------------------------------------------------------------


def _sed(args: Sequence[str], depth: int) -> CommandClass:
    for arg in args:
        short = arg.startswith("-") and not arg.startswith("--") and "i" in arg[1:]
        if short or arg.startswith("--in-place"):
            return mut("sed -i edits files in place")
    return ro("sed without -i only prints")


_AWK_SIDE_EFFECT = re.compile(r"system\(|\bprintf?\b[^;}]*[>|]|inplace|getline")


def _awk(args: Sequence[str], depth: int) -> CommandClass:
    if any(_AWK_SIDE_EFFECT.search(a) for a in args):
        return unknown("awk program may run commands or write files")
    return ro("awk only prints")


def _dmesg(args: Sequence[str], depth: int) -> CommandClass:
    if flag_in(args, ("-C", "--clear", "-c", "--read-clear")):
        return mut("dmesg --clear destroys the kernel log (evidence)", 2)
    if flag_in(args, ("-n", "--console-level", "-D", "--console-off", "-E", "--console-on")):
        return mut("dmesg changes the console log level")
    return ro("dmesg is read-only")


def _journalctl(args: Sequence[str], depth: int) -> CommandClass:
    if any(a.startswith("--vacuum") for a in args):
        return mut("journalctl --vacuum deletes logs (evidence)", 2)
    if flag_in(args, ("--rotate", "--flush", "--sync", "--relinquish-var", "--setup-keys")):
        return mut("journalctl changes journal files")
    return ro("journalctl is read-only")


def _sysctl(args: Sequence[str], depth: int) -> CommandClass:
    assigns = any("=" in a for a in args if not a.startswith("-"))
    if assigns or flag_in(args, ("-w", "--write", "-p", "--load", "--system")):
        return mut("sysctl -w changes kernel parameters")
    return ro("sysctl read is read-only")


_IP_CHANGES = word_set("add del delete set flush change replace append")


def _ip(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args, word_set("-n -netns -f -family"))
    if any(w in _IP_CHANGES for w in words[1:]):
        return mut("ip changes node networking")
    return ro("ip show is read-only")


_ETHTOOL_SETTERS = word_set("-s -K --features -G -L -A -C -E -r -W -X -N -f --flash -p --reset")


def _ethtool(args: Sequence[str], depth: int) -> CommandClass:
    if flag_in(args, _ETHTOOL_SETTERS):
        return mut("ethtool changes NIC settings")
    return ro("ethtool query is read-only")


def _ulimit(args: Sequence[str], depth: int) -> CommandClass:
    if all(a.startswith("-") for a in args):
        return ro("ulimit query is read-only")
    return mut("ulimit with a value changes shell limits")


_CURL_VALUE = word_set("-H --header -m --max-time -w --write-out --connect-timeout -X --request")
_CURL_WRITES = word_set(
    "-d --data --data-raw --data-binary --data-urlencode -T --upload-file -F --form -o --output"
    " -O --remote-name"
)


def _curl(args: Sequence[str], depth: int) -> CommandClass:
    urls = positionals(args, _CURL_VALUE)
    if urls and all(any(h in u for h in _METADATA_HOSTS) for u in urls):
        return ro("curl to the instance metadata service is read-only")
    if flag_in(args, _CURL_WRITES):
        return mut("curl sends data or writes a file")
    method = option(args, "-X") or option(args, "--request")
    if method is not None and method.upper() not in ("GET", "HEAD"):
        return mut(f"curl {method.upper()} request")
    if urls and all(("://localhost" in u or "://127.0.0.1" in u) for u in urls):
        return ro("curl GET to a local endpoint is read-only")
    return unknown("curl to a remote endpoint")


def _tee(args: Sequence[str], depth: int) -> CommandClass:
    targets = [a for a in positionals(args) if a not in HARMLESS_TARGETS]
    return mut(f"tee writes into {targets[0]}") if targets else ro("tee to stdout only")


HANDLERS: dict[str, Handler] = {
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
    "mount": no_positionals("mount"),
    "hostname": no_positionals("hostname"),
    "chronyc": subcommands(
        "chronyc",
        "tracking sources sourcestats activity ntpdata serverstats clients selectdata authdata"
        " waitsync",
    ),
    "timedatectl": subcommands(
        "timedatectl", "status show list-timezones timesync-status show-timesync", bare=True
    ),
    "docker": subcommands("docker", "ps logs inspect images info version stats top"),
    "hyperpod-debug": subcommands("hyperpod-debug", "triage explain checks", bare=True),
    "pip": subcommands("pip", "list show freeze check", bare=True),
    "pip3": subcommands("pip3", "list show freeze check", bare=True),
    "dpkg": query_flags("dpkg", "-l --list -s --status -L --listfiles -S --search --version"),
    "rpm": query_flags("rpm", "-q -qa -qi -ql -qf -qai --query --version"),
}
