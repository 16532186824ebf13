"""§ B.5: the `aws-hyperpod` namespace on the orchestrating EKS cluster.

HyperPod's Helm chart (a required step when the EKS cluster is set up through the APIs)
installs the health-monitoring agent into `aws-hyperpod`, together with the service accounts
of the deep health checks and of job auto-restart; the namespace name cannot be changed.
Without it those resiliency features have nothing to run: faults go undetected and deep
health checks cannot run on new nodes. Training that already runs is not stopped, so a
missing (or terminating) namespace is a FAIL P1 — it will block, not blocks — never P0.

Reading it needs list access to namespaces. A refused read (403, a bad kubeconfig) raises
KubernetesUnavailable, and the runner reports the check as skipped with that reason: a
denied read never looks like a missing namespace.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.kube import HYPERPOD_NAMESPACE
from tools.triage.data.kube_model import Namespace

CHECK_ID = "hyperpod-namespace"
FINDINGS = Findings(CHECK_ID, "B.5")


def judge_hyperpod_namespace(namespaces: Sequence[Namespace]) -> list[Finding]:
    """FAIL P1 when the namespace is absent or terminating, else PASS."""
    found = next((n for n in namespaces if n.name == HYPERPOD_NAMESPACE), None)
    if found is None:
        return [
            FINDINGS.fail(
                Priority.P1,
                f"Namespace {HYPERPOD_NAMESPACE} does not exist on the EKS cluster: the "
                "HyperPod Helm chart is not installed (or was removed), so the health-"
                "monitoring agent, deep health checks and job auto-restart cannot run",
                resources=[HYPERPOD_NAMESPACE],
                exists=False,
            )
        ]
    # A namespace whose status tells no phase is taken as Active, as the API defaults it.
    phase = found.phase or "Active"
    if phase == "Terminating":
        return [
            FINDINGS.fail(
                Priority.P1,
                f"Namespace {HYPERPOD_NAMESPACE} is being deleted (phase Terminating): the "
                "HyperPod agents in it are going away",
                resources=[HYPERPOD_NAMESPACE],
                exists=True,
                phase=phase,
            )
        ]
    return [
        FINDINGS.passed(
            f"Namespace {HYPERPOD_NAMESPACE} exists (phase {phase})",
            resources=[HYPERPOD_NAMESPACE],
            exists=True,
            phase=phase,
        )
    ]


@check(FINDINGS, title="aws-hyperpod namespace", orchestrators=("eks",))
def hyperpod_namespace(data: ClusterData) -> Iterable[Finding]:
    """The aws-hyperpod namespace HyperPod's Helm chart installs its agents into."""
    return judge_hyperpod_namespace(data.hyperpod_namespaces())
