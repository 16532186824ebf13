"""Tools run on a node, judged by a table lookup or by their arguments.

The plain tables list the tools that are always read-only or always change something. The
handlers cover the tools whose verdict depends on their arguments: systemd, the GPU tools
(nvidia-smi, dcgmi), kernel logs and settings, mounts, disks, clocks, containers and package
managers. Tools that read unless given a write option list those options (`WriteOptions`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.command_safety.args import (
    HARMLESS_TARGETS,
    WriteOptions,
    find_option,
    flag_in,
    grammar,
    no_positionals,
    parse,
    positionals,
    reads_unless,
    subcommands,
    word_set,
    write_verdict,
)
from tools.command_safety.result import (
    CommandClass,
    Handler,
    Rank,
    combine,
    mut,
    ro,
    unknown,
    writes_into,
)

# --- plain tools --------------------------------------------------------------------------

READ_ONLY_TOOLS = word_set(
    """
    cat zcat grep egrep fgrep zgrep ls ll lsmod lscpu lspci lsblk lsof lsns nproc uptime
    df du free head tail more wc cut tr column jq echo printf stat which
    whereis type whoami id groups uname printenv ps pgrep pstree top htop vmstat iostat mpstat
    findmnt fi_info neuron-ls neuron-top neuron-monitor netstat
    ping traceroute tracepath dig nslookup host getent ibv_devinfo ibv_devices ibstat true
    false test basename dirname realpath readlink md5sum sha256sum diff cmp hexdump od
    strings tac nl session-manager-plugin last w who pwd modinfo cd whatis apropos
    """
)

# tool -> (rank, reason)
ALWAYS_MUTATING: dict[str, tuple[Rank, str]] = {
    **dict.fromkeys(("rm", "shred", "truncate", "wipefs"), (2, "deletes or destroys data")),
    **dict.fromkeys(("dd", "mkfs", "fdisk", "parted"), (2, "writes disks or partitions")),
    **dict.fromkeys(("sfdisk", "sgdisk", "gdisk", "pvcreate"), (2, "writes disks or partitions")),
    **dict.fromkeys(
        ("lvremove", "vgremove", "pvremove", "lvreduce", "lvresize", "blkdiscard"),
        (2, "removes or discards volumes (their data is lost)"),
    ),
    **dict.fromkeys(
        (
            "lvcreate",
            "lvextend",
            "lvchange",
            "lvconvert",
            "lvrename",
            "vgcreate",
            "vgextend",
            "vgreduce",
            "vgchange",
            "vgrename",
            "pvmove",
            "pvresize",
        ),
        (0, "changes LVM volumes"),
    ),
    **dict.fromkeys(("reboot", "shutdown", "poweroff", "halt"), (1, "reboots or stops the node")),
    **dict.fromkeys(
        ("init", "telinit"), (1, "changes the runlevel (0 powers off, 6 reboots the node)")
    ),
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
_SYSTEMCTL = grammar(
    values="-t --type -p --property -P --state -n --lines -o --output -H --host -M --machine"
    " --root --image --job-mode --kill-whom --kill-value -s --signal --what"
    " --boot-loader-menu --boot-loader-entry --reboot-argument --message --when --preset-mode"
    " --drop-in --image-policy",
    flags="-a --all -r --recursive --reverse --after --before -l --full --value --show-types"
    " -i --ignore-inhibitors --dry-run -q --quiet --no-block --no-warn --wait --user --system"
    " --global --no-wall --no-reload --no-ask-password -f --force --now --no-pager"
    " --no-legend --plain --failed --firmware-setup --runtime --marked --read-only -T"
    " --show-transaction --with-dependencies -h --help --version",
    optional="--legend --check-inhibitors --timestamp",
)


def _systemctl(args: Sequence[str], depth: int) -> CommandClass:
    before = parse(args, _SYSTEMCTL, stop=True)
    if before.error is not None:
        return unknown(f"systemctl option {before.error} before the verb not recognised")
    verb = before.rest[0] if before.rest else "list-units"
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
    " --reset-gpu-clocks -lmc --lock-memory-clocks -rmc --reset-memory-clocks -lmcd"
    " --lock-memory-clocks-deferred -rmcd --reset-memory-clocks-deferred -mig"
    " --multi-instance-gpu -am --accounting-mode -caa --clear-accounted-apps -p"
    " --reset-ecc-errors -cc --cuda-clocks -dm --driver-model -fdm --force-driver-model -gom"
    " --gom -acp --applications-clocks-permission --auto-boost-default"
    " --auto-boost-default-force --auto-boost-permission"
)
_NVSMI_DISRUPTS = word_set("-r --gpu-reset -e --ecc-config")
_NVSMI_QUERIES = (
    "--query-gpu --query-supported-clocks --query-compute-apps --query-accounted-apps"
    " --query-retired-pages --query-remapped-rows"
)
_NVSMI_SETTER_FLAGS = word_set(
    "-r --gpu-reset -rac --reset-applications-clocks -rgc --reset-gpu-clocks -rmc"
    " --reset-memory-clocks -rmcd --reset-memory-clocks-deferred -caa --clear-accounted-apps"
)
_NVSMI = grammar(
    values="-i --id -d --display -f --filename -l --loop -lms --loop-ms --format --debug "
    + _NVSMI_QUERIES
    + " "
    + " ".join(_NVSMI_SETTERS - _NVSMI_SETTER_FLAGS),
    flags="-h --help -L --list-gpus -B --list-excluded-gpus -q --query -u --unit -x"
    " --xml-format --dtd --version -j --json "
    + " ".join("--help-" + q[2:] for q in _NVSMI_QUERIES.split())
    + " "
    + " ".join(_NVSMI_SETTER_FLAGS),
    abbreviate=False,
)
_NVLINK = grammar(
    values="-i --id -l --link -g --getcounters -gt --getthroughput -sc --setcontrol",
    flags="-h --help -s --status -c --capabilities -p --pcibusid -R --remotelinkinfo -e"
    " --errorcounters -r --resetcounters",
    abbreviate=False,
)
_NVSMI_MONITORS = word_set("dmon pmon")


def _nvidia_smi_sub(sub: str, args: Sequence[str]) -> CommandClass:
    if sub == "topo":
        return ro("nvidia-smi topo is read-only")
    if sub in _NVSMI_MONITORS:
        target = find_option(args, ("-f", "--filename"))
        if target is not None and target[1] not in HARMLESS_TARGETS:
            return mut(f"nvidia-smi {sub} -f writes its output into a file")
        return ro(f"nvidia-smi {sub} is read-only")
    if sub == "nvlink":
        parsed = parse(args, _NVLINK)
        if parsed.error is not None:
            return unknown(f"nvidia-smi nvlink option {parsed.error} not recognised")
        if parsed.has("-r", "--resetcounters", "-sc", "--setcontrol"):
            return mut("nvidia-smi nvlink resets or sets NVLink counters")
        return ro("nvidia-smi nvlink status is read-only")
    return unknown(f"nvidia-smi {sub} may change settings")


def _nvidia_smi(args: Sequence[str], depth: int) -> CommandClass:
    parsed = parse(args, _NVSMI, stop=True)
    # Setters before a subcommand (after it, -c and the like mean other things); all of the
    # line when an unknown option hides where the subcommand starts.
    head = args if parsed.error is not None else args[: len(args) - len(parsed.rest)]
    setter = flag_in(head, _NVSMI_SETTERS)
    if setter is not None:
        name = setter.split("=", 1)[0]
        rank: Rank = 1 if name in _NVSMI_DISRUPTS else 0
        return mut(f"nvidia-smi {name} changes GPU settings", rank)
    if parsed.error is not None:
        return unknown(f"nvidia-smi option {parsed.error} not recognised (a setter?)")
    if parsed.rest:
        return _nvidia_smi_sub(parsed.rest[0], parsed.rest[1:])
    for name, value in parsed.options:
        if name in ("-f", "--filename", "--debug") and value not in HARMLESS_TARGETS:
            return mut(f"nvidia-smi {name} writes its output into a file")
    return ro("nvidia-smi query is read-only")


_DCGMI_CHANGES = word_set(
    "-c --create -d --delete -a --add -r --remove --set --enable --disable -x --clear --reg"
    " --unreg --jstart --jstop --jremove --jremoveall"
)


def _dcgmi(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args)
    sub = words[0] if words else ""
    if sub == "health" and flag_in(args, ("-s", "--set", "--clear")):
        return mut("dcgmi health --set changes DCGM health watches")
    if sub in ("diag", "health", "discovery", "dmon", "nvlink", "topo", "introspect", "version"):
        return ro(f"dcgmi {sub} is read-only")
    listing = flag_in(args, ("-l", "--list", "-i", "--info", "--get"))
    changing = flag_in(args, _DCGMI_CHANGES)
    if sub in ("group", "fieldgroup", "stats", "policy", "config") and listing and not changing:
        return ro(f"dcgmi {sub} listing is read-only")
    return unknown(f"dcgmi {sub}: may change DCGM state")


# --- kernel logs and settings -------------------------------------------------------------


def _dmesg(args: Sequence[str], depth: int) -> CommandClass:
    values = "-f --facility -l --level -s --buffer-size -F --file --since --until --time-format"
    if find_option(args, ("-C", "--clear", "-c", "--read-clear"), values=values):
        return mut("dmesg --clear destroys the kernel log (evidence)", 2)
    console = ("-n", "--console-level", "-D", "--console-off", "-E", "--console-on")
    if find_option(args, console, values=values):
        return mut("dmesg changes the console log level")
    return ro("dmesg is read-only")


_JOURNAL_CHANGES = word_set(
    "--rotate --flush --sync --relinquish-var --smart-relinquish-var --setup-keys"
    " --update-catalog --cursor-file"
)


def _journalctl(args: Sequence[str], depth: int) -> CommandClass:
    vacuum = ("--vacuum-size", "--vacuum-files", "--vacuum-time")
    if find_option(args, vacuum) or any(a.startswith("--vacuum") for a in args):
        return mut("journalctl --vacuum deletes logs (evidence)", 2)
    changed = find_option(args, _JOURNAL_CHANGES)
    if changed is not None:
        return mut(f"journalctl {changed[0]} changes journal files")
    return ro("journalctl is read-only")


_SYSCTL = WriteOptions(changes="-w --write -p --load -f --system", values="-r --pattern")


def _sysctl(args: Sequence[str], depth: int) -> CommandClass:
    assigns = any("=" in a for a in positionals(args, word_set("-r --pattern")))
    if assigns or write_verdict("sysctl", args, _SYSCTL) is not None:
        return mut("sysctl -w / -p / -f changes kernel parameters")
    return ro("sysctl read is read-only")


def _ulimit(args: Sequence[str], depth: int) -> CommandClass:
    if all(a.startswith("-") for a in args):
        return ro("ulimit query is read-only")
    return mut("ulimit with a value changes shell limits")


_DOCKER_READS = subcommands(
    "docker",
    "ps logs inspect images info version stats top",
    value_flags="-H --host -c --context --config -l --log-level --tlscacert --tlscert --tlskey",
    flags="-D --debug --tls --tlsverify -v --version",
)
# What deletes data a container runtime keeps: volumes (a job's scratch or cache), stopped
# containers' layers, images; `prune` anywhere (system, volume, container, image prune).
_DOCKER_DELETES = word_set("prune rm rmi")


def _docker(args: Sequence[str], depth: int) -> CommandClass:
    verdict = _DOCKER_READS(args, depth)
    if verdict.kind == "read_only":
        return verdict
    words = positionals(args)
    if any(w in _DOCKER_DELETES for w in words[:3]) and (
        "prune" in words[:3] or "volume" in words[:1] or "-v" in args or "--volumes" in args
    ):
        return mut("docker removes volumes, containers or images (their data is lost)", 2)
    return verdict


# find: the tests and actions that only read and print; anything else (-delete, -exec,
# -execdir, -ok, -fprint*, -fls) deletes, runs a command or writes a file.
_FIND_READS = word_set(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size"
    " -mtime -mmin -atime -amin -ctime -cmin -newer -user -group -uid -gid -perm -links"
    " -inum -samefile -empty -readable -writable -executable -maxdepth -mindepth -depth"
    " -mount -xdev -follow -print -print0 -printf -ls -prune -quit -not -a -and -o -or"
    " -true -false -nouser -nogroup -fstype -lname -ilname -used -daystart -noleaf -P -L -H"
)


# The tests above that take a value (the next word is that value, whatever it looks like).
_FIND_VALUES = word_set(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size"
    " -mtime -mmin -atime -amin -ctime -cmin -newer -user -group -uid -gid -perm -links"
    " -inum -samefile -maxdepth -mindepth -printf -fstype -lname -ilname -used"
)


_FIND_RUNS = word_set("-exec -execdir -ok -okdir")


def _find_command(args: Sequence[str], at: int, depth: int) -> tuple[CommandClass, int]:
    """The command of ``-exec``/``-ok`` at ``args[at]`` (up to ``;`` or ``+``), judged as run
    once per file found: its verdict joins find's, so ``-exec rm -f {} +`` loses data like
    ``-delete`` does. Returns the verdict and where find's own words resume."""
    from tools.command_safety.classifier import classify_argv

    end = at + 1
    # The command ends at ";" or at a "+" right after "{}" (find(1)): a "+" anywhere else
    # is an argument of the command ("-exec tee + /etc/hosts ;" writes /etc/hosts).
    while end < len(args) and not (
        args[end] in (";", "\\;") or (args[end] == "+" and args[end - 1] == "{}")
    ):
        end += 1
    command = list(args[at + 1 : end])
    name = args[at]
    if not command:
        return unknown(f"find {name} runs a command for every file found"), end + 1
    inner = classify_argv(command, depth + 1)
    reason = f"find {name} runs, for every file found: {inner.reason}"
    return CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, reason), end + 1


