"""Ranking, Chinese input, the no-match path, the JSON contract and the signature tables."""

from __future__ import annotations

import json
import re

import pytest

from tools.command_safety import classify
from tools.explain import explain
from tools.explain.scoring import Hit, rank
from tools.explain.signatures import ALL_SIGNATURES
from tools.sections import SECTIONS, section


@pytest.mark.parametrize(
    ("text", "best"),
    [
        ("EFA health checks did not run successfully on i-0123456789abcdef0", "A"),
        ("NCCL INFO NET/Socket : Using network Socket", "A"),
        ("[E ProcessGroupNCCL.cpp:607] Watchdog caught collective operation timeout", "A"),
        ("RuntimeError: CUDA driver version is insufficient for CUDA runtime version", "E"),
        ("InsufficientInstanceCapacity: not enough ml.p5.48xlarge capacity", "C"),
        ("on_create.sh: line 3: $'\\r': command not found", "D.2"),
        ("sinfo -R: ip-10-1-2-3  Node unexpectedly rebooted", "H.1"),
        ("kube-system aws-node-x CrashLoopBackOff: failed to connect 127.0.0.1:50051", "O"),
        ("Warning  BackOff  pod/train-0  Back-off pulling image: ImagePullBackOff", "M"),
        ("Last State: Terminated  Reason: OOMKilled  Exit Code: 137", "M"),
        ("[12345.6] watchdog: BUG: soft lockup - CPU#12 stuck for 22s!", "N"),
        ("OSError: [Errno 28] No space left on device", "I.1"),
        ("DataLoader worker (pid 42) is killed by signal: Bus error. out of shared memory", "I.3"),
        ("Leap status     : Not synchronised", "I.4"),
        ("nproc says 96 on my p5.48xlarge", "J"),
        ("An error occurred (TargetNotConnected) when calling the StartSession operation", "K"),
        ("sagemaker.amazonaws.com/node-health-status=UnschedulablePendingReplacement", "F.2"),
        ("aws sagemaker describe-cluster shows NodeRecovery: None", "F.1"),
        ("authenticationMode CONFIG_MAP is not supported", "B.5"),
        (
            "curl: (6) Could not resolve host: sts.us-west-2.amazonaws.com; enableDnsSupport false",
            "B.2",
        ),
        ("nrt_init failed: No neuron device available", "G.5"),
        (
            "after the replacement `rdma link show` is empty and there are no rdmap devices",
            "A",
        ),
        ("CapacityError: Unable to provision requested ML compute capacity.", "C"),
        (
            "LustreError: 11-0: fsx-OST0001-osc-ffff: operation ost_connect to node"
            " 172.31.9.9@tcp failed: rc = -110",
            "B.8",
        ),
        ("ClusterStatus: Failed. FailureMessage: the OnCreate lifecycle script exited with 1", "D"),
        ("we only see half the vCPUs on the p5.48xlarge nodes", "J"),
    ],
)
def test_best_section(text: str, best: str) -> None:
    assert explain(text).matches[0].section == best


@pytest.mark.parametrize(
    ("text", "best"),
    [
        ("训练跑着跑着掉卡了，nvidia-smi 只看到 7 张 GPU", "G.2"),
        ("节点磁盘满了，写 checkpoint 失败", "I.1"),
        ("主机内存不足，进程被 OOM 杀掉了", "I.2"),
        ("显存报 ECC 错误，不可纠正", "G.3"),
        ("Slurm 节点状态变成 down 了，sinfo 显示 Node unexpectedly rebooted", "H.1"),
        ("NCCL 超时，AllReduce 卡住不动", "A"),
        ("安全组出站规则没有放通自身", "A"),
        ("生命周期脚本执行失败，报换行符错误", "D.2"),
        ("替换后的节点 ibv_devices 没有任何设备，只有表头", "A"),
        ("FSx for Lustre 挂载超时，端口 988 是不是没开", "B.8"),
        ("集群 Failed 了，失败原因是 on_create 脚本报错", "D"),
        ("CPU 核数只有一半，nproc 是 96", "J"),
        ("HyperPod 的安全组跟 EKS 的安全组对不上", "B.5"),
        ("节点时间不同步，chrony 没在跑", "I.4"),
        ("p5.48xlarge 只有 96 个 vCPU，是不是超线程没开", "J"),
    ],
)
def test_chinese_input(text: str, best: str) -> None:
    assert explain(text).matches[0].section == best


