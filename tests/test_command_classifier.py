"""The command classifier: read-only vs mutating vs unknown, from the command text alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.commands import CommandClass, classify

READ_ONLY = [
    "aws sagemaker describe-cluster --cluster-name my-cluster --region us-west-2",
    "aws sagemaker list-cluster-nodes --cluster-name c --region us-east-1 --max-results 100",
    "aws --region us-east-1 sagemaker list-cluster-events --cluster-name c",
    "aws ec2 describe-security-groups --group-ids sg-0123456789abcdef0",
    "aws ec2 describe-vpc-attribute --vpc-id vpc-0abc1234 --attribute enableDnsSupport",
    "aws logs filter-log-events --log-group-name /aws/sagemaker/Clusters/c/abc --filter-pattern X",
    "aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventName,AttributeValue=X",
    "aws sts get-caller-identity",
    "aws s3 ls s3://sagemaker-lifecycle-bucket/",
    "aws s3 cp s3://my-bucket/on_create.sh -",
    "aws ssm start-session --target sagemaker-cluster:abc123_workers-i-0123456789abcdef0",
    "aws ssm start-session --target sagemaker-cluster:abc_w-i-0123456789abcdef0 "
    "--document-name AWS-StartNonInteractiveCommand --parameters command='nvidia-smi -q'",
    "aws ssm start-session --target t --document-name AWS-StartNonInteractiveCommand "
    '--parameters \'{"command":["dmesg -T | grep -i xid"]}\'',
    "kubectl get nodes -o wide",
    "kubectl -n kube-system get ds aws-node",
    "kubectl describe node hyperpod-i-0123456789abcdef0",
    "kubectl logs -n kube-system -l k8s-app=aws-node --tail 200",
    "kubectl top nodes",
    "kubectl auth can-i list nodes",
    "kubectl version",
    "kubectl explain pod.spec",
    "kubectl rollout status ds/aws-node -n kube-system",
    "sinfo -R",
    "squeue -t CG",
    "sacct -j 1234 --format=JobID,State,ExitCode",
    "scontrol show node ip-10-1-2-3",
    "scontrol show config",
    "systemctl status slurmd",
    "systemctl is-active munge",
    "systemctl show -p ActiveState chronyd",
    "nvidia-smi",
    "nvidia-smi -q -d ROW_REMAPPER",
    "nvidia-smi --query-remapped-rows=gpu_bus_id,remapped_rows.pending --format=csv",
    "nvidia-smi --query-gpu=index,temperature.gpu,clocks_throttle_reasons.active --format=csv",
    "dcgmi diag -r 3",
    "dcgmi health -c -j",
    "dcgmi discovery -l",
    "neuron-ls",
    "neuron-top",
    "neuron-monitor",
    "dmesg -T | grep -iE 'xid|nvrm'",
    "sudo dmesg -T",
    "journalctl -u slurmd --since '1 hour ago' --no-pager",
    "journalctl -b -1 -k",
    "df -h /",
    "df -i",
    "free -g",
    "cat /var/log/provision/provisioning.log",
    "grep -c processor /proc/cpuinfo",
    "ls -la /opt/ml/config/",
    "lsmod | grep efa",
    "fi_info -p efa",
    "lscpu",
    "nproc",
    "chronyc tracking",
    "chronyc sources -v",
    "timedatectl",
    "timedatectl status",
    "ip addr show",
    "ip -s link",
    "uptime",
    "crictl ps -a",
    "crictl logs 1234abcd",
    "sudo crictl inspect 1234abcd",
    "ulimit -a",
    "mount",
    "findmnt /dev/shm",
    "du -sh /opt/sagemaker/* 2>/dev/null | sort -h | tail -20",
    "tail -n 100 /var/log/syslog",
    "head -5 /etc/os-release",
    "awk '{print $1}' /proc/loadavg",
    "sed -n '1,20p' /etc/slurm/slurm.conf",
    "echo $FI_PROVIDER",
    "curl -s http://169.254.169.254/latest/meta-data/instance-type",
    'curl -s -X PUT "http://169.254.169.254/latest/api/token" '
    '-H "X-aws-ec2-metadata-token-ttl-seconds: 21600"',
    "FOO=1 nvidia-smi -L",
    "env NCCL_DEBUG=INFO printenv NCCL_DEBUG",
    "timeout 30 nvidia-smi",
    "sudo -u root nvidia-smi -q",
    "unbuffer aws ssm start-session --target x",
    "cat /proc/sys/vm/max_map_count 2>&1",
    "sysctl vm.overcommit_memory",
    "bash -c 'nvidia-smi -L; df -h'",
    "ethtool -S eth0",
    "date -u",
    "nvidia-smi nvlink -s",
    "pip list",
    "nvidia-smi # reboot later",
    "hyperpod-debug triage --cluster c --region us-west-2 --node i-0123456789abcdef0",
    "hyperpod-debug explain -",
    "aws sagemaker describe-cluster --cluster-name <CLUSTER> --region <REGION>",
    "aws ssm start-session --target sagemaker-cluster:<CLUSTER_ID>_<GROUP>-<INSTANCE_ID>",
]

MUTATING = [
    ("aws sagemaker batch-reboot-cluster-nodes --cluster-name c --node-ids i-0123", 1, False),
    ("aws sagemaker batch-replace-cluster-nodes --cluster-name c --node-ids i-0123", 2, False),
    ("aws sagemaker update-cluster --cluster-name c --node-recovery Automatic", 0, True),
    ("aws sagemaker update-cluster-software --cluster-name c", 2, True),
    ("aws ec2 authorize-security-group-egress --group-id sg-0abc --ip-permissions x", 0, True),
    ("aws ec2 revoke-security-group-ingress --group-id sg-0abc --protocol -1", 0, True),
    ("aws ec2 modify-vpc-attribute --vpc-id vpc-0abc --enable-dns-support", 0, True),
    ("aws ec2 create-vpc-endpoint --vpc-id vpc-0abc --service-name x", 0, True),
    ("aws ec2 associate-route-table --route-table-id rtb-1 --subnet-id subnet-1", 0, True),
    ("aws ec2 replace-route --route-table-id rtb-1 --destination-cidr-block 0.0.0.0/0", 0, True),
    ("aws eks update-cluster-config --name e --access-config authenticationMode=API", 0, True),
    ("aws iam attach-role-policy --role-name r --policy-arn arn", 0, True),
    ("aws s3api put-bucket-policy --bucket b --policy file://p.json", 0, True),
    ("aws ec2 terminate-instances --instance-ids i-0123", 2, False),
    ("aws ec2 reboot-instances --instance-ids i-0123", 1, False),
    ("aws ec2 stop-instances --instance-ids i-0123", 2, False),
    ("aws ec2 start-instances --instance-ids i-0123", 0, False),
    ("aws ec2 detach-network-interface --attachment-id eni-attach-1", 0, True),
    ("aws ssm send-command --instance-ids i-0123 --document-name AWS-RunShellScript", 0, False),
    ("aws s3 cp on_create.sh s3://bucket/", 0, False),
    ("aws s3 rm s3://bucket/key", 2, False),
    (
        "kubectl label node n "
        "sagemaker.amazonaws.com/node-health-status=UnschedulablePendingReboot",
        0,
        True,
    ),
    ("kubectl annotate node n a=b", 0, True),
    ("kubectl cordon hyperpod-i-0123456789abcdef0", 0, True),
    ("kubectl uncordon n", 0, True),
    ("kubectl drain n --ignore-daemonsets --delete-emptydir-data", 1, True),
    ("kubectl taint nodes n key=value:NoSchedule", 0, True),
    ("kubectl delete pod p -n default", 1, True),
    ("kubectl delete node hyperpod-i-0123", 2, True),
    ("kubectl apply -f ds.yaml", 0, True),
    ("kubectl patch ds aws-node -n kube-system -p '{}'", 0, True),
    ("kubectl edit cm aws-auth -n kube-system", 0, True),
    ("kubectl create namespace training", 0, True),
    ("kubectl scale deploy coredns --replicas=3 -n kube-system", 0, True),
    ("kubectl rollout restart ds/aws-node -n kube-system", 1, True),
    ("kubectl set env daemonset aws-node -n kube-system WARM_IP_TARGET=2", 0, True),
    ("kubectl exec -it p -- nvidia-smi", 0, False),
    ("scontrol update nodename=ip-10-1-2-3 state=resume", 0, False),
    ("scontrol reboot ip-10-1-2-3", 1, False),
    ("scancel 1234", 1, False),
    ("systemctl restart slurmd", 1, False),
    ("systemctl stop containerd", 1, False),
    ("systemctl start chronyd", 0, False),
    ("systemctl enable munge", 0, False),
    ("sudo systemctl disable nvidia-persistenced", 0, False),
    ("nvidia-smi -r -i 0", 1, False),
    ("nvidia-smi --gpu-reset -i 3", 1, False),
    ("nvidia-smi -pm 1", 0, False),
    ("nvidia-smi -e 0", 1, False),
    ("nvidia-smi -c EXCLUSIVE_PROCESS", 0, False),
    ("sed -i 's/\\r$//' on_create.sh", 0, False),
    ("sed -i.bak -e 's/a/b/' f", 0, False),
    ("dos2unix on_create.sh", 0, False),
    ("rm -rf /opt/sagemaker/checkpoints", 2, False),
    ("sudo reboot", 1, False),
    ("sudo modprobe -r efa", 1, False),
    ("sudo sysctl -w vm.max_map_count=262144", 0, False),
    ("sysctl vm.overcommit_memory=1", 0, False),
    ("export FI_EFA_USE_HUGE_PAGE=0", 0, False),
    ("dmesg -C", 2, False),
    ("journalctl --vacuum-size=1G", 2, False),
    ("nvidia-smi -q > /tmp/gpu.txt", 0, False),
    ("echo 1 | sudo tee /proc/sys/vm/drop_caches", 0, False),
    ("nvidia-smi && sudo reboot", 1, False),
    ("nvidia-smi; kubectl delete pod p", 1, True),
    ("nvidia-smi\nsudo reboot", 1, False),
    ('echo "$(reboot)"', 1, False),
    ("echo `shutdown -r now`", 1, False),
    ("bash -c 'df -h && rm -rf /tmp/x'", 2, False),
    (
        "aws ssm start-session --target t --document-name AWS-StartNonInteractiveCommand "
        "--parameters command='sudo reboot'",
        1,
        False,
    ),
    ("kubectl get pods -o name | xargs kubectl delete", 1, True),
    ("crictl rm abc", 0, False),
    ("timedatectl set-ntp true", 0, False),
    ("chronyc makestep", 0, False),
    ("ip link set eth0 down", 0, False),
    ("mount -o remount,size=64G /dev/shm", 0, False),
    ("ulimit -n 65536", 0, False),
    ("curl -X POST https://example.com/api", 0, False),
    ("pip install torch", 0, False),
    ("nvidia-smi -q -f out.txt", 0, False),
    (
        "aws sagemaker batch-reboot-cluster-nodes --cluster-name <CLUSTER> --node-ids <IID>",
        1,
        False,
    ),
    ("nvidia-smi -q > <FILE>", 0, False),
]

UNKNOWN = [
    "",
    "   ",
    "my-custom-script --fix",
    "python train.py",
    "./on_create.sh",
    "bash on_create.sh",
    "sudo -i",
    "kubectl port-forward svc/x 8080:80",
    "aws sagemaker frobnicate-cluster --cluster-name c",
    "aws ssm start-session --target t --document-name AWS-StartPortForwardingSession",
    "curl https://example.com/",
    "echo 'unbalanced",
    "awk 'BEGIN{system(\"reboot\")}'",
    "dcgmi group -c mygroup",
    "nvidia-smi mig -cgi 9",
    "scontrol",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only(command: str) -> None:
    result = classify(command)
    assert result.kind == "read_only", result
    assert result.destructive_rank == 0
    assert not result.touches_config
    assert result.reason


@pytest.mark.parametrize(("command", "rank", "config"), MUTATING)
def test_mutating(command: str, rank: int, config: bool) -> None:
    result = classify(command)
    assert result.kind == "mutating", result
    assert result.destructive_rank == rank, result
    assert result.touches_config is config, result
    assert result.reason


@pytest.mark.parametrize("command", UNKNOWN)
def test_unknown(command: str) -> None:
    result = classify(command)
    assert result.kind == "unknown", result


def test_start_session_reason_says_why_it_is_read_only() -> None:
    result = classify("aws ssm start-session --target sagemaker-cluster:abc_g-i-0123456789abcdef0")
    assert result.kind == "read_only"
    assert "session" in result.reason.lower()


def test_pipeline_reason_names_the_mutating_stage() -> None:
    result = classify("df -h | tee /root/df.txt")
    assert result.kind == "mutating"
    assert "/root/df.txt" in result.reason


def test_unknown_beats_read_only_and_mutating_beats_unknown() -> None:
    assert classify("nvidia-smi | ./mystery").kind == "unknown"
    assert classify("./mystery && reboot").kind == "mutating"


def test_result_is_frozen() -> None:
    result = classify("nvidia-smi")
    assert isinstance(result, CommandClass)
    with pytest.raises(AttributeError):
        result.kind = "mutating"  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_classify_never_raises(text: str) -> None:
    result = classify(text)
    assert result.kind in ("read_only", "mutating", "unknown")
    assert result.destructive_rank in (0, 1, 2)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "nvidia-smi",
                "reboot",
                "|",
                "&&",
                ";",
                "$(",
                ")",
                "`",
                "'",
                '"',
                "sudo",
                "-i",
                ">",
                "kubectl",
                "delete",
                "aws",
                "ssm",
                "start-session",
                "--parameters",
                "\n",
                "\\",
            ]
        ),
        max_size=30,
    )
)
def test_classify_never_raises_on_shell_soup(parts: list[str]) -> None:
    result = classify(" ".join(parts))
    assert result.kind in ("read_only", "mutating", "unknown")
    if parts[:1] == ["reboot"]:
        assert result.kind != "read_only"


@pytest.mark.parametrize(
    ("command", "rank"),
    [
        ('scontrol update nodename=ip-10-1-2-3 state=fail reason="Action:Reboot"', 1),
        ('scontrol update nodename=ip-10-1-2-3 state=fail reason="Action:Replace"', 2),
        ("scontrol update nodename=ip-10-1-2-3 state=resume", 0),
    ],
)
def test_hyperpod_node_actions_through_slurm_are_ranked(command: str, rank: int) -> None:
    verdict = classify(command)
    assert verdict.kind == "mutating"
    assert verdict.destructive_rank == rank
