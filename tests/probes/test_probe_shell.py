"""The real probe commands and the real framing, run by a real shell against fake tools.

Fake `nvidia-smi` and `neuron-ls` scripts stand first on PATH; a `sh` link there makes the
framing's inner `sh -c` the shell under test, and the outer shell runs the bundle as the
SSM document does (`sh -c <bundle>`). Each case runs under bash and under dash.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tools.checks._accel import read
from tools.parsers.neuron import parse_neuron_ls
from tools.parsers.nvidia_smi import parse_gpu_list, parse_gpu_query
from tools.probes import framing
from tools.probes.catalog import CATALOGUE
from tools.probes.model import NodeProbes, ProbeOutput

NONCE = "00112233445566aa"
SHELLS = [
    pytest.param("/bin/bash", id="bash"),
    pytest.param(
        "/bin/dash",
        id="dash",
        marks=pytest.mark.skipif(
            not Path("/bin/dash").exists(), reason="dash is not installed on this machine"
        ),
    ),
]
pytestmark = pytest.mark.skipif(
    shutil.which("timeout") is None, reason="GNU timeout (coreutils) is not installed"
)

ROW = (
    "{i}, 00000000:{bus:02X}:00.0, NVIDIA H100 80GB HBM3, 550.127.05, 33, 0, 0, "
    "Not Active, Not Active, Not Active"
)


def _rows(indexes: range) -> str:
    return "".join(ROW.format(i=i, bus=0x53 + i) + "\n" for i in indexes)


def _tools(tmp_path: Path, shell: str, scripts: dict[str, str]) -> dict[str, str]:
    """A bin directory with the fake tools and `sh` pointing at `shell`; the environment
    that puts it first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "sh").symlink_to(shell)
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text(f"#!{shell}\n{body}")
        path.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def _run(shell: str, names: list[str], env: dict[str, str], limit: float = 60) -> str:
    bundle = framing.build_bundle(names, NONCE)
    done = subprocess.run(
        [shell, "-c", bundle],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=limit,
        check=False,
    )
    return done.stdout


def _probe(shell: str, name: str, env: dict[str, str]) -> ProbeOutput:
    return framing.parse_bundle(_run(shell, [name], env), NONCE, [name])[name]


# -- item 7: a fallback runs only when the first form printed nothing usable -----------------

# nvidia-smi after a GPU fell off the bus: the reachable GPUs' rows, an error line for the
# lost one, and a non-zero status. The old field names are never needed on this driver.
GPU_LOST = f"""case "$*" in
  *clocks_event_reasons*)
    printf '%s' '{_rows(range(7))}'
    echo 'Unable to determine the device handle for GPU0000:5A:00.0: Unknown Error'
    exit 15 ;;
  *) printf '%s' '{_rows(range(7))}'; exit 15 ;;
esac
"""
OLD_DRIVER = f"""case "$*" in
  *clocks_event_reasons*)
    echo 'Field "clocks_event_reasons.hw_slowdown" is not a valid field to query.' >&2
    exit 2 ;;
  *) printf '%s' '{_rows(range(8))}' ;;
esac
"""
NO_DEVICES = "echo 'No devices were found'; exit 6\n"


@pytest.mark.parametrize("shell", SHELLS)
def test_gpu_rows_are_printed_once_when_nvidia_smi_fails_after_them(
    tmp_path: Path, shell: str
) -> None:
    out = _probe(shell, "gpu_query", _tools(tmp_path, shell, {"nvidia-smi": GPU_LOST}))
    assert out.exit_code == 1
    assert out.finished
    assert out.stdout.count("NVIDIA H100") == 7
    query = parse_gpu_query(out.stdout)
    assert [row.index for row in query.rows] == list(range(7))
    assert len(query.errors) == 1


@pytest.mark.parametrize("shell", SHELLS)
def test_old_drivers_get_the_old_field_names(tmp_path: Path, shell: str) -> None:
    out = _probe(shell, "gpu_query", _tools(tmp_path, shell, {"nvidia-smi": OLD_DRIVER}))
    assert out.exit_code == 0
    assert "not a valid field" not in out.stdout
    assert [row.index for row in parse_gpu_query(out.stdout).rows] == list(range(8))


@pytest.mark.parametrize("shell", SHELLS)
def test_a_driver_error_is_kept_once_and_fails_the_probe(tmp_path: Path, shell: str) -> None:
    out = _probe(shell, "gpu_query", _tools(tmp_path, shell, {"nvidia-smi": NO_DEVICES}))
    assert out.exit_code == 1
    assert out.stdout.strip() == "No devices were found"


