"""The deep health check result parser, on the SageMaker Developer Guide's own examples
("Deep health checks", "Logs from the deep health checks") and on the simulator's samples."""

from __future__ import annotations

import pytest

from cluster_simulator.base import RECORDED_AT
from cluster_simulator.node_samples import deep_health_check as samples
from tools.parsers.deep_health_check import DhcOutcome, parse_dhc_line, parse_dhc_log

# The documented lines, as the guide prints them (node log: tab- or space-separated).
DOC_STRESS = (
    "2024-08-20T21:53:58Z info Executing Hardware stress check with command: stress-ng, and "
    "args: [--cpu 32 --vm 2 --hdd 1 --fork 8 --switch 4 --timeout 60 --metrics]"
)
DOC_STRESS_OK = "2024-08-20T21:54:58Z info stress-ng success"
DOC_GPU_PCI = "2024-08-20T21:54:58Z    info    GpuPci Count check success"
DOC_DCGM = (
    "2024-08-20T22:25:02Z    info    DCGM diagnostic health summary: dcgmCheckLevel: 0 "
    "dcgmVersion: 3.3.7 gpuDriverVersion: 535.183.01, gpuDeviceIds: [2237] "
    "replacementRequired: false rebootRequired:false"
)
DOC_EFA = (
    "2024-08-20T22:26:28Z    info    EFA Loopback check passed for device: rdmap0s29 . Output "
    "summary is MaxBw: 58.590000, AvgBw: 32.420000, MaxTypicalLat: 30.870000, "
    "MinTypicalLat: 20.080000, AvgLat: 21.630000"
)
DOC_CLOUDWATCH = (
    '{"level": "error", "ts": "2024-06-18T21:15:22Z", "msg": "Encountered FaultyInstance. '
    "Replace the Instance. Region: us-west-2, InstanceType: p4d.24xlarge. ERROR:Bandwidth has "
    'less than threshold: Expected minimum threshold :80,NCCL Test output Bw: 30"}'
)


@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        (DOC_STRESS, DhcOutcome.CONTEXT),
        (DOC_STRESS_OK, DhcOutcome.PASSED),
        (DOC_GPU_PCI, DhcOutcome.PASSED),
        (DOC_DCGM, DhcOutcome.PASSED),
        (DOC_EFA, DhcOutcome.PASSED),
        (DOC_CLOUDWATCH, DhcOutcome.REPLACE),
        (
            DOC_DCGM.replace("replacementRequired: false", "replacementRequired: true"),
            DhcOutcome.REPLACE,
        ),
        (DOC_DCGM.replace("rebootRequired:false", "rebootRequired:true"), DhcOutcome.REBOOT),
        (DOC_DCGM.replace("rebootRequired:false", "rebootRequired = TRUE"), DhcOutcome.REBOOT),
        (
            "2024-08-20T22:26:28Z\terror\tEFA Loopback check failed for device: rdmap0s29",
            DhcOutcome.FAILED,
        ),
        ("2024-08-20T22:26:28Z warn something odd", DhcOutcome.CONTEXT),
    ],
)
def test_documented_and_inferred_lines(line: str, outcome: DhcOutcome) -> None:
    parsed = parse_dhc_line(line)
    assert parsed is not None
    assert parsed.outcome is outcome


def test_fields_of_a_plain_and_a_json_line() -> None:
    plain = parse_dhc_line(DOC_DCGM)
    assert plain is not None
    assert (plain.timestamp, plain.level) == ("2024-08-20T22:25:02Z", "info")
    assert plain.text.startswith("DCGM diagnostic health summary")
    cloud = parse_dhc_line(DOC_CLOUDWATCH)
    assert cloud is not None
    assert (cloud.timestamp, cloud.level) == ("2024-06-18T21:15:22Z", "error")
    assert cloud.text.startswith("Encountered FaultyInstance")
    assert cloud.instance_id == ""  # the documented line names no instance


