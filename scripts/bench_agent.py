"""Benchmark the agent's fixed costs: what every request carries, the largest tool result,
and `chat` start-up.

    .venv/bin/python scripts/bench_agent.py [--nodes 20000] [--runs 5]

Prints:
  * the rendered system prompt and the tool definitions, in characters and estimated
    tokens (characters / 4: there is no offline tokenizer, so this is an estimate);
  * for every bundled recorded cluster, the largest result of any tool (triage, every
    check, list_findings at its page limit, read_reference of every section, explain);
  * the same on a synthetic --nodes-node EKS recording (demo-eks grown, 2 % of the nodes
    failing, no Kubernetes node for the added ones), with the triage tool's wall time;
  * `chat` start-up to its first prompt (piped `/quit`, scripted provider, a recording)
    next to `python -c pass` and `hyperpod-debug --help`, medians of --runs subprocesses.
No network: recordings replay, the provider is scripted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_triage import grow_nodes  # noqa: E402

from agent.state import ConversationState  # noqa: E402
from agent.toolset import Toolset  # noqa: E402
from agent.toolset.budget import estimate_tokens  # noqa: E402
from agent.toolset.cluster import ClusterSession  # noqa: E402
from prompts import render  # noqa: E402
from tools.recorded.model import RecordedCluster, load_recorded  # noqa: E402
from tools.sections import SECTIONS  # noqa: E402
from tools.target import TriageTarget  # noqa: E402

CLUSTERS = REPO / "evals" / "clusters"
LONG_TEXT = (CLUSTERS.parent / "explain" / "cases.jsonl").read_text(encoding="utf-8")[:20_000]


def toolset(recording: RecordedCluster) -> Toolset:
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    return Toolset(ClusterSession(target=target, recordings=[recording]), ConversationState())


def every_call(tools: Toolset) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = [("triage", {})]
    calls += [(s.name, {}) for s in tools.specs() if s.name.startswith("check_")]
    calls += [("list_findings", {"status": ["FAIL", "WARN", "INFO", "PASS"], "limit": 100})]
    calls += [("read_reference", {"section": s}) for s in SECTIONS]
    calls += [("explain_signal", {"text": LONG_TEXT}), ("list_checks", {})]
    return calls


def largest_result(recording: RecordedCluster) -> tuple[int, str, float]:
    """(characters, tool, triage seconds) of the largest result of any tool call."""
    tools = toolset(recording)
    largest, which, triage_seconds = 0, "", 0.0
    for name, arguments in every_call(tools):
        start = time.perf_counter()
        result = tools.call(name, arguments)
        if name == "triage":
            triage_seconds = time.perf_counter() - start
        size = len(result.text)
        if size > largest:
            largest, which = size, name
    return largest, which, triage_seconds


def synthetic(nodes: int, directory: Path) -> Path:
    raw = json.loads((CLUSTERS / "demo-eks.json").read_text(encoding="utf-8"))
    grown = grow_nodes(raw, nodes)
    for call in grown["aws"]:
        if call.get("operation") == "ListClusterNodes" and call.get("response"):
            for index, node in enumerate(call["response"]["ClusterNodeSummaries"]):
                if index % 50 == 7:  # 2 % failing, each with its own message
                    node["InstanceStatus"] = {
                        "Status": "Failure",
                        "Message": f"Node health check failed on GPU {index % 8} (Xid 79)",
                    }
    path = directory / f"synthetic-{nodes}.json"
    path.write_text(json.dumps(grown), encoding="utf-8")
    return path


def median_seconds(command: list[str], runs: int, stdin: str = "") -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, input=stdin, text=True, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report_prompt() -> None:
    tools = Toolset(ClusterSession(), ConversationState()).schemas()
    tool_chars = len(json.dumps(tools))
    for language in ("en", "zh"):
        prompt = render(
            "system.jinja2",
            cluster="ml-cluster-eks",
            region="us-west-2",
            orchestrator="eks",
            node=None,
            recorded=False,
            today="2026-12-01",
            language=language,
        )
        total = len(prompt) + tool_chars
        print(
            f"system prompt ({language}): {len(prompt):,} chars ≈ {estimate_tokens(prompt):,} "
            f"tokens; tools ({len(tools)}): {tool_chars:,} chars ≈ "
            f"{estimate_tokens(json.dumps(tools)):,} tokens; together ≈ {total // 4:,} tokens "
            "(characters / 4)"
        )


def report_results(nodes: int) -> None:
    rows = []
    for path in sorted(CLUSTERS.glob("*.json")):
        size, tool, _ = largest_result(load_recorded(path))
        rows.append((size, tool, path.name))
    rows.sort(reverse=True)
    for size, tool, name in rows[:3]:
        print(f"largest tool result on {name}: {tool} {size:,} chars ≈ {size // 4:,} tokens")
    biggest = max(CLUSTERS.glob("*.json"), key=lambda p: p.stat().st_size)
    size, tool, _ = largest_result(load_recorded(biggest))
    print(f"biggest bundled cluster ({biggest.name}): {tool} {size:,} chars ≈ {size // 4:,} tokens")
    with tempfile.TemporaryDirectory() as directory:
        path = synthetic(nodes, Path(directory))
        recording = load_recorded(path)
        size, tool, seconds = largest_result(recording)
        triage = toolset(recording).call("triage", {})
        print(
            f"{nodes:,}-node synthetic recording: largest result {tool} {size:,} chars ≈ "
            f"{size // 4:,} tokens; triage result {len(triage.text):,} chars ≈ "
            f"{len(triage.text) // 4:,} tokens (triage tool {seconds:.2f} s)"
        )


def report_startup(runs: int) -> None:
    bare = median_seconds([sys.executable, "-c", "pass"], runs)
    cli = str(Path(sys.executable).parent / "hyperpod-debug")
    helped = median_seconds([cli, "--help"], runs)
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "script.json"
        script.write_text('{"turns": [{"text": "hi"}]}', encoding="utf-8")
        chat = [
            cli,
            "chat",
            "--provider",
            "scripted",
            "--script",
            str(script),
            "--recorded",
            str(CLUSTERS / "demo-eks.json"),
        ]
        started = median_seconds(chat, runs, stdin="/quit\n")
    print(
        f"start-up (median of {runs}): python -c pass {bare:.3f} s; hyperpod-debug --help "
        f"{helped:.3f} s; chat to its first prompt and /quit {started:.3f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    report_prompt()
    report_results(args.nodes)
    report_startup(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