# man runs a pager (-P, --pager), a browser (-H, --html), a display command (-X) or reads
# a config file that can name any of them (-C): each runs a program of the caller's choosing.
_MAN_RUNS = ("-P", "--pager", "-H", "--html", "-X", "--gxditview", "-C", "--config-file")


def _man(args: Sequence[str], depth: int) -> CommandClass:
    for arg in args:
        if arg == "--":
            break
        if arg.startswith(_MAN_RUNS):  # also attached: -Preboot, --pager=reboot
            name = arg.split("=", 1)[0][:12]
            return unknown(f"man {name} runs a program of the caller's choosing")
    return ro("man shows a manual page")


def _find(args: Sequence[str], depth: int) -> CommandClass:
    parts: list[CommandClass] = []
    if "-delete" in args:
        parts.append(mut("find -delete deletes files", 2))
    index = 0
    while index < len(args):
        word = args[index]
        if word in _FIND_RUNS:
            verdict, index = _find_command(args, index, depth)
            parts.append(verdict)
            continue
        if word in _FIND_VALUES:
            index += 1
        elif word.startswith("-") and word not in _FIND_READS and word != "-delete":
            parts.append(unknown(f"find {word} runs a command or writes a file"))
        index += 1
    return combine(parts) if parts else ro("find with tests that only read")


