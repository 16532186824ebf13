"""Slurm probe parsers: literal outputs as Slurm prints them, the bundled samples read
back, and hypothesis on arbitrary text and truncated prefixes (nothing raises)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cluster_simulator.node_samples import slurm as samples
from tools.parsers.slurm_config import parse_resource_config, parse_scontrol_ping
from tools.parsers.slurm_names import (
    expand_hostlist,
    ip_from_node_name,
    node_name_from_ip,
    short_hostname,
)
from tools.parsers.slurm_sinfo import (
    DOWN,
    DRAIN,
    FAIL,
    INVALID,
    NOT_RESPONDING,
    parse_node_state,
    parse_sinfo_nodes,
)
from tools.parsers.slurm_squeue import parse_elapsed, parse_squeue_jobs
from tools.parsers.slurm_text import tool_missing

SINFO = """\
ip-10-1-5-20|idle|Unknown|none
ip-10-1-5-21|down*|2026-11-20T09:12:44|Node unexpectedly rebooted
ip-10-1-5-22|drained|2026-11-19T22:01:05|Kill task failed
ip-10-1-5-23|draining|2026-11-20T08:00:00|maintenance|by admin
ip-10-1-5-24|mixed-|Unknown|none
ip-10-1-5-25|fail|2026-11-20T07:00:00|Action:Replace
ip-10-1-5-26|idle*|2026-11-20T11:00:00|Not responding
ip-10-1-5-27|inval|2026-11-20T11:10:00|gres/gpu count reported lower than configured (7 < 8)
ip-10-1-5-20|idle|Unknown|none
"""


def test_sinfo_states_reasons_and_partition_duplicates() -> None:
    parsed = parse_sinfo_nodes(SINFO)
    names = [n.name for n in parsed.nodes]
    assert names == [f"ip-10-1-5-{i}" for i in range(20, 28)]  # the duplicate is merged
    by_name = {n.name: n for n in parsed.nodes}
    rebooted = by_name["ip-10-1-5-21"]
    assert rebooted.state.base == "DOWN"
    assert rebooted.problems == (DOWN, NOT_RESPONDING)
    assert rebooted.reason == "Node unexpectedly rebooted"
    assert rebooted.reason_time == "2026-11-20T09:12:44"
    assert by_name["ip-10-1-5-22"].problems == (DRAIN,)
    assert by_name["ip-10-1-5-23"].reason == "maintenance|by admin"  # a | in the reason
    assert by_name["ip-10-1-5-25"].problems == (FAIL,)
    assert by_name["ip-10-1-5-26"].problems == (NOT_RESPONDING,)
    assert by_name["ip-10-1-5-27"].problems == (INVALID,)
    healthy = by_name["ip-10-1-5-20"]
    assert healthy.problems == ()
    assert (healthy.reason, healthy.reason_time) == ("", "")
    assert by_name["ip-10-1-5-24"].state.flags == frozenset({"PLANNED"})
    assert len(parsed.problem_nodes()) == 6
    assert parsed.errors == ()
    assert parsed.unreadable == 0


def test_node_state_suffixes_compact_and_complete_forms() -> None:
    cases = {
        "idle~": ("IDLE", {"POWERED_DOWN"}),
        "idle#": ("IDLE", {"POWERING_UP"}),
        "idle!": ("IDLE", {"POWER_DOWN"}),
        "idle%": ("IDLE", {"POWERING_DOWN"}),
        "mixed$": ("MIXED", {"MAINTENANCE"}),
        "down@": ("DOWN", {"REBOOT_REQUESTED"}),
        "reboot^": ("REBOOT", {"REBOOT_ISSUED"}),
        "allocated+": ("ALLOCATED", {"COMPLETING"}),
        "drng*": ("DRAINING", {"NOT_RESPONDING"}),
        "drain": ("DRAINED", set()),
        "failg": ("FAILING", set()),
        "IDLE+DRAIN+NOT_RESPONDING": ("IDLE", {"DRAIN", "NOT_RESPONDING"}),
    }
    for text, (base, flags) in cases.items():
        state = parse_node_state(text)
        assert (state.base, set(state.flags)) == (base, flags), text
    assert parse_node_state("drained*").problems == (NOT_RESPONDING, DRAIN)
    assert parse_node_state("idle+drain").problems == (DRAIN,)
    assert parse_node_state("failing").problems == (FAIL,)
    assert parse_node_state("idle~").problems == ()
    assert parse_node_state("reboot^").problems == ()
    assert parse_node_state("<garbage>").base == ""


def test_sinfo_errors_are_kept_not_judged() -> None:
    text = (
        "slurm_load_partitions: Unable to contact slurm controller (connect failure)\nsome banner\n"
    )
    parsed = parse_sinfo_nodes(text)
    assert parsed.nodes == ()
    assert parsed.errors == (
        "slurm_load_partitions: Unable to contact slurm controller (connect failure)",
    )
    assert parsed.unreadable == 1
    assert tool_missing("bash: line 1: sinfo: command not found")
    assert not tool_missing(SINFO)


def test_squeue_stuck_jobs() -> None:
    text = (
        "4711|COMPLETING|1-02:03:04|ip-10-1-5-[21-22],ip-10-1-6-3|train-llama\n"
        "4712|CONFIGURING|12:30|ip-10-1-5-30|eval|nightly\n"
        "4713|CG|0:05|ip-10-1-5-07|short\n"
    )
    parsed = parse_squeue_jobs(text)
    first, second, third = parsed.jobs
    assert first.job_id == "4711"
    assert first.state == "COMPLETING"
    assert first.elapsed_s == 93784
    assert first.node_names == ("ip-10-1-5-21", "ip-10-1-5-22", "ip-10-1-6-3")
    assert first.name == "train-llama"
    assert (second.state, second.elapsed_s, second.name) == ("CONFIGURING", 750, "eval|nightly")
    assert (third.state, third.elapsed_s) == ("COMPLETING", 5)
    assert parsed.unreadable == 0


def test_elapsed_formats() -> None:
    assert parse_elapsed("0:00") == 0
    assert parse_elapsed("59:59") == 3599
    assert parse_elapsed("2:03:04") == 7384
    assert parse_elapsed("10-00:00:01") == 864001
    for bad in ("INVALID", "UNLIMITED", "", "1:60", "1-25:00:00", "1-2:3", "-1:00"):
        assert parse_elapsed(bad) is None, bad


def test_hostlist_expansion() -> None:
    assert expand_hostlist("ip-10-1-2-[3-5,9]") == (
        "ip-10-1-2-3",
        "ip-10-1-2-4",
        "ip-10-1-2-5",
        "ip-10-1-2-9",
    )
    assert expand_hostlist("node[08-10]") == ("node08", "node09", "node10")
    assert expand_hostlist("a,b") == ("a", "b")
    assert expand_hostlist("n[1-3]x[1-2]") == (
        "n1x1",
        "n1x2",
        "n2x1",
        "n2x2",
        "n3x1",
        "n3x2",
    )
    assert expand_hostlist("node[1-") == ()
    assert expand_hostlist("ok,bad[x]") == ("ok",)
    assert len(expand_hostlist("n[0-99999999]", cap=50)) == 50
    assert expand_hostlist("") == ()


def test_scontrol_ping_forms() -> None:
    up = parse_scontrol_ping("Slurmctld(primary) at ip-10-1-0-10 is UP\n")
    assert up.answering
    assert up.primary is not None
    assert (up.primary.role, up.primary.host, up.primary.up) == ("primary", "ip-10-1-0-10", True)
    down = parse_scontrol_ping(
        "Slurmctld(primary) at ip-10-1-0-10 is DOWN\nSlurmctld(backup) at ip-10-1-0-11 is UP\n"
    )
    assert down.answering
    assert down.primary is not None
    assert not down.primary.up
    # Old releases join both slots on one line with "are"; "(NULL)" is a backup slot with
    # no controller configured, so there is nothing to call down.
    old = parse_scontrol_ping("Slurmctld(primary/backup) at head1/(NULL) are UP/DOWN\n")
    assert [(c.role, c.host, c.up) for c in old.controllers] == [("primary", "head1", True)]
    failed = parse_scontrol_ping(
        "slurm_load_ctl_conf error: Unable to contact slurm controller (connect failure)\n"
    )
    assert failed.controllers == ()
    assert not failed.answering
    assert failed.primary is None
    assert "Unable to contact slurm controller" in failed.errors[0]


def test_resource_config_shapes() -> None:
    text = """{
      "ClusterConfig": {"ClusterName": "ml"},
      "InstanceGroups": [
        {"Name": "controller-machine", "InstanceType": "ml.c5.xlarge",
         "Instances": [{"InstanceName": "i-0123456789abcdef0", "CustomerIpAddress": "10.1.0.10"}]},
        {"Name": "workers", "InstanceType": "ml.p5.48xlarge",
         "Instances": [
           {"InstanceName": "workers-1", "InstanceId": "i-0aaaaaaaaaaaaaaaa",
            "CustomerIpAddress": "10.1.5.21", "AgentIpAddress": "172.16.0.4"},
           {"InstanceName": "workers-2", "CustomerIpAddress": "not-an-ip"},
           "junk"
         ]},
        42
      ]
    }"""
    parsed = parse_resource_config("banner line\n" + text + "\ntrailing noise")
    assert parsed.error == ""
    assert parsed.groups == ("controller-machine", "workers")
    controller, worker, nameless = parsed.instances
    assert (controller.group, controller.instance_id, controller.ip) == (
        "controller-machine",
        "i-0123456789abcdef0",
        "10.1.0.10",
    )
    assert (worker.instance_id, worker.instance_name, worker.ip) == (
        "i-0aaaaaaaaaaaaaaaa",
        "workers-1",
        "10.1.5.21",
    )
    assert worker.instance_type == "ml.p5.48xlarge"
    assert (nameless.instance_id, nameless.ip) == ("", "")
    assert parse_resource_config("cat: /opt/ml/config/resource_config.json: No such file").error
    assert parse_resource_config('{"InstanceGroups": 3}').error == "no InstanceGroups list"
    assert parse_resource_config("[" * 100_000).error == "not a JSON object"


def test_node_names_and_ips() -> None:
    assert ip_from_node_name("ip-10-1-2-3") == "10.1.2.3"
    assert ip_from_node_name("ip-10-1-2-3.us-west-2.compute.internal") == "10.1.2.3"
    assert ip_from_node_name("ip-10-1-2-300") is None
    assert ip_from_node_name("worker-1") is None
    assert node_name_from_ip("10.1.2.3") == "ip-10-1-2-3"
    assert node_name_from_ip("10.1.2") is None
    assert node_name_from_ip("") is None
    assert short_hostname("IP-10-1-2-3.ec2.internal") == "ip-10-1-2-3"


def test_node_names_in_a_masked_archive_keep_their_address_placeholder() -> None:
    # tools/masking.py writes `ip-10-1-2-3` as `ip-<IP_3>` and `10.1.2.3` as `<IP_3>`.
    assert short_hostname("ip-<IP_3>.us-west-2.compute.internal") == "ip-<IP_3>"
    assert short_hostname("IP-<ip_3>") == "ip-<IP_3>"
    assert ip_from_node_name("ip-<IP_3>") == "<IP_3>"
    assert node_name_from_ip("<IP_3>") == "ip-<IP_3>"
    assert ip_from_node_name("ip-<HOST_3>") is None
    assert ip_from_node_name("ip-<IP_3>x") is None
    assert node_name_from_ip("<IP_>") is None
    nodes = parse_sinfo_nodes("ip-<IP_3>|down|2026-11-20T10:42:17|Node unexpectedly rebooted\n")
    assert [(n.name, n.reason) for n in nodes.nodes] == [
        ("ip-<IP_3>", "Node unexpectedly rebooted")
    ]
    assert nodes.unreadable == 0
    assert parse_sinfo_nodes("ip-<script>|idle|Unknown|none\n").nodes == ()


def test_samples_read_back() -> None:
    nodes = [
        ("ip-10-1-5-21", "down*", "Node unexpectedly rebooted"),
        ("ip-10-1-5-22", "idle", ""),
    ]
    parsed = parse_sinfo_nodes(samples.sinfo(nodes, partitions=("dev", "batch")))
    assert [(n.name, n.state.raw, n.reason) for n in parsed.nodes] == [
        ("ip-10-1-5-21", "down*", "Node unexpectedly rebooted"),
        ("ip-10-1-5-22", "idle", ""),
    ]
    assert parsed.nodes[0].reason_time == samples.REASON_TIME
    assert parsed.unreadable == 0
    jobs = parse_squeue_jobs(
        samples.squeue([("77", "COMPLETING", "3:10:00", "ip-10-1-5-[21-22]", "train")])
    )
    assert [(j.job_id, j.elapsed_s, j.node_names) for j in jobs.jobs] == [
        ("77", 11400, ("ip-10-1-5-21", "ip-10-1-5-22"))
    ]
    ping = parse_scontrol_ping(samples.scontrol_ping(up=False, host="ip-10-1-0-10"))
    assert [(c.host, c.up) for c in ping.controllers] == [("ip-10-1-0-10", False)]
    assert parse_scontrol_ping(samples.scontrol_ping()).answering
    unreachable = parse_scontrol_ping(samples.scontrol_ping_unreachable())
    assert (unreachable.controllers, len(unreachable.errors)) == ((), 1)
    config = parse_resource_config(
        samples.resource_config(
            [("workers", "ml.p5.48xlarge", [("i-0aaaaaaaaaaaaaaaa", "10.1.5.21")])]
        )
    )
    assert [(i.group, i.instance_id, i.ip) for i in config.instances] == [
        ("workers", "i-0aaaaaaaaaaaaaaaa", "10.1.5.21")
    ]
    assert parse_sinfo_nodes(samples.sinfo([])).nodes == ()


# -- fuzzing -------------------------------------------------------------------------------

_SLURMISH = st.text(
    alphabet=st.sampled_from(list('ip-10.2|*~#!%$@^+[],:{}"\n abcdefDOWNIDLE')), max_size=300
)
_ANY = st.one_of(st.text(max_size=400), _SLURMISH)
_REALISTIC = (
    SINFO,
    samples.squeue([("1", "COMPLETING", "1-00:00:00", "ip-10-1-5-[1-3]", "x")]),
    samples.scontrol_ping(),
    samples.resource_config([("g", "ml.p5.48xlarge", [("i-0aaaaaaaaaaaaaaaa", "10.0.0.1")])]),
)


@settings(max_examples=300, deadline=None)
@given(_ANY)
def test_parsers_never_raise_on_arbitrary_text(text: str) -> None:
    nodes = parse_sinfo_nodes(text)
    assert all(n.state.base for n in nodes.nodes)
    jobs = parse_squeue_jobs(text)
    assert all(len(j.node_names) <= 1024 for j in jobs.jobs)
    parse_scontrol_ping(text)
    config = parse_resource_config(text)
    assert all(node_name_from_ip(i.ip) for i in config.instances if i.ip)
    parse_node_state(text)
    parse_elapsed(text)
    expand_hostlist(text)
    ip_from_node_name(text)
    node_name_from_ip(text)
    tool_missing(text)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_REALISTIC), st.integers(min_value=0, max_value=2000))
def test_truncated_outputs_parse_to_a_prefix(text: str, cut: int) -> None:
    """A cut-off output yields a subset of the full answer, never an invented node or job
    (a line is read only once all its fields are there, so names and states are whole)."""
    prefix = text[:cut]
    full_states = {n.name: n.state for n in parse_sinfo_nodes(text).nodes}
    for node in parse_sinfo_nodes(prefix).nodes:
        assert full_states[node.name] == node.state
    full_jobs = {j.job_id: j.state for j in parse_squeue_jobs(text).jobs}
    for job in parse_squeue_jobs(prefix).jobs:
        assert full_jobs[job.job_id] == job.state
    full_hosts = {c.host for c in parse_scontrol_ping(text).controllers}
    assert {c.host for c in parse_scontrol_ping(prefix).controllers} <= full_hosts
    full_ips = {i.ip for i in parse_resource_config(text).instances}
    assert {i.ip for i in parse_resource_config(prefix).instances} <= full_ips
