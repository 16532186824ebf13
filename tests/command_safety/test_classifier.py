"""The command classifier: read-only vs mutating vs unknown, from the command text alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.command_safety import CommandClass, classify
from tools.command_safety.shell import unwrap

READ_ONLY = [
    # Evidence collection tools, asked only for help or a listing.
    "nvidia-bug-report.sh --help",
    "tar -tzf /tmp/nvidia-dcgm-logs.tgz",
    "tar --list -f /tmp/logs.tar",
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
    "lfs check servers",
    "lfs df -h /fsx",
    "lctl ping 10.1.2.3@tcp",
    "lctl list_nids",
    "lctl get_param osc.*.import",
    "modinfo lustre",
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
    # They change no GPU state, but they write files on the node.
    ("sudo nvidia-bug-report.sh", 0, False),
    ("sudo tar -czf /tmp/nvidia-dcgm-logs.tgz /var/log/nvidia-dcgm/", 0, False),
    ("tar xf /tmp/logs.tar", 0, False),
    ("aws sagemaker batch-reboot-cluster-nodes --cluster-name c --node-ids i-0123", 1, False),
    # A request changes the account's limits, not the cluster: no IaC question.
    (
        "aws service-quotas request-service-quota-increase --service-code vpc"
        " --quota-code L-DF5E4CA3 --desired-value 8000",
        0,
        False,
    ),
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
    ("lctl set_param osc.*.max_dirty_mb=512", 0, False),
    ("lctl dk /tmp/lustre-debug.txt", 0, False),
    ("lfs setstripe -c 4 /fsx/out", 0, False),
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


# --- lines an adversarial review found read as read-only, and their read-only neighbours ---


def _assert_mutating(command: str, rank: int, config: bool) -> None:
    result = classify(command)
    assert result.kind == "mutating", result
    assert result.destructive_rank == rank, result
    assert result.touches_config is config, result
    assert result.reason


# 1. mount: only a bare listing reads.
MOUNTS = [
    ("mount -a", 0, False),
    ("sudo mount -a", 0, False),
    ("mount -t nfs -a", 0, False),
    ("mount --bind /opt/a /opt/b", 0, False),
    ("mount /dev/nvme1n1 /mnt/data", 0, False),
    ("mount -o remount,ro /", 0, False),
    ("umount /fsx", 1, False),
    ("umount -a", 1, False),
]
MOUNTS_READ_ONLY = ["mount", "mount -l", "mount -l -t nfs", "findmnt", "findmnt -J /fsx"]


@pytest.mark.parametrize(("command", "rank", "config"), MOUNTS)
def test_mount_that_is_not_a_listing_changes_the_node(
    command: str, rank: int, config: bool
) -> None:
    _assert_mutating(command, rank, config)


# 2. Launchers run a program: that program is what is classified.
LAUNCHED = [
    ("numactl -N0 sudo reboot", 1, False),
    ("numactl --cpunodebind=0 --membind=0 sudo reboot", 1, False),
    ("numactl -N 0 -m 0 reboot", 1, False),
    ("taskset -c 0-3 sudo reboot", 1, False),
    ("taskset 0x1 reboot", 1, False),
    ("nice -n 10 reboot", 1, False),
    ("nice -10 reboot", 1, False),
    ("ionice -c3 reboot", 1, False),
    ("timeout 30 sudo reboot", 1, False),
    ("timeout -s KILL 5m reboot", 1, False),
    ("stdbuf -oL reboot", 1, False),
    ("chrt -f 99 reboot", 1, False),
    ("nohup reboot", 1, False),
    ("time reboot", 1, False),
    ("/usr/bin/time -v reboot", 1, False),
    ("xargs -n1 reboot", 1, False),
    ("watch -n1 'nvidia-smi; sudo reboot'", 1, False),
    ("sudo -Eu root reboot", 1, False),
    ("sudo nice -n 5 taskset -c 1 numactl -N0 reboot", 1, False),
    ("numactl -N0 kubectl delete node hyperpod-i-0123", 2, True),
    ("time -o /etc/passwd nvidia-smi", 0, False),
    ("sudo -e /etc/hosts", 0, False),
    ("sudo -h myhost reboot", 1, False),  # an older sudo reads -h HOST: reboot may run
]
LAUNCHED_UNKNOWN = [
    "taskset -p 0x1 1234",  # changes a running process
    "ionice -c3 -p 1234",
    "nice --frobnicate ls reboot",  # an unknown option might take "ls" as its value
    "numactl --frobnicate 0 reboot",
    "timeout soon reboot",  # not a duration: which word is the command?
    "sudo -X reboot",
]
LAUNCHED_READ_ONLY = [
    "numactl -H",
    "numactl --hardware",
    "numactl --cpunodebind=0 nvidia-smi -L",
    "taskset -c 0 nvidia-smi",
    "timeout 30 nvidia-smi",
    "chrt -m",
    "watch -n 5 nvidia-smi",
    "watch -d ls reboot",  # watch runs "ls reboot": a listing of a file named reboot
    "xargs",
    "env",
]


@pytest.mark.parametrize(("command", "rank", "config"), LAUNCHED)
def test_launchers_are_judged_by_the_program_they_run(
    command: str, rank: int, config: bool
) -> None:
    _assert_mutating(command, rank, config)


# 3. env -S: the split string is a command line.
ENV_SPLIT = [
    ("env -S 'sudo reboot'", 1, False),
    ("env --split-string='sudo reboot'", 1, False),
    ("env --split-string 'sudo reboot'", 1, False),
    ("env -S'sudo reboot'", 1, False),
    ("env -i -S 'sudo reboot'", 1, False),
    ("env -S 'sudo' reboot", 1, False),
    ("env -S '-i sudo reboot'", 1, False),
    ("env -S 'kubectl delete node x'", 2, True),
]
ENV_SPLIT_UNKNOWN = ["env -S 'nvidia-smi; reboot'", "env -S 'echo \\$HOME'"]


@pytest.mark.parametrize(("command", "rank", "config"), ENV_SPLIT)
def test_env_split_string_is_classified_as_a_command(command: str, rank: int, config: bool) -> None:
    _assert_mutating(command, rank, config)


# 4. HTTP clients: write methods, sent data and written files, before any host rule.
HTTP_WRITES = [
    "curl -XDELETE http://127.0.0.1:8001/api/v1/nodes/hyperpod-i-0123",
    "curl -XPUT http://localhost:8001/api/v1/namespaces/x",
    "curl -XPOST http://localhost/x",
    "curl -XPATCH http://localhost/x",
    "curl -sXDELETE http://localhost/x",
    "curl --request=DELETE http://localhost/x",
    "curl --request DELETE http://localhost/x",
    "curl -X DELETE http://localhost/x",
    "curl -X DELETE http://169.254.169.254/latest/meta-data/",
    "curl -s -X PUT http://169.254.169.254/latest/meta-data/x",
    "curl -o/etc/hosts http://169.254.169.254/latest/meta-data/local-ipv4",
    "curl -o /etc/hosts http://169.254.169.254/latest/meta-data/local-ipv4",
    "curl --output=/etc/hosts http://169.254.169.254/latest/meta-data/local-ipv4",
    "curl -sSLo /etc/hosts http://localhost/x",
    "curl -O http://169.254.169.254/latest/meta-data/local-ipv4",
    "curl --remote-name http://localhost/x",
    "curl -D /tmp/headers http://localhost/",
    "curl -d '{}' http://localhost:8001/api/v1/nodes",
    "curl -T file http://localhost/x",
    "wget -O /etc/hosts http://169.254.169.254/latest/meta-data/local-ipv4",
    "wget http://localhost:8080/x",  # saves a file named after the URL
    "wget --post-data=x -O- http://localhost/x",
    "wget --method=DELETE -O- http://localhost:8001/api/v1/nodes/x",
    "wget -o /etc/passwd -O- http://localhost/x",
]
HTTP_UNKNOWN = [
    "curl http://evil.example/?169.254.169.254",
    "curl http://169.254.169.254@evil.example/",
    "curl gopher://127.0.0.1:6379/_FLUSHALL",
    "curl -K opts.txt http://localhost/",
    "curl --frobnicate http://localhost/",
    "wget -e 'x=y' -O- http://localhost/",
]
HTTP_READ_ONLY = [
    "curl -s http://169.254.169.254/latest/meta-data/instance-id",
    "curl -s -H 'X-aws-ec2-metadata-token: $T' http://169.254.169.254/latest/meta-data/",
    "curl -sX PUT http://169.254.169.254/latest/api/token"
    " -H 'X-aws-ec2-metadata-token-ttl-seconds: 60'",
    "curl -s -o /dev/null -w '%{http_code}' http://localhost:8080/healthz",
    "curl -fsSL --max-time 5 http://localhost:9400/metrics",
    "curl -D - http://localhost/",
    "wget -qO- http://169.254.169.254/latest/meta-data/instance-id",
    "wget -q -O - http://localhost/metrics",
    "wget --spider http://localhost/x",
]


@pytest.mark.parametrize("command", HTTP_WRITES)
def test_http_writes_are_mutating_whatever_the_host(command: str) -> None:
    _assert_mutating(command, 0, False)


# 5. kubectl: global value flags take the next word, so the verb is the word after it.
_KUBECTL_VALUE_FLAGS = [
    "--as-group",
    "--cache-dir",
    "--as-uid",
    "--certificate-authority",
    "--client-certificate",
    "--client-key",
    "--cluster",
    "--user",
    "--password",
    "--username",
    "--profile",
    "--request-timeout",
    "--server",
    "-s",
    "--tls-server-name",
    "--token",
    "--kubeconfig",
    "--context",
    "-n",
    "--namespace",
    "-v",
]
KUBECTL_READ_ONLY = [
    "kubectl -n kube-system get pods",
    "kubectl --context c --kubeconfig /tmp/k get nodes",
    "kubectl -v=6 get nodes",
    "kubectl --insecure-skip-tls-verify get nodes",
    "kubectl config --kubeconfig k view",
]


@pytest.mark.parametrize("flag", _KUBECTL_VALUE_FLAGS)
def test_kubectl_global_value_flags_take_their_value(flag: str) -> None:
    _assert_mutating(f"kubectl {flag} get delete node hyperpod-i-0123", 2, True)


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("kubectl --frobnicate get delete node x", "unknown"),
        ("kubectl rollout --frobnicate status restart ds/x", "unknown"),
        ("kubectl --log-file get delete node x", "mutating"),
        ("kubectl --profile-output get delete node x", "mutating"),
        ("kubectl --log-file=/etc/passwd get nodes", "mutating"),
    ],
)
def test_kubectl_unknown_flags_before_the_verb_fail_closed(command: str, kind: str) -> None:
    assert classify(command).kind == kind


# 6. scontrol: its value flags take the next word; unknown flags fail closed.
SCONTROL = [
    "scontrol -M show update nodename=ip-10-1-2-3 state=down",
    "scontrol --clusters show update nodename=ip-10-1-2-3 state=down",
    "scontrol -u show update nodename=ip-10-1-2-3 state=down",
    "scontrol --uid show update nodename=ip-10-1-2-3 state=down",
    "scontrol -dM show update nodename=ip-10-1-2-3 state=down",
]
SCONTROL_READ_ONLY = [
    "scontrol show nodes",
    "scontrol -o show node ip-10-1-2-3",
    "scontrol -M c1 show partition",
    "scontrol show node ip-10-1-2-3 -d",
]


@pytest.mark.parametrize("command", SCONTROL)
def test_scontrol_value_flags_do_not_hide_the_subcommand(command: str) -> None:
    _assert_mutating(command, 0, False)


# 7. aws: a repeated option keeps its last value, so every value is classified; a session
# whose command is out of sight is unknown.
_SESSION = "aws ssm start-session --target t --document-name AWS-StartNonInteractiveCommand"
AWS_SESSIONS = [
    (f"{_SESSION} --parameters command=ls --parameters command='sudo reboot'", "mutating"),
    (f"{_SESSION} --parameters command='sudo reboot' --parameters command=ls", "mutating"),
    (f"{_SESSION} --parameters=command=ls --parameters='command=sudo reboot'", "mutating"),
    ("aws ssm start-session --target t --cli-input-json file://x.json", "unknown"),
    (
        "aws ssm start-session --target t --cli-input-json "
        '\'{"DocumentName":"AWS-StartNonInteractiveCommand",'
        '"Parameters":{"command":["sudo reboot"]}}\'',
        "unknown",
    ),
    ("aws ssm start-session --target t --cli-input-yaml file://x.yaml", "unknown"),
    (f"{_SESSION} --parameters file://params.json", "unknown"),
    (f"{_SESSION} --document-name AWS-StartPortForwardingSession", "unknown"),
    ("aws s3api get-object --bucket b --key k /etc/hosts", "mutating"),
    ("aws --frobnicate ec2 describe-instances", "unknown"),
]


@pytest.mark.parametrize(("command", "kind"), AWS_SESSIONS)
def test_aws_repeated_options_and_hidden_commands(command: str, kind: str) -> None:
    assert classify(command).kind == kind


# 8. Write options of tools that otherwise only read.
WRITE_OPTIONS = [
    ("yq -i '.a = 1' values.yaml", 0),
    ("yq --inplace '.a = 1' values.yaml", 0),
    ("yq -Pi '.a = 1' values.yaml", 0),
    ("sort -o /etc/passwd names.txt", 0),
    ("sort -o/etc/passwd names.txt", 0),
    ("sort -rno /etc/passwd names.txt", 0),
    ("sort --output=/etc/passwd names.txt", 0),
    ("sort --out=/etc/passwd names.txt", 0),  # getopt_long takes abbreviations
    ("uniq in.txt /etc/passwd", 0),
    ("uniq -f 1 in.txt out.txt", 0),
    ("sysctl -f /etc/sysctl.d/99-x.conf", 0),
    ("sysctl -p", 0),
    ("sysctl -qp", 0),
    ("sysctl --system", 0),
    ("sysctl -w vm.max_map_count=262144", 0),
    ("ss -K dst 10.0.0.1", 0),
    ("ss --kill", 0),
    ("ss -tnpK", 0),
    ("ss -D /etc/passwd", 0),
    ("nvidia-smi --gom=COMPUTE", 0),
    ("nvidia-smi -acp 0", 0),
    ("nvidia-smi --applications-clocks-permission=UNRESTRICTED", 0),
    ("nvidia-smi -pm 1", 0),
    ("nvidia-smi --persistence-mode=1", 0),
    ("nvidia-smi -pl 300", 0),
    ("nvidia-smi -lgc 1000,1500", 0),
    ("nvidia-smi -rgc", 0),
    ("nvidia-smi -ac 1215,1410", 0),
    ("nvidia-smi -rac", 0),
    ("nvidia-smi -c 3", 0),
    ("nvidia-smi --compute-mode=3", 0),
    ("nvidia-smi -mig 1", 0),
    ("nvidia-smi --auto-boost-default=0", 0),
    ("nvidia-smi -i 0 -pm 1", 0),
    ("nvidia-smi -e 0", 1),
    ("nvidia-smi --ecc-config=0", 1),
    ("nvidia-smi -r", 1),
    ("nvidia-smi --gpu-reset -i 0", 1),
    ("nvidia-smi nvlink -sc 0bz", 0),
    ("nvidia-smi dmon -f /tmp/dmon.txt", 0),
    ("sdiag --reset", 0),
    ("sdiag -r", 0),
]
WRITE_OPTIONS_UNKNOWN = [
    "ip -batch cmds.txt",
    "ip -b cmds.txt",
    "ip -force -batch cmds.txt",
    "nvidia-smi --frobnicate",  # an option not known may be a setter
    "sort --compress-program=./x names.txt",
]
WRITE_OPTIONS_READ_ONLY = [
    "nvidia-smi -q",
    "nvidia-smi -L",
    "nvidia-smi -i 0 -q -d ECC",
    "nvidia-smi --query-gpu=name,pci.bus_id --format=csv,noheader",
    "nvidia-smi dmon -c 1",  # -c is a count here, not the compute mode
    "nvidia-smi topo -m",
    "sysctl -a",
    "sysctl -n vm.max_map_count",
    "sort file",
    "sort -k2,2 -t: /etc/passwd",
    "sort -o - names.txt",
    "uniq -c in.txt",
    "yq '.a' values.yaml",
    "yq -o json '.a' values.yaml",
    "ss -tlnp",
    "ss -s",
    "sdiag",
]


@pytest.mark.parametrize(("command", "rank"), WRITE_OPTIONS)
def test_write_options_of_read_tools_are_mutating(command: str, rank: int) -> None:
    _assert_mutating(command, rank, False)


# 9. Tools that change clusters, infrastructure, disks or other nodes.
TOOLS = [
    ("helm install x ./chart", 0, True),
    ("helm upgrade --install x ./chart -n ns", 0, True),
    ("helm rollback x 1", 0, True),
    ("helm uninstall x", 1, True),
    ("helm delete x", 1, True),
    ("eksctl create nodegroup -f c.yaml", 0, True),
    ("eksctl delete cluster --name c", 2, True),
    ("eksctl delete nodegroup --cluster c --name n", 2, True),
    ("eksctl upgrade nodegroup --cluster c --name n", 2, True),
    ("eksctl upgrade cluster --name c --approve", 0, True),
    ("eksctl scale nodegroup --cluster c --name n --nodes 0", 1, True),
    ("eksctl drain nodegroup --cluster c --name n", 1, True),
    ("eksctl set labels --cluster c --nodegroup n --labels a=b", 0, True),
    ("eksctl update addon --name vpc-cni --cluster c", 0, True),
    ("eksctl enable repo --cluster c", 0, True),
    ("eksctl utils update-kube-proxy --cluster c --approve", 0, True),
    ("terraform apply -auto-approve", 0, True),
    ("terraform -chdir=infra destroy -auto-approve", 2, True),
    ("terraform apply -destroy", 2, True),
    ("terraform import aws_instance.x i-0123", 0, True),
    ("terraform state rm aws_instance.x", 0, True),
    ("tofu apply", 0, True),
    ("tofu destroy", 2, True),
    ("pulumi up --yes", 0, True),
    ("pulumi destroy --yes", 2, True),
    ("pulumi import aws:ec2/instance:Instance x i-0123", 0, True),
    ("cdk deploy --all", 0, True),
    ("cdk destroy --force", 2, True),
    ("lvremove -y /dev/vg0/lv0", 2, False),
    ("vgremove vg0", 2, False),
    ("pvremove /dev/nvme1n1", 2, False),
    ("wipefs -a /dev/nvme1n1", 2, False),
    ("blkdiscard /dev/nvme1n1", 2, False),
    ("nvme format /dev/nvme1n1", 2, False),
    ("nvme sanitize /dev/nvme1 -a 2", 2, False),
    ("init 0", 1, False),
    ("init 6", 1, False),
    ("telinit 6", 1, False),
    ("pdsh -w node[1-4] sudo reboot", 1, False),
    ("clush -w node[1-4] -b 'sudo reboot'", 1, False),
    ("ssh node1 sudo reboot", 1, False),
    ("ssh -t node1 'nvidia-smi; sudo reboot'", 1, False),
    ("ssh -i key.pem ubuntu@node1 kubectl delete node x", 2, True),
    ("srun -N4 sudo reboot", 1, False),
    ("sbatch --wrap='sudo reboot'", 1, False),
    ("cdk --app 'sudo reboot' synth", 1, False),
]
TOOLS_UNKNOWN = [
    "ssh node1",  # an interactive shell
    "ssh -o ProxyCommand='reboot' node1 nvidia-smi",
    "ssh -F ./cfg node1 nvidia-smi",
    "pdsh -w node[1-4]",
    "helm --frobnicate list",
    "helm template x ./chart --post-renderer ./patch.sh",
    "terraform console",
    "ssh -R 8001:localhost:8001 node1 nvidia-smi",
]
TOOLS_READ_ONLY = [
    "helm list -A",
    "helm -n kube-system list",
    "helm status x",
    "helm get values x",
    "helm show values ./chart",
    "helm template x ./chart",
    "eksctl get nodegroups --cluster c",
    "eksctl info",
    "eksctl utils describe-stacks --cluster c",
    "terraform plan",
    "terraform show",
    "terraform validate",
    "tofu plan",
    "pulumi preview",
    "cdk synth",
    "cdk diff",
    "nvme list",
    "nvme smart-log /dev/nvme0",
    "ssh node1 nvidia-smi -L",
    "ssh -o StrictHostKeyChecking=no ubuntu@node1 'dmesg -T | tail'",
    "pdsh -w node[1-4] nvidia-smi -L",
    "clush -w node[1-4] -b nvidia-smi",
]


@pytest.mark.parametrize(("command", "rank", "config"), TOOLS)
def test_tools_that_change_clusters_disks_or_other_nodes(
    command: str, rank: int, config: bool
) -> None:
    _assert_mutating(command, rank, config)


# Further holes of the same kinds, found while closing the ones above.
FURTHER = [
    ("sed 'w /etc/passwd' names.txt", 0, False),
    ("sed -n '1w /tmp/out' names.txt", 0, False),
    ("sed 's/x/y/w /etc/passwd' names.txt", 0, False),
    ("ip a a 10.0.0.1/24 dev eth0", None, None),  # ip reads "a a" as "addr add"
    ("ip route restore", 0, False),
    ("ip netns exec ns1 sudo reboot", 1, False),
    ("ip -all netns exec reboot ls", 1, False),  # no namespace name with -all
    ("dmesg -Tc", 2, False),  # -c in a cluster still clears the log
    ("journalctl --vac=1G", 2, False),  # getopt_long abbreviation
    ("date 010112002024", 0, False),
    ("hostname -F /etc/hostname", 0, False),
    ("docker -H ps rm -f abc", 0, False),  # -H takes "ps" as its value
    ("chronyc -m tracking makestep", 0, False),
    ("kubectl delete --grace-period 0 node x", 2, True),
    ("kubectl delete ns,pods x", 2, True),
    ("history -c", 0, False),
    ("kubectx prod", 0, False),
    ("lstopo /etc/topology.xml", 0, False),
    ("xxd in.bin /etc/passwd", 0, False),
    ("nvcc x.cu -o x", 0, False),
    ("munge -n -o /etc/x", 0, False),
]
FURTHER_UNKNOWN = [
    "sed 's/.*/reboot/e' names.txt",
    "sed '1e reboot' names.txt",
    "sed -f script.sed names.txt",
    "awk -f prog.awk names.txt",
    "gawk -i inplace '{print}' names.txt",
    "awk '@load \"fork\"; BEGIN { }'",
    "rpm -qa --eval '%(reboot)'",
    "rpm -qa --pipe sh",
    "dpkg --pre-invoke=reboot -l",
    "pip --python /tmp/x list",
    "pip list --log /etc/passwd",
    "dcgmi group -c mygroup -l",
    "rg --pre ./x pattern /var/log",
    "less '+!reboot' names.txt",
    "crictl --frobnicate ps rm abc",
    "systemctl --frobnicate status restart slurmd",
]
FURTHER_READ_ONLY = [
    "sed -n '/Xid/p' /var/log/syslog",
    "sed -e 's/a/b/' -e '/x/d' names.txt",
    "sed 's#a#b#g' names.txt",
    "sed -n '/start/,/end/{p}' names.txt",
    "awk -F: '{print $1}' /etc/passwd",
    "ip -br a",
    "ip -j -p addr show",
    "ip netns exec ns1 ip addr",
    "date -d '2 days ago' +%F",
    "hostname -I",
    "rpm -qa",
    "rpm -qi bash",
    "dpkg -l 'nvidia*'",
    "docker --context x ps",
    "chronyc -h 127.0.0.1 sources",
    "lstopo --of console",
    "history 20",
    "kubectx",
    "dcgmi group -l",
    "aws s3api get-object --bucket b --key k /dev/stdout",
]


@pytest.mark.parametrize(("command", "rank", "config"), FURTHER)
def test_further_write_forms_are_not_read_only(
    command: str, rank: int | None, config: bool | None
) -> None:
    result = classify(command)
    assert result.kind != "read_only", result
    if rank is not None:
        _assert_mutating(command, rank, bool(config))


@pytest.mark.parametrize(
    "command",
    LAUNCHED_UNKNOWN
    + ENV_SPLIT_UNKNOWN
    + HTTP_UNKNOWN
    + WRITE_OPTIONS_UNKNOWN
    + TOOLS_UNKNOWN
    + FURTHER_UNKNOWN
    + ["scontrol -X show update nodename=ip-10-1-2-3 state=down"],
)
def test_what_cannot_be_told_is_unknown(command: str) -> None:
    result = classify(command)
    assert result.kind == "unknown", result


@pytest.mark.parametrize(
    "command",
    MOUNTS_READ_ONLY
    + LAUNCHED_READ_ONLY
    + ["env -S 'nvidia-smi -L'"]
    + HTTP_READ_ONLY
    + KUBECTL_READ_ONLY
    + SCONTROL_READ_ONLY
    + WRITE_OPTIONS_READ_ONLY
    + TOOLS_READ_ONLY
    + FURTHER_READ_ONLY,
)
def test_read_only_neighbours_stay_read_only(command: str) -> None:
    result = classify(command)
    assert result.kind == "read_only", result
    assert result.destructive_rank == 0
    assert not result.touches_config


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("nvidia-smi # sudo reboot", "read_only"),
        ("nvidia-smi # a comment \\\nsudo reboot", "mutating"),  # a comment ends at its line
        ("nvidia-smi #\nsudo reboot", "mutating"),
        ("echo 'a # b'; sudo reboot", "mutating"),
        ('echo "$(echo "a # b")"; sudo reboot', "mutating"),
        ("echo ${x:-a # b}; sudo reboot", "mutating"),
        ("echo a#b; sudo reboot", "mutating"),
    ],
)
def test_comments_hide_only_what_the_shell_ignores(command: str, kind: str) -> None:
    assert classify(command).kind == kind


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["numactl", "-H"], (["numactl"], None)),
        (["env"], (["env"], None)),
        (["numactl", "-N0", "sudo", "reboot"], (["reboot"], None)),
        (["watch", "-n1", "sudo", "reboot"], (["reboot"], None)),
        (["env", "-S", "sudo reboot"], (["reboot"], None)),
        (["timeout", "soon", "reboot"], ([], "timeout: cannot tell which word is the command")),
    ],
)
def test_unwrap_keeps_its_word_level_view(
    words: list[str], expected: tuple[list[str], str | None]
) -> None:
    assert unwrap(words) == expected


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("echo $'\\'' ; sudo reboot #'", "mutating"),  # bash runs the reboot
        ("grep -c $'\\r' on_create.sh", "read_only"),
        ("$'\\x72eboot'", "mutating"),  # a command name spelt in escapes: reboot
        ('echo $"x" ; ls', "read_only"),
        ("echo $'unterminated", "unknown"),
    ],
)
def test_bash_only_quoting_is_read_as_bash_reads_it(line: str, kind: str) -> None:
    # shlex ends $'...' at an escaped quote where bash does not: a reboot could hide there.
    assert classify(line).kind == kind