def _nc(args: Sequence[str], depth: int) -> CommandClass:
    """nc -z only checks that a port answers (no data is sent); otherwise nc talks."""
    scan_only = any(a.startswith("-") and not a.startswith("--") and "z" in a for a in args)
    if scan_only and not any(a in ("-e", "-c", "-l") for a in args):
        return ro("nc -z checks that a port answers")
    return unknown("nc sends or receives data")


def _tee(args: Sequence[str], depth: int) -> CommandClass:
    targets = [a for a in positionals(args) if a not in HARMLESS_TARGETS]
    if not targets:
        return ro("tee to stdout only")
    return combine([writes_into(t) for t in targets])


# --- mounts, disks, clocks, host identity -------------------------------------------------

_MOUNT_LISTING = grammar(
    values="-t --types", flags="-l --show-labels -h --help -V --version -v --verbose"
)


def _mount(args: Sequence[str], depth: int) -> CommandClass:
    parsed = parse(args, _MOUNT_LISTING)
    if parsed.error is None and not parsed.words:
        return ro("mount with no device lists the mounted filesystems")
    return mut("mount changes what is mounted on the node (-a mounts everything in fstab)")


def _hostname(args: Sequence[str], depth: int) -> CommandClass:
    if find_option(args, ("-F", "--file", "-b", "--boot")) is not None:
        return mut("hostname -F / -b sets the host name")
    return no_positionals("hostname")(args, depth)


