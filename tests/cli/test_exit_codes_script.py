"""The CLI through the installed `hyperpod-debug` script in a subprocess: help, and the
colour policy (a pty for the terminal case, NO_COLOR, --no-color, a pipe).
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

ANSI = re.compile(r"\x1b\[")
SCRIPT = Path(sys.executable).with_name("hyperpod-debug")


# -- through the installed script ----------------------------------------------------------


def script_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "FORCE_COLOR"}}
    env.update(extra)
    return env


def test_help_through_the_installed_script() -> None:
    done = subprocess.run(
        [str(SCRIPT), "--help"],
        check=False,
        capture_output=True,
        text=True,
        env=script_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for command in ("triage", "record", "checks"):
        assert command in done.stdout
    assert done.stderr == ""


def run_in_pty(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run the script with stdout on a pseudo-terminal; return exit code and stdout."""
    main, secondary = pty.openpty()
    process = subprocess.Popen(
        [str(SCRIPT), *args],
        stdin=subprocess.DEVNULL,
        stdout=secondary,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    return process.wait(timeout=60), b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_never_when_disabled(recorded: Path) -> None:
    args = ["triage", "--recorded", str(recorded)]
    code, tty = run_in_pty(args, script_env())
    assert code == 0
    assert "[FAIL]" in ANSI.sub("", re.sub(r"\x1b\[[0-9;]*m", "", tty))
    assert ANSI.search(tty), "control: a terminal gets colour"

    code, no_color_env = run_in_pty(args, script_env(NO_COLOR="1"))
    assert code == 0
    assert "[FAIL]" in no_color_env
    assert not ANSI.search(no_color_env)

    code, no_color_flag = run_in_pty([*args, "--no-color"], script_env())
    assert code == 0
    assert "[FAIL]" in no_color_flag
    assert not ANSI.search(no_color_flag)

    piped = subprocess.run(
        [str(SCRIPT), *args],
        check=False,
        capture_output=True,
        text=True,
        env=script_env(),
        timeout=60,
    )
    assert piped.returncode == 0
    assert "[FAIL]" in piped.stdout
    assert not ANSI.search(piped.stdout)
    assert not ANSI.search(piped.stderr)
