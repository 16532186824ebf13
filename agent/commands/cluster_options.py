"""The cluster options (`--cluster` … `--max-probe-nodes`) declared once, for every command
that opens a cluster, and turned into one `ClusterArgs` once.

`ClusterArgs` is the declaration: each field's type is its option (flags, help text, bounds,
from `agent.commands.options`) and each field's default the option's default. A command
takes them with `@cluster_options(...)` and one parameter annotated `ClusterArgs`:

    @cluster_options(SESSION_OPTIONS, access_before="resume")
    def chat_command(cluster_args: ClusterArgs, recorded: ... = None, ...) -> None:

typer reads the decorated function's signature, in which that parameter is replaced by the
options the command takes: the target options (--cluster, --region, --node) where the
parameter stands, the access options (--profile, --kubeconfig, --context, --no-probes,
--probe-concurrency, --max-probe-nodes) at the end, or before the parameter
``access_before`` names, so each command's `--help` lists them where it always has. The
body gets one `ClusterArgs`; an option the command does not take keeps its default there.

`--help` imports this module with every command: typer and the standard library only (the
set-up that uses `ClusterArgs`, agent/commands/cluster_setup.py, loads when a command runs).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from typing import Any, Final, Literal, get_args, get_type_hints

from agent.commands.options import (
    MAX_PROBE_NODES,
    PROBE_CONCURRENCY,
    ClusterOption,
    ContextOption,
    KubeconfigOption,
    MaxProbeNodesOption,
    NodeOption,
    NoProbesOption,
    ProbeConcurrencyOption,
    ProfileOption,
    RegionOption,
)


@dataclass(frozen=True)
class ClusterArgs:
    """The cluster-opening options as the command line gave them; a command without an
    option keeps its default here. The field order is the options' order in `--help`."""

    cluster: ClusterOption = None
    region: RegionOption = None
    node: NodeOption = None
    profile: ProfileOption = None
    kubeconfig: KubeconfigOption = None
    context: ContextOption = None
    no_probes: NoProbesOption = False
    probe_concurrency: ProbeConcurrencyOption = PROBE_CONCURRENCY
    max_probe_nodes: MaxProbeNodesOption = MAX_PROBE_NODES


# A field of ClusterArgs, by name: what a command may take (tests hold the two equal).
ClusterField = Literal[
    "cluster",
    "region",
    "node",
    "profile",
    "kubeconfig",
    "context",
    "no_probes",
    "probe_concurrency",
    "max_probe_nodes",
]

# Which cluster: listed where the command's ClusterArgs parameter stands.
TARGET_OPTIONS: Final[tuple[ClusterField, ...]] = ("cluster", "region", "node")

# A run that probes nodes itself (triage, record, ticket) takes every option, in the
# order of ClusterArgs (which is their order in `--help`).
ALL_OPTIONS: Final[tuple[ClusterField, ...]] = get_args(ClusterField)

# A conversation or the MCP server (chat, ask, mcp) probes with the runner's defaults.
SESSION_OPTIONS: Final[tuple[ClusterField, ...]] = tuple(
    name for name in ALL_OPTIONS if name not in ("probe_concurrency", "max_probe_nodes")
)

# What typer calls: every parameter by keyword, nothing returned.
Command = Callable[..., None]


def cluster_options(
    takes: Collection[ClusterField] = ALL_OPTIONS, *, access_before: str | None = None
) -> Callable[[Command], Command]:
    """Put the cluster options in ``takes`` into the command's typer signature in place of
    its parameter annotated `ClusterArgs`, and call the command with one `ClusterArgs` built
    from them. The access options go at the end of the signature, or just before the
    parameter ``access_before``. A command that does not fit (no such parameter, or one
    named like an option) is a TypeError when its module is imported."""
    unknown = sorted(set(takes) - set(ALL_OPTIONS))
    if unknown:
        raise TypeError(f"not cluster options: {unknown}")
    taken = [name for name in ALL_OPTIONS if name in takes]

    def decorate(command: Command) -> Command:
        # The command's annotations as objects, as typer would evaluate them (eval_str).
        signature = inspect.signature(command, eval_str=True)
        slot = _cluster_args_parameter(command, signature)
        rest = [p for p in signature.parameters.values() if p is not slot]
        clashes = sorted(set(taken) & {p.name for p in rest})
        if clashes:
            raise TypeError(f"{command.__qualname__}: parameters named like options: {clashes}")
        parameters = _spliced(command, signature, slot, taken, access_before)

        @functools.wraps(command)
        def with_cluster_args(**given: Any) -> None:  # typer passes every value by keyword
            picked = {name: given.pop(name) for name in taken}
            command(**given, **{slot.name: ClusterArgs(**picked)})

        # typer reads these instead of the command's own: the option parameters in place of
        # the ClusterArgs one, every annotation already an object (nothing to evaluate).
        spliced = signature.replace(parameters=parameters)
        with_cluster_args.__signature__ = spliced  # type: ignore[attr-defined]
        with_cluster_args.__annotations__ = {
            **{p.name: p.annotation for p in parameters},
            "return": signature.return_annotation,
        }
        return with_cluster_args

    return decorate


def _cluster_args_parameter(command: Command, signature: inspect.Signature) -> inspect.Parameter:
    found = [p for p in signature.parameters.values() if p.annotation is ClusterArgs]
    if len(found) != 1:
        raise TypeError(f"{command.__qualname__}: needs one parameter annotated ClusterArgs")
    return found[0]


def _spliced(
    command: Command,
    signature: inspect.Signature,
    slot: inspect.Parameter,
    taken: list[ClusterField],
    access_before: str | None,
) -> list[inspect.Parameter]:
    """The command's parameters with the target options at ``slot`` and the access options
    before ``access_before`` (or last)."""
    options = _option_parameters()
    target = [options[name] for name in taken if name in TARGET_OPTIONS]
    access = [options[name] for name in taken if name not in TARGET_OPTIONS]
    if access_before is not None and access_before not in signature.parameters:
        raise TypeError(f"{command.__qualname__}: no parameter {access_before!r}")
    spliced: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name == access_before:
            spliced += access
        spliced += target if parameter is slot else [parameter]
    if access_before is None:
        spliced += access
    # Keyword-only, as the wrapper takes them (typer passes every value by keyword); so an
    # option with a default may come before a parameter without one.
    return [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in spliced]


@functools.cache
def _option_parameters() -> dict[str, inspect.Parameter]:
    """Each field of ClusterArgs as a typer parameter: its option annotation, its default."""
    hints = get_type_hints(ClusterArgs, include_extras=True)
    return {
        field.name: inspect.Parameter(
            field.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=field.default,
            annotation=hints[field.name],
        )
        for field in fields(ClusterArgs)
    }