def _date(args: Sequence[str], depth: int) -> CommandClass:
    values = "-d --date -f --file -r --reference"
    if find_option(args, ("-s", "--set"), values=values) is not None:
        return mut("date --set changes the clock")
    if any(not w.startswith("+") for w in positionals(args, word_set(values))):
        return mut("date MMDDhhmm sets the clock")
    return ro("date is read-only")


_NVME_READ = word_set(
    "list list-subsys list-ns list-ctrl id-ctrl id-ns id-ns-desc id-nvmset id-uuid id-iocs"
    " id-domain nvm-id-ctrl nvm-id-ns primary-ctrl-caps list-secondary smart-log error-log"
    " fw-log effects-log endurance-log ana-log self-test-log sanitize-log supported-log-pages"
    " show-regs get-feature get-property resv-report lba-status show-hostnqn version help"
)
_NVME_WIPES = word_set("format sanitize write-zeroes write-uncor dsm delete-ns write")
_NVME_RESETS = word_set("reset subsystem-reset ns-rescan fw-download fw-commit fw-activate")


def _nvme(args: Sequence[str], depth: int) -> CommandClass:
    sub = args[0] if args else ""
    if sub in ("", "-h", "--help", "--version") or sub in _NVME_READ:
        return ro(f"nvme {sub} is read-only".replace("  ", " "))
    if sub in _NVME_WIPES:
        return mut(f"nvme {sub} destroys data on the device", 2)
    if sub in _NVME_RESETS:
        return mut(f"nvme {sub} resets the controller or its firmware", 1)
    return unknown(f"nvme {sub}: may change the device")


