"""kubectl and crictl: reading the cluster versus changing Kubernetes objects or pods.

Changes to Kubernetes objects touch configuration (the IaC drift note applies); deleting
nodes, namespaces or volumes is ranked as data-destroying.
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.commands.args import positionals, subcommands, word_set
from tools.commands.result import CommandClass, Handler, Rank, mut, ro, unknown

_KUBECTL_VALUE = word_set(
    "-n --namespace --context --kubeconfig --cluster --user -s --server -o --output -l"
    " --selector --field-selector -c --container --since --tail --as --token --request-timeout"
    " -f --filename -L --sort-by"
)
_KUBECTL_READ = word_set(
    "get describe logs top explain version api-resources api-versions cluster-info events wait"
)
_KUBECTL_OBJECT_CHANGE = word_set(
    "label annotate cordon uncordon taint apply patch edit create scale set replace expose"
    " autoscale certificate"
)
_KUBECTL_WIPES = word_set("node nodes no namespace namespaces ns pvc pv persistentvolumeclaim")


def _kubectl(args: Sequence[str], depth: int) -> CommandClass:
    words = positionals(args, _KUBECTL_VALUE)
    if not words:
        return ro("kubectl help")
    verb, sub = words[0], (words[1] if len(words) > 1 else "")
    if verb in _KUBECTL_READ:
        return ro(f"kubectl {verb} is read-only")
    if verb == "auth" and sub in ("can-i", "whoami"):
        return ro(f"kubectl auth {sub} is read-only")
    if verb == "config":
        if sub in ("view", "get-contexts", "current-context", "get-clusters", "get-users"):
            return ro(f"kubectl config {sub} is read-only")
        return mut(f"kubectl config {sub} changes the local kubeconfig")
    if verb == "rollout":
        if sub in ("status", "history"):
            return ro(f"kubectl rollout {sub} is read-only")
        return mut(f"kubectl rollout {sub} restarts or changes workloads", 1, config=True)
    if verb == "drain":
        return mut("kubectl drain evicts every pod from the node", 1, config=True)
    if verb == "delete":
        kind = sub.split("/", 1)[0].lower()
        rank: Rank = 2 if kind in _KUBECTL_WIPES else 1
        what = f"kubectl delete {kind}".rstrip()
        return mut(f"{what} removes Kubernetes objects", rank, config=True)
    if verb in _KUBECTL_OBJECT_CHANGE:
        return mut(f"kubectl {verb} changes Kubernetes objects", config=True)
    if verb == "exec":
        return mut("kubectl exec runs an arbitrary command in a container (treated as mutating)")
    if verb in ("run", "debug", "cp", "attach"):
        return mut(f"kubectl {verb} creates pods or writes into containers")
    return unknown(f"kubectl {verb}: verb not recognised")


HANDLERS: dict[str, Handler] = {
    "kubectl": _kubectl,
    "crictl": subcommands(
        "crictl",
        "ps logs inspect inspecti inspectp images img pods stats statsp info version imagefsinfo",
        value_flags="-r --runtime-endpoint -i --image-endpoint",
    ),
}
