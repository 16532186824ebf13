"""ProbeRunner: retries on transient failures, the per-node budget, bounded concurrency."""

from __future__ import annotations

import threading
import time

from tools.probes.framing import bundle_probes, frame
from tools.probes.model import NodeProbes, ProbeOutput
from tools.probes.runner import ProbePlan, ProbeRunner
from tools.probes.transport import NodeUnreachable, ProbeTarget

PROBES = ("uptime", "kernel_release")


def _target(index: int = 0) -> ProbeTarget:
    return ProbeTarget("a1b2c3d4e5f6", "workers", f"i-{index:017x}")


def _answer(command: str) -> str:
    names = bundle_probes(command)
    assert names is not None
    nonce = command.split("@@HPD-", 1)[1][:16]
    return frame({name: ProbeOutput(stdout=f"{name} ok") for name in names}, nonce)


class Flaky:
    """Fails `failures` times with a transient (or permanent) error, then answers."""

    def __init__(self, failures: int, *, transient: bool = True) -> None:
        self.failures = failures
        self.transient = transient
        self.timeouts: list[float] = []

    def run_command(self, target: ProbeTarget, command: str, timeout_s: float) -> str:
        self.timeouts.append(timeout_s)
        if len(self.timeouts) <= self.failures:
            raise NodeUnreachable("TargetNotConnected", transient=self.transient)
        return _answer(command)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_transient_failure_is_retried_then_succeeds() -> None:
    clock = FakeClock()
    transport = Flaky(failures=1)
    runner = ProbeRunner(transport, clock=clock, sleep=clock.sleep)
    result = runner.probe_node(ProbePlan(_target(), PROBES))
    assert result.unreachable is None
    assert {name: out.stdout for name, out in result.outputs.items()} == {
        "uptime": "uptime ok",
        "kernel_release": "kernel_release ok",
    }
    assert len(transport.timeouts) == 2
    assert clock.now == 1002.0  # one retry delay
    assert result.elapsed_s == 2.0


def test_the_runner_gives_up_after_its_retries() -> None:
    clock = FakeClock()
    transport = Flaky(failures=10)
    runner = ProbeRunner(transport, clock=clock, sleep=clock.sleep)
    result = runner.probe_node(ProbePlan(_target(), PROBES))
    assert result.unreachable == "TargetNotConnected"
    assert result.outputs == {}
    assert len(transport.timeouts) == 1 + len(runner.retry_delays_s)


def test_a_permanent_failure_is_not_retried() -> None:
    clock = FakeClock()
    transport = Flaky(failures=10, transient=False)
    runner = ProbeRunner(transport, clock=clock, sleep=clock.sleep)
    result = runner.probe_node(ProbePlan(_target(), PROBES))
    assert result.unreachable == "TargetNotConnected"
    assert len(transport.timeouts) == 1
    assert clock.now == 1000.0


def test_the_per_node_deadline_bounds_attempts_and_their_timeouts() -> None:
    """Each attempt gets only what is left of the node's budget, and no retry starts once
    its delay would run past the deadline."""
    clock = FakeClock()

    class Slow(Flaky):
        def run_command(self, target: ProbeTarget, command: str, timeout_s: float) -> str:
            clock.now += 4.0  # each failed attempt takes 4 s
            return super().run_command(target, command, timeout_s)

    transport = Slow(failures=10)
    runner = ProbeRunner(transport, node_timeout_s=10.0, clock=clock, sleep=clock.sleep)
    result = runner.probe_node(ProbePlan(_target(), PROBES))
    assert result.unreachable == "TargetNotConnected"
    # attempt 1 at t=0 (budget 10), delay 2 -> attempt 2 at t=6 (budget 4); the next
    # delay (5 s) would end past the deadline, so the runner stops.
    assert transport.timeouts == [10.0, 4.0]
    assert clock.now - 1000.0 < 10.0 + 4.0


def test_concurrency_is_bounded_and_every_node_is_reported() -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    class Counting:
        def run_command(self, target: ProbeTarget, command: str, timeout_s: float) -> str:
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
            time.sleep(0.02)
            with lock:
                active -= 1
            return _answer(command)

    done: list[NodeProbes] = []
    runner = ProbeRunner(Counting(), concurrency=4, on_node_done=done.append)
    plans = [ProbePlan(_target(i), PROBES) for i in range(24)]
    results = runner.run(plans)
    assert list(results) == [plan.target.instance_id for plan in plans]
    assert all(r.unreachable is None and len(r.outputs) == 2 for r in results.values())
    assert 1 < peak <= 4
    assert sorted(r.instance_id for r in done) == sorted(results)


def test_no_plans_no_work() -> None:
    assert ProbeRunner(Flaky(0)).run([]) == {}