# --- tools that only print unless told otherwise -------------------------------------------


def _only(tool: str, read: str, what: str) -> Handler:
    """Read-only when every argument is one of ``read`` (none at all included)."""
    allowed = word_set(read)

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        if all(a in allowed for a in args):
            return ro(f"{tool} {' '.join(args)} is read-only".replace("  ", " "))
        return mut(f"{tool} {what}")

    return handler


def _bug_report(args: Sequence[str], depth: int) -> CommandClass:
    # Run bare it writes nvidia-bug-report.log.gz where it stands: evidence collection that
    # changes no GPU state, but a file written on the node all the same.
    if args and all(a in ("-h", "--help") for a in args):
        return ro("nvidia-bug-report.sh --help is read-only")
    return mut("nvidia-bug-report.sh writes a bug-report archive on the node")


def _tar(args: Sequence[str], depth: int) -> CommandClass:
    """Listing an archive reads; creating, extracting or appending writes files."""
    first = args[0].lstrip("-") if args and not args[0].startswith("--") else ""
    if "--list" in args or (first and "t" in first and not set(first) & set("cxru")):
        return ro("tar listing is read-only")
    return mut("tar writes or extracts files")


def _history(args: Sequence[str], depth: int) -> CommandClass:
    if all(a.isdigit() for a in args):
        return ro("history listing is read-only")
    return mut("history with options changes or writes the shell history")


