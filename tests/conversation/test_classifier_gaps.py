"""The safety layer sees the classifier's closed gaps: a fenced line is found whole and
judged as a change, while its read-only neighbour still reads."""

from __future__ import annotations

import pytest

from agent.safety.extract import find_commands, judge

CHANGES = [
    "mount -a",
    "numactl -N0 sudo reboot",
    "env -S 'sudo reboot'",
    "curl -XDELETE http://127.0.0.1:8001/api/v1/nodes/hyperpod-i-0123456789abcdef0",
    "curl -o /etc/hosts http://169.254.169.254/latest/meta-data/local-ipv4",
    "kubectl --as-group get delete node hyperpod-i-0123456789abcdef0",
    "scontrol -M show update nodename=ip-10-1-2-3 state=down",
    "sysctl -f /etc/sysctl.d/99-x.conf",
    "nvidia-smi -acp 0",
    "helm uninstall training-operator",
    "terraform destroy -auto-approve",
    "pdsh -w node[1-4] sudo reboot",
]
READS = [
    "mount",
    "curl -s http://169.254.169.254/latest/meta-data/instance-id",
    "kubectl -n kube-system get pods",
    "scontrol show nodes",
    "helm list -A",
    "nvidia-smi -q",
    "sysctl -a",
]


@pytest.mark.parametrize("command", CHANGES)
def test_a_closed_gap_is_judged_a_change_in_a_fence(command: str) -> None:
    found = find_commands(f"Run this:\n\n```bash\n{command}\n```\n")
    assert [f.command for f in found] == [command]
    assert judge(command).kind != "read_only"


@pytest.mark.parametrize("command", READS)
def test_read_only_neighbours_still_read(command: str) -> None:
    found = find_commands(f"Run this:\n\n```bash\n{command}\n```\n")
    assert [f.command for f in found] == [command]
    assert judge(command).kind == "read_only"
