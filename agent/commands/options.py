"""The options more than one command declares, each written once: its flags, help text and
bounds. A command's signature names the alias and gives the default (typer takes no
default inside `Annotated`), so a default is one of the constants here.

`--help` imports this module with every command: typer and the standard library only.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

# --- the cluster to open (triage, record, ticket, mcp, chat, ask) ---------------------------
# (agent/commands/cluster_options.py gathers these and the node-level ones below into one
# `ClusterArgs` and puts the ones a command takes into its signature.)

ClusterOption = Annotated[
    str | None, typer.Option("--cluster", "-c", help="HyperPod cluster name or ARN.")
]
RegionOption = Annotated[
    str | None,
    typer.Option("--region", "-r", help="AWS region (default: AWS_REGION / AWS_DEFAULT_REGION)."),
]
NodeOption = Annotated[
    str | None, typer.Option("--node", "-n", help="Focus on one instance id, e.g. i-0abc...")
]
ProfileOption = Annotated[str | None, typer.Option("--profile", help="AWS profile to use.")]
RecordedFileOption = Annotated[
    Path | None,
    typer.Option("--recorded", help="Replay a recorded cluster file or a `ticket` archive."),
]

# --- its node-level sources ------------------------------------------------------------------

# The defaults repeat tools.probes.runner.DEFAULT_CONCURRENCY and
# tools.triage.data.node_probes.MAX_FAILING_NODES so that `--help` needs no import of them (a
# test keeps them equal).
PROBE_CONCURRENCY = 16
MAX_PROBE_NODES = 16
KubeconfigOption = Annotated[
    Path | None,
    typer.Option(
        "--kubeconfig",
        help="Kubeconfig for the EKS checks (default: KUBECONFIG, then ~/.kube/config).",
    ),
]
ContextOption = Annotated[
    str | None, typer.Option("--context", help="Kubeconfig context (default: its current one).")
]
NoProbesOption = Annotated[
    bool,
    typer.Option(
        "--no-probes", help="Open no SSM sessions to nodes; the node-level checks are skipped."
    ),
]
ProbeConcurrencyOption = Annotated[
    int,
    typer.Option("--probe-concurrency", min=1, max=64, help="Nodes probed at the same time."),
]
MaxProbeNodesOption = Annotated[
    int,
    typer.Option(
        "--max-probe-nodes",
        min=0,
        help="Without --node: how many failing nodes to probe (one accelerator node is "
        "always added).",
    ),
]

# --- output ----------------------------------------------------------------------------------

NoColorOption = Annotated[bool, typer.Option("--no-color", help="Never colour the output.")]

# --- the agent (chat, ask; --model also eval agent) ------------------------------------------


class ProviderChoice(StrEnum):
    anthropic = "anthropic"
    bedrock = "bedrock"
    scripted = "scripted"


MAX_TOOL_ROUNDS = 12
RecordedSequenceOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--recorded",
        help="Replay a recorded cluster (a file or a `ticket` archive); repeat it to give the "
        "cluster after a fix (each re-triage moves to the next file).",
    ),
]
ProviderOption = Annotated[
    ProviderChoice,
    typer.Option("--provider", help="anthropic (ANTHROPIC_API_KEY), bedrock (AWS), scripted."),
]
ModelOption = Annotated[str | None, typer.Option("--model", help="Model id to use.")]
ScriptOption = Annotated[
    Path | None, typer.Option("--script", help="Model turns to replay (--provider scripted).")
]
TranscriptOption = Annotated[
    Path | None,
    typer.Option("--transcript", help="Write the conversation as JSONL, secrets redacted."),
]
ToolRoundsOption = Annotated[
    int, typer.Option("--max-tool-rounds", min=1, max=50, help="Tool rounds per turn.")
]