_WRITE_OPTIONS: dict[str, WriteOptions] = {
    "dmidecode": WriteOptions(
        files="--dump-bin",
        values="-d --dev-mem -t --type -s --string -H --handle --from-dump --oem-string",
    ),
    "sar": WriteOptions(changes="-o", values="-f -e -s -i -P -I -n -m"),
    "munge": WriteOptions(
        files="-o --output", values="-s --string -i --input -c --cipher -m --mac -z --zip"
    ),
    "unmunge": WriteOptions(files="-o --output -m --metadata", values="-i --input -k --keys"),
    "sensors": WriteOptions(changes="-s --set", values="-c --config-file"),
}


# --- containers, clocks, packages ---------------------------------------------------------


def _chronyc(args: Sequence[str], depth: int) -> CommandClass:
    parsed = parse(
        args,
        grammar(
            values="-h -p -f",
            flags="-4 -6 -n -N -c -d -m -a -v --help --version",
            abbreviate=False,
        ),
    )
    if parsed.error is not None:
        return unknown(f"chronyc option {parsed.error} not recognised")
    read = word_set(
        "tracking sources sourcestats activity ntpdata serverstats clients selectdata authdata"
        " waitsync"
    )
    # -m: every argument is a command of its own.
    commands = list(parsed.words) if parsed.has("-m") else list(parsed.words[:1])
    if not commands:
        return mut("interactive chronyc can change anything")
    changing = [c for c in commands if c not in read]
    if changing:
        return mut(f"chronyc {changing[0]} changes the clock or its sources")
    return ro(f"chronyc {' '.join(commands)} is read-only")


_DPKG_QUERIES = word_set(
    "-l --list -s --status -L --listfiles -S --search -p --print-avail --print-architecture"
    " --print-foreign-architectures --get-selections -C --audit -V --verify --version --help"
    " --compare-versions"
)
_DPKG_HARMLESS = word_set("--no-pager --root --admindir --instdir")
_DPKG_CHANGES = word_set(
    "-i --install -r --remove -P --purge --configure --unpack -x --extract -X --vextract"
    " --set-selections --clear-selections --clear-avail --update-avail --merge-avail"
    " --forget-old-unavail --add-architecture --remove-architecture --triggers-only -A"
    " --record-avail"
)


def _dpkg(args: Sequence[str], depth: int) -> CommandClass:
    names = [a.split("=", 1)[0] for a in args if a.startswith("-")]
    changing = [n for n in names if n in _DPKG_CHANGES]
    if changing:
        return mut(f"dpkg {changing[0]} changes installed packages")
    strange = [n for n in names if n not in _DPKG_QUERIES and n not in _DPKG_HARMLESS]
    if strange:
        return unknown(f"dpkg option {strange[0]} not recognised")
    if any(n in _DPKG_QUERIES for n in names):
        return ro("dpkg query is read-only")
    return mut("dpkg changes installed packages")


_RPM_READ_LONG = word_set(
    "--query --all --info --list --file --configfiles --docfiles --state --dump --requires"
    " --provides --conflicts --obsoletes --whatprovides --whatrequires --whatconflicts"
    " --whatobsoletes --whatrecommends --whatsuggests --whatsupplements --whatenhances"
    " --changelog --changes --scripts --triggers --triggerscripts --filetriggers --last --qf"
    " --queryformat --package --verify --checksig --version --help --nosignature --nodigest"
    " --filecaps --filesbypkg --xml --recommends --suggests --supplements --enhances"
    " --querytags --quiet --verbose"
)
_RPM_CHANGE_LONG = word_set(
    "--erase --install --upgrade --freshen --reinstall --import --initdb --rebuilddb"
    " --setperms --setugids --restore --delsign --addsign --resign"
)
_RPM_READ_SHORT = frozenset("qailfcdsRpVKvh")