def test_no_match_is_explicit() -> None:
    result = explain("the weather is lovely today")
    assert result.matches == []
    assert "No known error signature matched" in result.message
    assert "hyperpod-debug triage --cluster <CLUSTER> --region <REGION>" in result.message


def test_empty_text_is_a_no_match() -> None:
    assert explain("").matches == []


def test_json_shape() -> None:
    data = json.loads(json.dumps(explain("Xid 79 and No space left on device").to_json()))
    assert set(data) == {"matches", "identifiers", "message", "truncated", "ignored_lines"}
    first = data["matches"][0]
    assert {"section", "score", "title", "why", "reference", "next_checks"} <= set(first)
    assert first["title"] == section(first["section"]).title
    assert first["reference"] == section(first["section"]).reference
    scores = [m["score"] for m in data["matches"]]
    assert scores == sorted(scores, reverse=True)


def test_top_limits_the_matches() -> None:
    text = "Xid 79; No space left on device; CrashLoopBackOff; soft lockup; TargetNotConnected"
    assert len(explain(text, top=2).matches) == 2
    assert len(explain(text, top=40).matches) > 2


def test_why_quotes_the_matched_text() -> None:
    match = explain("kernel: Out of memory: Killed process 4242 (python)").matches[0]
    assert match.section == "I.2"
    assert '"Out of memory: Killed process"' in match.why


def test_repeats_add_with_diminishing_returns() -> None:
    once = explain("No space left on device").matches[0].score
    twice = explain("No space left on device\n" * 2).matches[0].score
    many = explain("No space left on device\n" * 50).matches[0].score
    assert once < twice < many <= 2 * once


def test_child_lends_to_parent_and_ties_follow_section_order() -> None:
    hit = Hit("x", "G.1.a", 4.0, "why", "quote", 1, ())
    ranked = rank([hit, Hit("y", "B", 1.0, "why", "q", 1, ()), Hit("z", "A", 1.0, "w", "q", 1, ())])
    by_id = {s.section: s for s in ranked}
    assert by_id["G.1"].total == by_id["G"].total == pytest.approx(1.0)
    assert [s.section for s in ranked] == ["G.1.a", "A", "B", "G", "G.1"]


def test_ranking_is_deterministic() -> None:
    text = "Xid 79\nCrashLoopBackOff\nsoft lockup\nNo space left on device\nTargetNotConnected"
    assert explain(text) == explain(text)


def test_signature_table_is_well_formed() -> None:
    ids = [s.id for s in ALL_SIGNATURES]
    assert len(ids) == len(set(ids))
    for signature in ALL_SIGNATURES:
        assert signature.section in SECTIONS, signature.id
        assert signature.weight > 0, signature.id
        assert signature.why, signature.id
        assert signature.pattern.pattern == signature.regex  # compiles


def _fill_placeholders(command: str) -> str:
    return re.sub(r"<[A-Z0-9_]+>", "placeholder", command)


def test_every_next_check_is_read_only() -> None:
    commands = {c for s in ALL_SIGNATURES for c in s.checks}
    commands |= {c for m in explain("Xid 79 Xid 48 Xid 63").matches for c in m.next_checks}
    for command in sorted(commands):
        result = classify(_fill_placeholders(command))
        assert result.kind == "read_only", (command, result.reason)


def test_every_section_family_is_reachable() -> None:
    covered = {s.section for s in ALL_SIGNATURES}
    for top_level in ("A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O"):
        assert any(c == top_level or c.startswith(top_level + ".") for c in covered), top_level
