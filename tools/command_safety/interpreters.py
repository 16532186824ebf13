"""Interpreters (python, perl, ruby, node...), PowerShell and its cmdlets.

An interpreter running code given on its command line (``python3 -c``, ``perl -e``,
``ruby -e``, ``node -e``, ``php -r``) or a script can do anything: the answer is
``unknown``, never read-only, whatever the code looks like. Asking only for its version is
read-only. ``python3 -m awscli ARGS`` is the AWS CLI run as a module (the awscli package
ships ``awscli/__main__.py``), so it is judged as ``aws ARGS``, with aws's warnings.

PowerShell cmdlets are named Verb-Noun (`tools.command_safety.words.CMDLET`). By
PowerShell's convention (learn.microsoft.com, "Approved Verbs for PowerShell Commands")
``Get`` and ``Test`` (and the formatting and selection cmdlets) only read, ``Invoke`` and
``Start-Process``/``ForEach-Object`` run other code (``unknown``), and every other verb
changes something (``Set``, ``New``, ``Remove``, ``Stop``, ``Restart``...); the cmdlets that
reboot, stop a machine or destroy data get their rank here. ``pwsh -Command`` classifies
its command as a line; an encoded command cannot be read (``unknown``).
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.command_safety.args import word_set
from tools.command_safety.result import CommandClass, Handler, Rank, combine, mut, ro, unknown
from tools.command_safety.sdk import sdk_operations, shell_lines

_VERSION_FLAGS = word_set("-V --version -v -h --help")


def _interpreter(tool: str, inline: frozenset[str], attached: bool = True) -> Handler:
    """An interpreter whose ``inline`` options take the code to run (``-c``, ``-e``)."""

    def handler(args: Sequence[str], depth: int) -> CommandClass:
        # Imported here: the dispatcher imports this module for its handler table.
        from tools.command_safety.classifier import classify_argv

        if args and all(a in _VERSION_FLAGS for a in args):
            return ro(f"{tool} only prints its version or help")
        for i, arg in enumerate(args):
            if arg == "--" or not arg.startswith("-"):
                break
            name = arg.split("=", 1)[0]
            if name in inline or (attached and any(arg.startswith(o) for o in inline)):
                code = arg[len(name) :] if arg != name else " ".join(args[i + 1 : i + 2])
                return _inline_code(tool, name, code, depth)
            if tool.startswith("python") and arg.startswith("-m"):
                module = arg[2:] or (args[i + 1] if i + 1 < len(args) else "")
                rest = args[i + 1 :] if arg[2:] else args[i + 2 :]
                if module == "awscli":
                    return classify_argv(["aws", *rest], depth + 1)
                return unknown(f"{tool} -m {module} runs a module (it can do anything)")
        return unknown(f"{tool} runs a script or program (it can do anything)")

    return handler


def _inline_code(tool: str, option: str, code: str, depth: int) -> CommandClass:
    """Inline code is never read-only; what it is seen to call adds its own verdict (an
    AWS SDK call judged as its aws operation, a line handed to a shell as that line), so
    the block carries the warnings the resource calls for."""
    from tools.command_safety.classifier import classify_argv, classify_nested

    parts = [unknown(f"{tool} {option[:2]} runs inline code (it can do anything)")]
    parts += [classify_argv(words, depth + 1) for words in sdk_operations(code)]
    parts += [classify_nested(line, depth + 1) for line in shell_lines(code)]
    return combine(parts)


def _powershell(args: Sequence[str], depth: int) -> CommandClass:
    from tools.command_safety.classifier import classify_nested

    lowered = [a.lower() for a in args]
    for i, arg in enumerate(lowered):
        if arg in ("-e", "-ec", "-enc", "-encodedcommand"):
            return unknown("PowerShell runs an encoded command, which cannot be read")
        if arg in ("-c", "-command") and i + 1 < len(args):
            return classify_nested(" ".join(args[i + 1 :]), depth + 1)
    if args and all(a in ("-v", "-version", "--version", "-h", "-help", "-?") for a in lowered):
        return ro("PowerShell only prints its version or help")
    return unknown("PowerShell runs a script or opens a shell")


_INLINE: dict[str, str] = {
    "python": "-c",
    "python2": "-c",
    "python3": "-c",
    "pypy3": "-c",
    "perl": "-e -E",
    "ruby": "-e",
    "node": "-e --eval -p --print",
    "nodejs": "-e --eval -p --print",
    "php": "-r",
    "lua": "-e",
    "Rscript": "-e",
}


def _invoke_expression(args: Sequence[str], depth: int) -> CommandClass:
    return unknown("iex (Invoke-Expression) runs a string as code")


HANDLERS: dict[str, Handler] = {
    **{tool: _interpreter(tool, word_set(inline)) for tool, inline in _INLINE.items()},
    "iex": _invoke_expression,
    **dict.fromkeys(("pwsh", "powershell", "powershell.exe", "pwsh.exe"), _powershell),
}

# Cmdlets with a verb that reads or formats only.
_READ_VERBS = word_set("Get Test Select Measure Resolve Find Compare Where Show Search Trace")
_READ_CMDLETS = word_set(
    "Format-Table Format-List Format-Wide Format-Custom Format-Hex Out-String Out-Host"
    " Out-Null Write-Host Write-Output Write-Verbose Write-Debug Write-Information"
)
_RUN_CMDLETS = word_set(
    "Invoke-Expression Invoke-Command Invoke-Item Invoke-WebRequest Invoke-RestMethod"
    " Invoke-CimMethod Invoke-WmiMethod Start-Process Start-Job ForEach-Object"
)
# Cmdlets whose change takes a machine down or destroys data: (rank, reason).
_RANKED: dict[str, tuple[Rank, str]] = {
    "Restart-Computer": (1, "reboots the machine"),
    "Stop-Computer": (1, "shuts the machine down (it reboots or stops the node)"),
    "Restart-Service": (1, "restarts a service"),
    "Stop-Service": (1, "stops a service"),
    "Suspend-Service": (1, "suspends a service"),
    "Stop-Process": (1, "kills processes"),
    "Remove-Item": (2, "deletes files or other items (their data is lost)"),
    "Clear-Content": (2, "empties files (their contents are lost)"),
    "Clear-Disk": (2, "erases a disk (its data is lost)"),
    "Format-Volume": (2, "formats a volume (its data is lost)"),
    "Initialize-Disk": (2, "initialises a disk (its data is lost)"),
    "Remove-Partition": (2, "removes a partition (its data is lost)"),
}


def cmdlet(name: str, args: Sequence[str], depth: int) -> CommandClass:
    """The verdict on PowerShell cmdlet ``name`` (written Verb-Noun, as PowerShell does)."""
    verb = name.split("-", 1)[0]
    if name in _RUN_CMDLETS:
        return unknown(f"{name} runs other commands or code")
    if name in _READ_CMDLETS or verb in _READ_VERBS:
        return ro(f"{name} only reads (PowerShell verb {verb})")
    if name in _RANKED:
        rank, reason = _RANKED[name]
        return mut(f"{name} {reason}", rank)
    return mut(f"{name} changes state (PowerShell verb {verb})")