@pytest.mark.parametrize("shell", SHELLS)
def test_a_missing_nvidia_smi_is_reported_not_hidden(tmp_path: Path, shell: str) -> None:
    out = _probe(shell, "gpu_query", _tools(tmp_path, shell, {}))
    assert out.exit_code == 1
    assert "not found" in out.stdout
    assert not parse_gpu_query(out.stdout).recognised


NEURON_JSON = (
    '[{"neuron_device": 0, "bdf": "10:1c.0", "nc_count": 2}, '
    '{"neuron_device": 1, "bdf": "20:1c.0", "nc_count": 2}]'
)


@pytest.mark.parametrize("shell", SHELLS)
def test_neuron_ls_listing_then_failure_is_not_listed_again(tmp_path: Path, shell: str) -> None:
    script = f"echo '{NEURON_JSON}'\nexit 1\n"
    out = _probe(shell, "neuron_devices", _tools(tmp_path, shell, {"neuron-ls": script}))
    assert out.stdout.count('"neuron_device": 0') == 1
    assert parse_neuron_ls(out.stdout).count == 2


@pytest.mark.parametrize("shell", SHELLS)
def test_new_neuron_ls_gets_the_new_option(tmp_path: Path, shell: str) -> None:
    script = (
        'case "$*" in *--json-output*) echo "error: unexpected argument --json-output" >&2;'
        f" exit 2 ;; *) echo '{NEURON_JSON}' ;; esac\n"
    )
    out = _probe(shell, "neuron_devices", _tools(tmp_path, shell, {"neuron-ls": script}))
    assert out.exit_code == 0
    assert "unexpected argument" not in out.stdout
    assert parse_neuron_ls(out.stdout).count == 2


# -- items 8 and 9: a hung tool is killed on bash and dash, and its probe reads as unfinished --

HANGS = """trap '' TERM
echo "$$" >> "{pids}"
{prefix}
exec sleep 120
"""


def _alive(pid: int) -> bool:
    """Running and not a zombie (an unreaped child of a reparenting init is dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.fixture
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalogue's GPU probes with a 2 s limit, so a hang costs the test 2 s."""
    for name in ("gpu_list", "gpu_query", "gpu_row_remap"):
        # framing reads the same dict object, so the shorter limit reaches build_bundle.
        monkeypatch.setitem(CATALOGUE, name, dataclasses.replace(CATALOGUE[name], timeout_s=2))


@pytest.mark.usefixtures("short_timeouts")
@pytest.mark.parametrize("outer", SHELLS)
@pytest.mark.parametrize("inner", SHELLS)
@pytest.mark.parametrize("name", ["gpu_list", "gpu_query"])
def test_a_hung_tool_is_killed_and_its_probe_reads_as_timed_out(
    tmp_path: Path, outer: str, inner: str, name: str
) -> None:
    pids = tmp_path / "pids"
    partial = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)" if name == "gpu_list" else ""
    script = HANGS.format(pids=pids, prefix=f"echo '{partial}'" if partial else "")
    env = _tools(tmp_path, inner, {"nvidia-smi": script})
    started = time.monotonic()
    output = _run(outer, [name, "uptime"], env, limit=30)
    elapsed = time.monotonic() - started
    parsed = framing.parse_bundle(output, NONCE, [name, "uptime"])
    hung = [int(p) for p in pids.read_text().split()]
    try:
        assert hung, "the fake tool never started"
        time.sleep(0.2)
        assert not any(_alive(pid) for pid in hung), "the hung tool outlived its probe"
        assert elapsed < 10
        out = parsed[name]
        assert out.exit_code == 137
        assert out.timed_out
        assert not out.finished
        assert parsed["uptime"].finished  # the next probe still ran
        if partial:
            assert partial in out.stdout
    finally:
        for pid in hung:
            if _alive(pid):
                os.kill(pid, 9)


def _timed_out_node(name: str, stdout: str) -> NodeProbes:
    return NodeProbes(
        instance_id="i-0123456789abcdef0",
        instance_type="ml.p5.48xlarge",
        outputs={name: ProbeOutput(stdout=stdout, exit_code=137)},
    )


def test_a_timed_out_listing_is_not_text_to_judge() -> None:
    listing = "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i})\n" for i in range(5))
    probe = read(_timed_out_node("gpu_list", listing), "gpu_list")
    assert probe.text is None
    assert probe.timed_out
    assert "timed out (exit 137)" in probe.why
    assert parse_gpu_list(probe.partial).count == 5  # kept as evidence only