def test_an_instance_id_in_the_line_is_kept() -> None:
    parsed = parse_dhc_line(
        samples.cloudwatch_faulty("i-0123456789abcdef0", RECORDED_AT, "p5.48xlarge")
    )
    assert parsed is not None
    assert parsed.instance_id == "i-0123456789abcdef0"
    assert parsed.outcome is DhcOutcome.REPLACE


def test_blank_and_unstructured_lines() -> None:
    assert parse_dhc_line("   ") is None
    loose = parse_dhc_line("no time, no level: a check failed")
    assert loose is not None
    assert (loose.timestamp, loose.level, loose.outcome) == ("", "", DhcOutcome.FAILED)


def test_the_probe_output_states() -> None:
    assert parse_dhc_log("").state == "empty"
    missing = parse_dhc_log(samples.node_log_missing())
    assert missing.state == "missing"
    assert "No such file" in missing.problem
    denied = parse_dhc_log(
        "tail: cannot open '/var/log/aws/clusters/sagemaker-deep-health-check.log' for "
        "reading: Permission denied\n"
    )
    assert denied.state == "denied"


@pytest.mark.parametrize(
    ("verdict", "worst"),
    [
        ("pass", DhcOutcome.PASSED),
        ("replace", DhcOutcome.REPLACE),
        ("reboot", DhcOutcome.REBOOT),
        ("failed", DhcOutcome.FAILED),
    ],
)
def test_the_simulator_samples_parse_to_their_verdict(verdict: str, worst: DhcOutcome) -> None:
    log = parse_dhc_log(samples.node_log(verdict))  # type: ignore[arg-type]
    assert log.state == "read"
    assert len(log.lines) == 5
    assert log.of(worst)
    order = list(DhcOutcome)
    assert all(order.index(line.outcome) >= order.index(worst) for line in log.lines)


# Near misses: wording that looks like a verdict or a failure and is neither.
@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        ("2024-08-20T21:53:58Z info Checking for FaultyInstance: none found", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info NCCL test done, 0 failures", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info Tests run: 12, Failed: 0", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info 12 passed, 0 failed", DhcOutcome.PASSED),
        ("2024-08-20T21:53:58Z info EFA failover path configured", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info no failures found", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info stress-ng did not fail", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info errors: 0", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info no need to replace the instance", DhcOutcome.CONTEXT),
        ("2024-08-20T21:53:58Z info faultyInstanceCount=0", DhcOutcome.CONTEXT),
        # ...and the near misses' true counterparts.
        ("2024-08-20T21:53:58Z info GPU 0 failed the memory test", DhcOutcome.FAILED),
        ("2024-08-20T21:53:58Z info Tests run: 12, Failed: 2", DhcOutcome.FAILED),
        ("2024-08-20T21:53:58Z info Nccl test not successful", DhcOutcome.FAILED),
        (
            '{"level":"error","ts":"2024-06-18T21:15:22Z","msg":"Encountered FaultyInstance"}',
            DhcOutcome.REPLACE,
        ),
        (
            '{"level":"info","ts":"2024-06-18T21:15:22Z","msg":"summary '
            '{\\"replacementRequired\\": true, \\"rebootRequired\\": false}"}',
            DhcOutcome.REPLACE,
        ),
        (
            "2024-08-20T21:53:58Z info DCGM summary replacementRequired=false rebootRequired=true",
            DhcOutcome.REBOOT,
        ),
    ],
)
def test_near_misses_and_their_counterparts(line: str, outcome: DhcOutcome) -> None:
    parsed = parse_dhc_line(line)
    assert parsed is not None
    assert parsed.outcome is outcome, parsed


def test_a_line_names_its_test_and_device() -> None:
    efa = parse_dhc_line(DOC_EFA)
    assert efa is not None
    assert efa.subject == ("efa", "rdmap0s29")
    cloudwatch = parse_dhc_line(DOC_CLOUDWATCH)
    assert cloudwatch is not None
    assert cloudwatch.subject == ("nccl", "")
    dcgm = parse_dhc_line(DOC_DCGM)
    assert dcgm is not None
    assert dcgm.subject == ("dcgm", "")
