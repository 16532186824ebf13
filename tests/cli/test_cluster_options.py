"""The cluster options, declared once (agent/commands/cluster_options.py): every command that
takes them turns the same flags into the same `ClusterArgs`, lists them where it always did,
and refuses the ones it does not take."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import get_args

import pytest
import typer

import agent.commands.cluster_setup
from agent.cli import app
from agent.commands.cluster_options import (
    ALL_OPTIONS,
    SESSION_OPTIONS,
    ClusterArgs,
    ClusterField,
    cluster_options,
)

from ._cli_support import REGION, assert_clean_exit, run

# Each cluster option given a value other than its default, as flags and as the field.
GIVEN: dict[ClusterField, tuple[list[str], object]] = {
    "cluster": (["--cluster", "hp"], "hp"),
    "region": (["-r", REGION], REGION),
    "node": (["-n", "i-0123456789abcdef0"], "i-0123456789abcdef0"),
    "profile": (["--profile", "ops"], "ops"),
    "kubeconfig": (["--kubeconfig", "kube.yaml"], Path("kube.yaml")),
    "context": (["--context", "admin@eks"], "admin@eks"),
    "no_probes": (["--no-probes"], True),
    "probe_concurrency": (["--probe-concurrency", "3"], 3),
    "max_probe_nodes": (["--max-probe-nodes", "0"], 0),
}
VERIFY_OPTIONS: tuple[ClusterField, ...] = ("cluster", "region", "profile")


@dataclass(frozen=True)
class Command:
    """A command that takes cluster options: what it takes, and the arguments it needs
    besides them to reach its cluster set-up."""

    name: str
    takes: tuple[ClusterField, ...]
    needs: Callable[[Path], list[str]]

    def __str__(self) -> str:
        return self.name


def _ask_output(tmp_path: Path) -> list[str]:
    """An `ask --format json` output with one suggestion, for `verify` to check."""
    suggestion = {
        "command": "aws sagemaker batch-reboot-cluster-nodes --cluster-name hp",
        "kind": "reboot",
        "mutating": True,
        "purpose": "Reboot it.",
        "blast_radius": "reboots one node",
    }
    path = tmp_path / "ask.json"
    path.write_text(json.dumps({"answer": "", "suggested_commands": [suggestion]}))
    return [str(path)]


COMMANDS = [
    Command("triage", ALL_OPTIONS, lambda _: []),
    Command("record", ALL_OPTIONS, lambda tmp: ["-o", str(tmp / "rec.json")]),
    Command("ticket", ALL_OPTIONS, lambda tmp: ["-o", str(tmp / "bundle")]),
    Command("mcp", SESSION_OPTIONS, lambda _: []),
    Command("chat", SESSION_OPTIONS, lambda _: []),
    Command("ask", SESSION_OPTIONS, lambda _: ["why is my node down?"]),
    Command("verify", VERIFY_OPTIONS, _ask_output),
]


class _Reached(Exception):
    """Raised where the command hands its ClusterArgs to the set-up: nothing is opened."""


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[ClusterArgs]:
    """The ClusterArgs each command hands to `triage_set_up` or `session_set_up`."""
    seen: list[ClusterArgs] = []

    def set_up(args: ClusterArgs, *_: object, **__: object) -> None:
        seen.append(args)
        raise _Reached

    monkeypatch.setattr(agent.commands.cluster_setup, "triage_set_up", set_up)
    monkeypatch.setattr(agent.commands.cluster_setup, "session_set_up", set_up)
    return seen


def _run_to_set_up(command: Command, tmp_path: Path, flags: list[str]) -> None:
    result = run(command.name, *flags, *command.needs(tmp_path))
    assert isinstance(result.exception, _Reached), result.output


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_every_command_builds_the_same_cluster_args_from_the_same_flags(
    command: Command, tmp_path: Path, handed: list[ClusterArgs]
) -> None:
    flags = [flag for name in command.takes for flag in GIVEN[name][0]]
    _run_to_set_up(command, tmp_path, flags)
    values = {name: GIVEN[name][1] for name in command.takes}
    assert handed == [ClusterArgs(**values)]  # type: ignore[arg-type]
    # What every command takes (verify's three), given alike, comes out alike.
    assert {name: getattr(handed[0], name) for name in VERIFY_OPTIONS} == {
        "cluster": "hp",
        "region": REGION,
        "profile": "ops",
    }


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_without_flags_every_command_hands_the_defaults(
    command: Command, tmp_path: Path, handed: list[ClusterArgs]
) -> None:
    if command.name == "verify":  # it needs a cluster to check against
        _run_to_set_up(command, tmp_path, ["--cluster", "hp"])
        assert handed == [ClusterArgs(cluster="hp")]
        return
    _run_to_set_up(command, tmp_path, [])
    assert handed == [ClusterArgs()]


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.takes != ALL_OPTIONS], ids=str)
def test_an_option_the_command_does_not_take_is_a_usage_error(
    command: Command, tmp_path: Path, handed: list[ClusterArgs]
) -> None:
    others = [name for name in ALL_OPTIONS if name not in command.takes]
    assert others
    for name in others:
        result = run(command.name, *GIVEN[name][0], *command.needs(tmp_path))
        assert_clean_exit(result, 2)
        assert "No such option" in result.output
    assert handed == []


# The typer parameters of each command in --help order: the cluster options stand where
# each command has always listed them.
PARAMETERS = {
    "triage": "cluster region node recorded output_format no_color problems_only profile "
    "kubeconfig context no_probes probe_concurrency max_probe_nodes simulate_latency",
    "record": "output cluster region node mask_account description profile kubeconfig "
    "context no_probes probe_concurrency max_probe_nodes",
    "ticket": "output cluster region node since recorded force mask transcript profile "
    "kubeconfig context no_probes probe_concurrency max_probe_nodes",
    "mcp": "cluster region node recorded http allow_remote full_text profile kubeconfig "
    "context no_probes",
    "chat": "cluster region node recorded provider model script transcript_path "
    "max_tool_rounds no_color profile kubeconfig context no_probes resume",
    "ask": "text cluster region node recorded provider model script output_format "
    "transcript_path max_tool_rounds no_color profile kubeconfig context no_probes",
    "verify": "file number cluster region recorded output_format profile",
}


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_each_command_lists_its_options_in_the_order_it_always_has(name: str) -> None:
    command = typer.main.get_command(app)
    assert isinstance(command, typer.core.TyperGroup)
    params = command.commands[name].params
    assert [p.name for p in params if p.name != "help"] == PARAMETERS[name].split()


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.takes == ALL_OPTIONS], ids=str)
@pytest.mark.parametrize(
    "flags",
    [("--probe-concurrency", "0"), ("--probe-concurrency", "65"), ("--max-probe-nodes", "-1")],
)
def test_the_probe_bounds_are_usage_errors_in_every_command_that_takes_them(
    command: Command, flags: tuple[str, str], tmp_path: Path, handed: list[ClusterArgs]
) -> None:
    result = run(command.name, "--cluster", "hp", *flags, *command.needs(tmp_path))
    assert_clean_exit(result, 2)
    assert "Invalid value" in result.output
    assert handed == []


def test_the_option_names_are_the_fields_of_cluster_args() -> None:
    names = [field.name for field in fields(ClusterArgs)]
    assert list(get_args(ClusterField)) == names == list(ALL_OPTIONS)
    assert set(SESSION_OPTIONS) == set(names) - {"probe_concurrency", "max_probe_nodes"}


# -- commands that do not fit are refused when they are declared ----------------------------


def test_a_command_without_a_cluster_args_parameter_is_refused() -> None:
    def command(name: str = "") -> None:
        del name

    with pytest.raises(TypeError, match="one parameter annotated ClusterArgs"):
        cluster_options()(command)


def test_a_parameter_named_like_an_option_is_refused() -> None:
    def command(args: ClusterArgs, region: str = "") -> None:
        del args, region

    with pytest.raises(TypeError, match=r"named like options: \['region'\]"):
        cluster_options()(command)


def test_an_unknown_place_or_option_is_refused() -> None:
    def command(args: ClusterArgs) -> None:
        del args

    with pytest.raises(TypeError, match="no parameter 'resume'"):
        cluster_options(access_before="resume")(command)
    with pytest.raises(TypeError, match="not cluster options"):
        cluster_options(("cluster", "zone"))(command)  # type: ignore[arg-type]


def test_the_body_gets_one_cluster_args_and_its_own_parameters() -> None:
    """Called as typer calls it: every value by keyword, the options apart."""
    received: list[tuple[ClusterArgs, int]] = []

    def command(args: ClusterArgs, rounds: int = 1) -> None:
        received.append((args, rounds))

    wrapped = cluster_options(("cluster", "profile"))(command)
    wrapped(cluster="hp", profile="ops", rounds=4)
    assert received == [(ClusterArgs(cluster="hp", profile="ops"), 4)]
