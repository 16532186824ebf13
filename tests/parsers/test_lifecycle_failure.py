"""tools/parsers/lifecycle_failure.py on literal LifecycleConfig lines."""

from __future__ import annotations

from tools.parsers.lifecycle_failure import ScriptFailure, script_failure

# As lifecycle_script.py (aws-samples/awsome-distributed-training) ends when a script fails:
# subprocess.run([...]).check_returncode() raises CalledProcessError.
CALLED_PROCESS = (
    "subprocess.CalledProcessError: Command '['sudo', 'bash', 'mount_fsx.sh', "
    "'fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com', 'abcdefgh', '/fsx']' returned "
    "non-zero exit status 127."
)
BASH_ERROR = "/tmp/sagemaker-lcs/mount_fsx.sh: line 31: lfs: command not found"
TRACEBACK = '  File "/tmp/sagemaker-lcs/lifecycle_script.py", line 150, in <module>'


def test_called_process_error_gives_script_and_status_and_bash_the_line() -> None:
    failure = script_failure(
        ["Execute script: mount_fsx.sh", BASH_ERROR, TRACEBACK, CALLED_PROCESS]
    )
    assert failure == ScriptFailure("mount_fsx.sh", 31, 127)
    assert failure.describe() == "mount_fsx.sh, line 31, exit status 127"


def test_a_python_traceback_line_is_not_a_script_line() -> None:
    assert script_failure([TRACEBACK]) == ScriptFailure(None, None, None)
    assert not script_failure([TRACEBACK]).known


def test_wrapper_summary_with_crlf_error() -> None:
    lines = [
        "/tmp/on_create.sh: line 2: $'\\r': command not found",
        "/tmp/on_create.sh: line 3: set: -\r: invalid option",
        "on_create.sh failed with exit code 2",
    ]
    # The newest bash error of the failing script gives the line.
    assert script_failure(lines) == ScriptFailure("on_create.sh", 3, 2)


def test_other_status_wordings() -> None:
    assert script_failure(["install_docker.sh exited with status 1"]) == ScriptFailure(
        "install_docker.sh", None, 1
    )
    assert script_failure(["setup.py: exit code: 3"]).exit_status == 3
    # A zero status is not a failure; a bash error alone still names script and line.
    assert script_failure(["start_slurm.sh exited with code 0"]) == ScriptFailure(None, None, None)
    assert script_failure(["./utils/fsx_ubuntu.sh: line 9: syntax error"]) == ScriptFailure(
        "fsx_ubuntu.sh", 9, None
    )


def test_bash_error_of_another_script_does_not_lend_its_line() -> None:
    lines = ["/tmp/add_users.sh: line 4: useradd: command not found", CALLED_PROCESS]
    assert script_failure(lines) == ScriptFailure("mount_fsx.sh", None, 127)
    assert script_failure(lines).describe() == "mount_fsx.sh, line unknown, exit status 127"
