"""Network tools: HTTP clients (curl, wget), node networking (ip, ethtool, ss).

An HTTP request is read-only only when it writes no file, sends no data, uses no write
method, and goes to the instance metadata service or to a local HTTP endpoint; these are
judged in that order, so a write to a local endpoint (``curl -XDELETE`` through a
``kubectl proxy`` on 127.0.0.1:8001 deletes a node) or a download into ``/etc/hosts`` is
mutating whatever the host. The options are read by each client's own grammar: an option
not known is ``unknown``, since it may take the next word as its value.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from tools.command_safety.args import (
    HARMLESS_TARGETS,
    Parsed,
    WriteOptions,
    find_option,
    grammar,
    parse,
    reads_unless,
    word_set,
)
from tools.command_safety.result import CommandClass, Handler, Rank, mut, ro, unknown

_IMDS_HOSTS = frozenset(("169.254.169.254", "fd00:ec2::254"))
_METADATA_HOSTS = _IMDS_HOSTS | {"169.254.170.2"}
_LOCAL_HOSTS = frozenset(("localhost", "127.0.0.1", "::1"))
_READ_METHODS = frozenset(("GET", "HEAD"))


def _http_target(url: str) -> tuple[str, str] | None:
    """(host, path) of an http(s) URL (curl's default scheme is http), else None."""
    try:
        parts = urlsplit(url if "://" in url else "http://" + url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or host is None:
        return None
    return host.lower(), parts.path


def _http_read_verdict(tool: str, urls: Sequence[str]) -> CommandClass:
    targets = [_http_target(u) for u in urls]
    if not urls:
        return unknown(f"{tool} without a URL")
    if all(t is not None and t[0] in _METADATA_HOSTS for t in targets):
        return ro(f"{tool} to the instance metadata service is read-only")
    if all(t is not None and t[0] in _LOCAL_HOSTS for t in targets):
        return ro(f"{tool} GET to a local endpoint is read-only")
    return unknown(f"{tool} to a remote endpoint")


def _imds_token_request(urls: Sequence[str]) -> bool:
    """A PUT that only asks IMDSv2 for a session token."""
    targets = [_http_target(u) for u in urls]
    return bool(urls) and all(
        t is not None and t[0] in _IMDS_HOSTS and t[1] == "/latest/api/token" for t in targets
    )


# --- curl ---------------------------------------------------------------------------------

_CURL = grammar(
    values="-A --user-agent -b --cookie -c --cookie-jar -C --continue-at -d --data --data-ascii"
    " --data-binary --data-raw --data-urlencode -D --dump-header -E --cert --cert-type -e"
    " --referer -F --form --form-string -H --header -K --config -m --max-time -o --output"
    " --output-dir -P --ftp-port -Q --quote -r --range -T --upload-file -t --telnet-option -u"
    " --user -U --proxy-user -w --write-out -X --request -x --proxy -y --speed-time -Y"
    " --speed-limit -z --time-cond --connect-timeout --retry --retry-delay --retry-max-time"
    " --cacert --capath --key --key-type --pass --resolve --connect-to --interface"
    " --unix-socket --abstract-unix-socket --url --json --trace --trace-ascii --stderr"
    " --libcurl --etag-save --etag-compare --hsts --alt-svc --max-filesize --limit-rate"
    " --local-port --dns-servers --noproxy --proxy-header --oauth2-bearer --aws-sigv4"
    " --max-redirs --expect100-timeout --keepalive-time --ciphers --tls-max --request-target"
    " --variable --mail-from --mail-rcpt --mail-auth --url-query --pinnedpubkey --crlfile"
    " --proxy-cacert --socks5 --socks5-hostname --preproxy --parallel-max --rate --netrc-file"
    " --happy-eyeballs-timeout-ms --proxy-user",
    flags="-0 --http1.0 -1 --tlsv1 -2 --sslv2 -3 --sslv3 -4 --ipv4 -6 --ipv6 -a --append -B"
    " --use-ascii -f --fail --fail-with-body --fail-early -G --get -g --globoff -I --head -i"
    " --include -j --junk-session-cookies -J --remote-header-name -k --insecure -L --location"
    " --location-trusted -l --list-only -M --manual -N --no-buffer -n --netrc --netrc-optional"
    " -O --remote-name --remote-name-all -p --proxytunnel -q --disable -R --remote-time -S"
    " --show-error -s --silent -V --version -v --verbose -Z --parallel -# --progress-bar"
    " --compressed --http1.1 --http2 --http2-prior-knowledge --http3 --http3-only"
    " --no-keepalive --no-sessionid --tcp-nodelay --tcp-fastopen --create-dirs --path-as-is"
    " --raw --ssl --ssl-reqd --tlsv1.0 --tlsv1.1 --tlsv1.2 --tlsv1.3 --no-progress-meter"
    " --trace-time --anyauth --basic --digest --ntlm --negotiate --crlf --retry-connrefused"
    " --retry-all-errors --show-headers --ca-native --proxy-insecure --xattr -: --next -h"
    " --help --cert-status --styled-output --no-styled-output",
    abbreviate=False,
)
# Options whose value is a file curl writes (a harmless target such as /dev/null or - is
# no file), options that write files of their own, options that send data.
_CURL_FILES = word_set(
    "-o --output -D --dump-header -c --cookie-jar --trace --trace-ascii --stderr --libcurl"
    " --etag-save --hsts --alt-svc"
)
_CURL_WRITES = word_set(
    "-O --remote-name --remote-name-all -J --remote-header-name --output-dir --create-dirs --xattr"
)
_CURL_SENDS = word_set(
    "-d --data --data-ascii --data-binary --data-raw --data-urlencode -F --form --form-string"
    " -T --upload-file --json -Q --quote --mail-rcpt --mail-from"
)


def _curl_writes(parsed: Parsed) -> CommandClass | None:
    for name, value in parsed.options:
        if name in _CURL_FILES and value not in HARMLESS_TARGETS:
            return mut(f"curl {name} writes into {value or 'a file'}")
        if name in _CURL_WRITES:
            return mut(f"curl {name} writes the download into a file")
        if name in ("-w", "--write-out") and value is not None and "%output{" in value:
            return mut("curl --write-out %output{} writes into a file")
    return None


def _curl(args: Sequence[str], depth: int) -> CommandClass:
    parsed = parse(args, _CURL)
    if parsed.error is not None:
        return unknown(f"curl option {parsed.error} not recognised")
    if parsed.has("-K", "--config", "--variable"):
        return unknown("curl reads options or variables from elsewhere")
    written = _curl_writes(parsed)
    if written is not None:
        return written
    sent = next((n for n, _ in parsed.options if n in _CURL_SENDS), None)
    if sent is not None:
        return mut(f"curl {sent} sends data")
    urls = [*parsed.words, *parsed.values("--url")]
    methods = [m.upper() for m in parsed.values("-X", "--request")]
    writing = [m for m in methods if m not in _READ_METHODS]
    if writing:
        if set(writing) == {"PUT"} and _imds_token_request(urls):
            return ro("curl PUT for an IMDSv2 session token is read-only")
        return mut(f"curl {writing[0]} request (a write method, whatever the host)")
    if not urls and parsed.has("-h", "--help", "-V", "--version", "-M", "--manual"):
        return ro("curl help or version")
    return _http_read_verdict("curl", urls)


# --- wget ---------------------------------------------------------------------------------

_WGET = grammar(
    values="-O --output-document -o --output-file -a --append-output -T --timeout -t --tries"
    " --header -U --user-agent --method --post-data --post-file --body-data --body-file -P"
    " --directory-prefix -e --execute -i --input-file --user --password --http-user"
    " --http-password --ca-certificate --certificate --private-key --bind-address"
    " --dns-timeout --connect-timeout --read-timeout -w --wait --waitretry --limit-rate -Q"
    " --quota --load-cookies --save-cookies --referer -B --base --config --rejected-log -l"
    " --level -A --accept -R --reject -D --domains --exclude-domains",
    flags="-q --quiet -v --verbose -nv --no-verbose -S --server-response --spider -4"
    " --inet4-only -6 --inet6-only --no-check-certificate -c --continue -N --timestamping -r"
    " --recursive -k --convert-links -p --page-requisites -m --mirror -nc --no-clobber -x"
    " --force-directories -nd --no-directories -nH --no-host-directories -np --no-parent -h"
    " --help -V --version -d --debug --no-proxy --no-cache --no-dns-cache"
    " --content-disposition --trust-server-names --no-hsts --https-only -b --background -F"
    " --force-html --ignore-length --no-cookies --keep-session-cookies --auth-no-challenge"
    " --no-config",
    optional="--progress",
)
_WGET_LOGS = word_set("-o --output-file -a --append-output --save-cookies --rejected-log")
_WGET_SENDS = word_set("--post-data --post-file --body-data --body-file")
_WGET_SAVES = word_set(
    "-b --background -r --recursive -m --mirror -p --page-requisites -k --convert-links -P"
    " --directory-prefix -c --continue -N --timestamping"
)


def _wget(args: Sequence[str], depth: int) -> CommandClass:
    parsed = parse(args, _WGET)
    if parsed.error is not None:
        return unknown(f"wget option {parsed.error} not recognised")
    if parsed.has("-e", "--execute", "--config", "-i", "--input-file"):
        return unknown("wget reads commands or URLs from elsewhere")
    names = {n for n, _ in parsed.options}
    if names & {"-h", "--help", "-V", "--version"} and not parsed.words:
        return ro("wget help or version")
    for name, value in parsed.options:
        if name in _WGET_LOGS and value not in HARMLESS_TARGETS:
            return mut(f"wget {name} writes into {value or 'a file'}")
    sent = sorted(names & _WGET_SENDS)
    if sent:
        return mut(f"wget {sent[0]} sends data")
    methods = [m.upper() for m in parsed.values("--method")]
    if any(m not in _READ_METHODS for m in methods):
        return mut(f"wget --method {methods[0]} (a write method, whatever the host)")
    saves = sorted(names & _WGET_SAVES)
    if saves:
        return mut(f"wget {saves[0]} saves files")
    documents = parsed.values("-O", "--output-document")
    if "--spider" not in names and (not documents or documents[-1] not in HARMLESS_TARGETS):
        target = documents[-1] if documents else "a file named after the URL"
        return mut(f"wget saves the download into {target}")
    return _http_read_verdict("wget", parsed.words)


# --- ip -----------------------------------------------------------------------------------

_IP_FLAGS = word_set(
    "-4 -6 -0 -M -B -s -stats -statistics -d -details -r -resolve -o -oneline -t -timestamp"
    " -ts -tshort -h -human -human-readable -iec -c -color -br -brief -j -json -p -pretty -a"
    " -all -N -Numeric -V -Version -echo"
)
_IP_VALUES = word_set("-n -netns -f -family -l -loops -rc -rcvbuf")
_IP_READ = word_set("show list lst get help pids identify save showdump")
_IP_CHANGES = word_set(
    "add del delete set flush change chg replace append prepend restore update deleteall"
    " allocspi setdefault attach prl 6rd"
)


def _ip_exec(words: Sequence[str], every_netns: bool, depth: int) -> CommandClass:
    # Imported here: the dispatcher imports this module for its handler table.
    from tools.command_safety.classifier import classify_argv

    # ip netns exec NAME CMD...; with -all there is no NAME: CMD runs in every namespace.
    start = 2 if every_netns else 3
    if len(words) <= start:
        return unknown(f"ip {words[0]} exec without a command")
    inner = classify_argv(words[start:], depth + 1)
    reason = f"ip {words[0]} exec runs: {inner.reason}"
    return CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, reason)


def _ip(args: Sequence[str], depth: int) -> CommandClass:
    words: list[str] = []
    every_netns = False
    i = 0
    while i < len(args) and not words:
        arg = args[i]
        name = arg.split("=", 1)[0]
        every_netns = every_netns or name in ("-a", "-all")
        if not arg.startswith("-"):
            words = list(args[i:])
        elif name in _IP_VALUES:
            i += 1
        elif name not in _IP_FLAGS and not name.startswith("-col"):
            if "-batch".startswith(name) or "-force".startswith(name):
                return unknown("ip -batch runs commands from a file")
            return unknown(f"ip option {arg} not recognised")
        i += 1
    monitor = bool(words) and len(words[0]) >= 3 and "monitor".startswith(words[0])
    if len(words) < 2 or words[0] == "help" or monitor:
        return ro("ip show is read-only")
    obj, command = words[0], words[1]
    if command == "exec" and obj in ("netns", "vrf"):
        return _ip_exec(words, every_netns and obj == "netns", depth)
    if command in _IP_READ:
        return ro(f"ip {obj} {command} is read-only")
    if command in _IP_CHANGES:
        return mut(f"ip {obj} {command} changes node networking")
    return unknown(f"ip {obj} {command}: command not recognised (ip reads abbreviations)")


# --- ethtool ------------------------------------------------------------------------------

_ETHTOOL_READ = word_set(
    "-a --show-pause -c --show-coalesce -g --show-ring -i --driver -d --register-dump -e"
    " --eeprom-dump -k --show-features --show-offload -l --show-channels -n --show-nfc -u"
    " --show-ntuple -x --show-rxfh-indir --show-rxfh -P --show-permaddr -S --statistics -T"
    " --show-time-stamping --show-priv-flags --show-eee --show-fec -m --dump-module-eeprom"
    " --module-info --show-tunable --show-phy-tunable --show-module --show-plca-cfg --show-mm"
    " --show-pse --json -I --include-statistics --all-groups --phy-statistics"
    " --show-hwtimestamp-cfg -h --help --version -w --get-dump"
)
_ETHTOOL_SETTERS = word_set(
    "-s --change -K --features --offload -G --set-ring -L --set-channels -A --pause -C"
    " --coalesce -E --change-eeprom -r --negotiate -W --set-dump -X --set-rxfh-indir --rxfh"
    " -N --config-nfc --config-ntuple -U -f --flash -p --identify --reset -t --test"
    " --cable-test --cable-test-tdr"
)
_ETHTOOL_DISRUPTS = word_set("-r --negotiate --reset -t --test --cable-test --cable-test-tdr")


def _ethtool(args: Sequence[str], depth: int) -> CommandClass:
    for arg in args:
        name = arg.split("=", 1)[0]
        if not arg.startswith("-"):
            continue
        if name in _ETHTOOL_SETTERS or name.startswith(("--set-", "--config-", "--change")):
            rank: Rank = 1 if name in _ETHTOOL_DISRUPTS else 0
            return mut(f"ethtool {name} changes NIC settings", rank)
        if name not in _ETHTOOL_READ and name != "--debug":
            return unknown(f"ethtool option {arg} not recognised")
    if find_option(args, ("-w", "--get-dump")) and "data" in args:
        return mut("ethtool -w ... data writes a dump file")
    return ro("ethtool query is read-only")


# --- ss -----------------------------------------------------------------------------------

_SS = WriteOptions(
    changes="-K --kill",
    files="-D --diag",
    values="-f --family -A --query --socket -F --filter -N --net",
)


HANDLERS: dict[str, Handler] = {
    "curl": _curl,
    "wget": _wget,
    "ip": _ip,
    "ethtool": _ethtool,
    "ss": reads_unless("ss", _SS),
}