def _rpm(args: Sequence[str], depth: int) -> CommandClass:
    if any("%(" in a or "%{lua" in a or "%{expand" in a for a in args):
        return unknown("rpm macro expansion can run commands")
    shorts: set[str] = set()
    longs: set[str] = set()
    for arg in args:
        if arg.startswith("--"):
            longs.add(arg.split("=", 1)[0])
        elif arg.startswith("-") and arg != "-":
            shorts.update(arg[1:])
    querying = (
        "q" in shorts
        or bool(longs & word_set("--query --verify --checksig"))
        or bool(shorts & set("VK"))
    )
    if longs & _RPM_CHANGE_LONG or shorts & set("eUF") or ("i" in shorts and not querying):
        return mut("rpm changes installed packages")
    strange = sorted((longs - _RPM_READ_LONG) | (shorts - _RPM_READ_SHORT))
    if strange:
        return unknown(f"rpm option {strange[0]} not recognised (may run macros or commands)")
    if querying or longs & word_set("--version --help --querytags"):
        return ro("rpm query is read-only")
    return mut("rpm changes installed packages")


HANDLERS: dict[str, Handler] = {
    "systemctl": _systemctl,
    "service": _service,
    "nvidia-smi": _nvidia_smi,
    "dcgmi": _dcgmi,
    "dmesg": _dmesg,
    "journalctl": _journalctl,
    "sysctl": _sysctl,
    "ulimit": _ulimit,
    "tee": _tee,
    "mount": _mount,
    "hostname": _hostname,
    "date": _date,
    "nvme": _nvme,
    "history": _history,
    "nvidia-bug-report.sh": _bug_report,
    "tar": _tar,
    "kubectx": _only("kubectx", "-c --current -h --help -V --version", "switches contexts"),
    "nvidia-debugdump": _only(
        "nvidia-debugdump", "-l --list -h --help", "writes a GPU debug dump file"
    ),
    "nvcc": _only(
        "nvcc",
        "--version -V --help -h --list-gpu-arch --list-gpu-code",
        "compiles and writes output files",
    ),
    **{tool: reads_unless(tool, spec) for tool, spec in _WRITE_OPTIONS.items()},
    "chronyc": _chronyc,
    # Lustre's client tools (FSx for Lustre, § B.8). lfs reads space, layouts and server
    # status; setstripe, migrate, mkdir, setquota and the hsm_* actions write. `lfs check`
    # only reports each target's state (Lustre manual, "lfs").
    "lfs": subcommands(
        "lfs",
        "df check getstripe getdirstripe osts mdts quota path2fid fid2path getname"
        " version --version help",
    ),
    # lctl reads parameters, devices and NIDs, and `lctl ping` is an LNet ping; set_param,
    # conf_param, network up/down and the debug-buffer commands (dk clears it) change
    # state (Lustre manual, "lctl").
    "lctl": subcommands(
        "lctl",
        "ping list_nids dl device_list get_param list_param lustre_build_version --version help",
    ),
    "timedatectl": subcommands(
        "timedatectl",
        "status show list-timezones timesync-status show-timesync",
        bare=True,
        value_flags="-H --host -M --machine -p --property",
        flags="--no-ask-password --adjust-system-clock --no-pager -a --all --value --monitor"
        " --version",
    ),
    "docker": _docker,
    "find": _find,
    "man": _man,
    "nc": _nc,
    "ncat": _nc,
    "hyperpod-debug": subcommands(
        "hyperpod-debug", "triage explain checks", bare=True, flags="--version"
    ),
    **{
        pip: subcommands(
            pip,
            "list show freeze check",
            bare=True,
            value_flags="--proxy --retries --timeout --cert --client-cert --trusted-host"
            " --cache-dir --exists-action --use-feature --use-deprecated --keyring-provider"
            " --root-user-action",
            flags="-q --quiet -v --verbose --isolated --no-color --disable-pip-version-check"
            " --no-input --require-virtualenv -V --version --no-cache-dir"
            " --no-python-version-warning --debug",
            unsafe="--python --log --log-file",
        )
        for pip in ("pip", "pip3")
    },
    "dpkg": _dpkg,
    "rpm": _rpm,
}
