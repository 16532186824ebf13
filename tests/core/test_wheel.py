"""What the wheel ships: the eval cases, graders and runners, and not the cluster simulator.

The wheel is built offline once per test worker from a copy of the source tree (building in
the checkout would write build/ and *.egg-info into it, and two workers would race), then
`hyperpod-debug eval` runs from the unpacked wheel, outside the repository, on one recording
the wheel ships (its default folder must be the wheel's own, holding every bundled recording;
each of them is graded once, by tests/scenarios/test_bundled.py). Slow by nature (one build),
still run by default: it is the only test that sees the product as a user installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SIMULATOR = "cluster_simulator"
_BUILD_OUTPUT = ("build", "dist", "reports")


def _not_sources(folder: str, names: list[str]) -> set[str]:
    """What a clean clone would not hold: caches, the virtualenv, earlier build output."""
    skipped = {n for n in names if n == "__pycache__"}
    if Path(folder) == ROOT:
        skipped |= {n for n in names if n.startswith(".") or n.endswith(".egg-info")}
        skipped |= set(_BUILD_OUTPUT) & set(names)
    return skipped


def _offline_env() -> dict[str, str]:
    """The caller's environment, with pip unable to reach an index and PYTHONPATH cleared."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built offline with the installed setuptools (the dev extra)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=_not_sources)
    # The simulator must be left out by the package list, not by being absent.
    assert (source / SIMULATOR / "world.py").is_file()
    dist = work / "dist"
    offline_build = ["--no-deps", "--no-build-isolation", "--no-index"]
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", *offline_build, "-w", str(dist), source],
        env=_offline_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel_file,) = dist.glob("hyperpod_debug-*.whl")
    return wheel_file


@pytest.fixture(scope="module")
def wheel_names(wheel: Path) -> set[str]:
    """Every path the wheel holds."""
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel unpacked, as pip would lay it out in site-packages."""
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def _run_from(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run CODE with the unpacked wheel first on the path, from a folder outside the repo."""
    env = _offline_env() | {"PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def _repo_files(folder: str) -> set[str]:
    return {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_the_recorded_clusters_folder_holds_only_recordings() -> None:
    """The worlds that write the recordings live in cluster_simulator/, not beside them."""
    folder = ROOT / "evals" / "clusters"
    others = [
        p.name
        for p in folder.iterdir()
        if p.suffix != ".json" and p.name not in ("__init__.py", "__pycache__")
    ]
    assert others == []


def test_the_wheel_holds_no_simulator_file(wheel_names: set[str]) -> None:
    assert [n for n in wheel_names if n.startswith(f"{SIMULATOR}/")] == []


def test_the_wheel_holds_every_eval_file(wheel_names: set[str]) -> None:
    """evals/ is eval cases, graders and runners only, so all of it ships: the recordings,
    the explain cases (JSONL), the agent conversation cases and their graders."""
    in_repo = _repo_files("evals")
    assert {n for n in wheel_names if n.startswith("evals/")} == in_repo
    recordings = {n for n in in_repo if n.startswith("evals/clusters/") and n.endswith(".json")}
    assert len(recordings) >= 60
    assert {
        "evals/grading.py",
        "evals/explain/score.py",
        "evals/explain/cases.jsonl",
        "evals/agent_eval/run.py",
        "agent/commands/eval_cmd.py",
    } <= wheel_names


def test_eval_runs_from_the_installed_wheel(installed: Path, tmp_path: Path) -> None:
    where = _run_from(
        installed,
        "import importlib.util, json, agent, evals, tools, prompts\n"
        "from agent.commands.eval_cmd import DEFAULT_CLUSTERS\n"
        "print(json.dumps({\n"
        "    'packages': [m.__file__ for m in (agent, evals, tools, prompts)],\n"
        f"    'simulator': importlib.util.find_spec({SIMULATOR!r}) is not None,\n"
        "    'clusters': str(DEFAULT_CLUSTERS),\n"
        "}))\n",
        tmp_path,
    )
    assert where.returncode == 0, where.stderr
    found = json.loads(where.stdout)
    assert all(Path(f).is_relative_to(installed) for f in found["packages"]), found
    assert found["simulator"] is False
    clusters = Path(found["clusters"])
    assert clusters.is_relative_to(installed), found
    bundled = sorted(p.stem for p in (ROOT / "evals" / "clusters").glob("*.json"))
    assert sorted(p.stem for p in clusters.glob("*.json")) == bundled

    # One recording graded from the installed tree (triage, grading, and explain's bundled
    # cases): what the wheel lacks for one, it lacks for all.
    one = str(clusters / "demo-eks.json")
    done = _run_from(
        installed,
        "import sys\n"
        f"sys.argv = ['hyperpod-debug', 'eval', '--json', '--clusters', {one!r}]\n"
        "from agent.cli import main\n"
        "main()\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    report = json.loads(done.stdout)
    assert report["clusters"] == [{"name": "demo-eks", "passed": True, "problems": []}]
    assert report["explain"]["overall"]["total"] > 0
