"""kubectl, crictl, helm and eksctl: reading the cluster versus changing it.

Changes to Kubernetes objects touch configuration (the IaC drift note applies); deleting
nodes, namespaces, volumes or CRDs is ranked as data-destroying. Global options before the
verb are read by the tool's own grammar (a value flag takes the next word, so ``kubectl
--as-group get delete node x`` is a delete); an option not known there is ``unknown``, since
it might take the next word as its value and so move the verb.
"""

from __future__ import annotations

from collections.abc import Sequence

from tools.command_safety.args import (
    HARMLESS_TARGETS,
    Grammar,
    find_option,
    grammar,
    parse,
    subcommands,
    word_set,
)
from tools.command_safety.result import CommandClass, Handler, Rank, combine, mut, ro, unknown

# --- kubectl ------------------------------------------------------------------------------

# pflag: no abbreviations; bool flags may be given =true/false.
_KUBECTL_GLOBAL = grammar(
    values="--as --as-group --as-uid --cache-dir --certificate-authority --client-certificate"
    " --client-key --cluster --context --kubeconfig -n --namespace --password --profile"
    " --profile-output --request-timeout -s --server --tls-server-name --token --user"
    " --username -v --v --vmodule --log-file --log-dir --log-file-max-size"
    " --log-flush-frequency --stderrthreshold --log-backtrace-at",
    flags="--disable-compression --insecure-skip-tls-verify --match-server-version"
    " --warnings-as-errors --logtostderr --alsologtostderr --one-output --skip-headers"
    " --skip-log-headers --add-dir-header -h --help",
    abbreviate=False,
)
# Options that may stand between a verb and its subcommand or resource kind.
_KUBECTL_LOCAL: Grammar = _KUBECTL_GLOBAL.extend(
    values="-o --output -l --selector --field-selector -f --filename -c --container --since"
    " --tail -L --sort-by --revision --timeout --grace-period --template -k --kustomize"
    " --output-directory --namespaces --to-revision",
    flags="-A --all-namespaces --all --force --now --ignore-not-found -R --recursive -w --watch"
    " --wait --minify --flatten --no-headers --show-labels -i --interactive -q --quiet"
    " --show-managed-fields --include-uninitialized",
    optional="--cascade --dry-run",
)
_KUBECTL_LOG_FILES = word_set("--log-file --profile-output")
_KUBECTL_READ = word_set(
    "get describe logs top explain version api-resources api-versions cluster-info events wait"
)
_KUBECTL_OBJECT_CHANGE = word_set(
    "label annotate cordon uncordon taint apply patch edit create scale set replace expose"
    " autoscale certificate"
)
_KUBECTL_WIPES = word_set(
    "node nodes no namespace namespaces ns pvc pv persistentvolumeclaim persistentvolumeclaims"
    " persistentvolume persistentvolumes crd crds customresourcedefinition"
    " customresourcedefinitions"
)
_KUBECTL_CONFIG_READ = word_set("view get-contexts current-context get-clusters get-users")


def _kubectl_delete(after: Sequence[str]) -> CommandClass:
    parsed = parse(after, _KUBECTL_LOCAL, stop=True)
    kinds = parsed.rest[0].split("/", 1)[0].lower() if parsed.rest else ""
    names = [k.split(".", 1)[0] for k in kinds.split(",")]
    # An option not known may have hidden the kind: rank as the worst kind.
    wipes = parsed.error is not None or any(k in _KUBECTL_WIPES for k in names)
    rank: Rank = 2 if wipes else 1
    what = f"kubectl delete {kinds}".rstrip()
    return mut(f"{what} removes Kubernetes objects", rank, config=True)


def _kubectl_sub(verb: str, after: Sequence[str]) -> CommandClass:
    """Verdicts of verbs told by their subcommand (auth, config, rollout)."""
    parsed = parse(after, _KUBECTL_LOCAL, stop=True)
    if parsed.error is not None:
        return unknown(f"kubectl {verb}: option {parsed.error} not recognised")
    sub = parsed.rest[0] if parsed.rest else ""
    if verb == "auth":
        if sub in ("can-i", "whoami"):
            return ro(f"kubectl auth {sub} is read-only")
        return mut(f"kubectl auth {sub} changes RBAC objects", config=True)
    if verb == "config":
        if sub in _KUBECTL_CONFIG_READ:
            return ro(f"kubectl config {sub} is read-only")
        return mut(f"kubectl config {sub} changes the local kubeconfig")
    if sub in ("status", "history"):
        return ro(f"kubectl rollout {sub} is read-only")
    return mut(f"kubectl rollout {sub} restarts or changes workloads", 1, config=True)


def _kubectl_verb(verb: str, after: Sequence[str]) -> CommandClass:
    if verb in _KUBECTL_READ:
        if verb == "cluster-info" and find_option(after, ("--output-directory",)):
            return mut("kubectl cluster-info dump --output-directory writes files")
        return ro(f"kubectl {verb} is read-only")
    if verb in ("auth", "config", "rollout"):
        return _kubectl_sub(verb, after)
    if verb == "drain":
        return mut("kubectl drain evicts every pod from the node", 1, config=True)
    if verb == "delete":
        return _kubectl_delete(after)
    if verb in _KUBECTL_OBJECT_CHANGE:
        return mut(f"kubectl {verb} changes Kubernetes objects", config=True)
    if verb == "exec":
        return mut("kubectl exec runs an arbitrary command in a container (treated as mutating)")
    if verb in ("run", "debug", "cp", "attach"):
        return mut(f"kubectl {verb} creates pods or writes into containers")
    return unknown(f"kubectl {verb}: verb not recognised")


def _kubectl_exec(after: Sequence[str], depth: int) -> CommandClass | None:
    """``kubectl exec POD -- COMMAND`` is judged by the command it runs in the container, as
    ``ssh HOST COMMAND`` is by its command: reading GPU state there changes nothing. Without
    ``--`` (an old form that kubectl may read differently) there is no verdict here, and
    the exec is a change."""
    from tools.command_safety.classifier import classify_argv

    if "--" not in after:
        return None
    command = list(after[after.index("--") + 1 :])
    if not command:
        return None
    inner = classify_argv(command, depth + 1)
    reason = f"kubectl exec runs in a container: {inner.reason}"
    return CommandClass(inner.kind, inner.touches_config, inner.destructive_rank, reason)


def _kubectl(args: Sequence[str], depth: int) -> CommandClass:
    before = parse(args, _KUBECTL_GLOBAL, stop=True)
    if before.error is not None:
        return unknown(f"kubectl option {before.error} before the verb not recognised")
    parts: list[CommandClass] = []
    logged = find_option(args, _KUBECTL_LOG_FILES, abbreviate=False)
    if logged is not None and logged[1] not in HARMLESS_TARGETS:
        parts.append(mut(f"kubectl {logged[0]} writes into {logged[1] or 'a file'}"))
    if not before.rest:
        parts.append(ro("kubectl help"))
    else:
        verb, after = before.rest[0], before.rest[1:]
        exec_verdict = _kubectl_exec(after, depth) if verb == "exec" else None
        parts.append(exec_verdict or _kubectl_verb(verb, after))
    return combine(parts)


# --- helm ---------------------------------------------------------------------------------

_HELM_GLOBAL = grammar(
    values="--kube-context --kubeconfig -n --namespace --registry-config --repository-cache"
    " --repository-config --burst-limit --qps --kube-apiserver --kube-as-user --kube-as-group"
    " --kube-ca-file --kube-tls-server-name --kube-token --content-cache",
    flags="--debug --kube-insecure-skip-tls-verify -h --help",
    abbreviate=False,
)
_HELM_LOCAL = _HELM_GLOBAL.extend(values="-o --output")
_HELM_READ = word_set(
    "list ls status history hist version env search show inspect get lint verify help completion"
)
# verb -> rank: releases installed, upgraded, rolled back, tested or removed.
_HELM_RELEASES: dict[str, Rank] = {
    **dict.fromkeys(("install", "upgrade", "rollback", "test"), 0),
    **dict.fromkeys(("uninstall", "un", "delete", "del"), 1),
}
_HELM_LOCAL_TREES = word_set("repo plugin dependency dep registry")
_HELM_LOCAL_WRITES = word_set("pull fetch package create push")


def _helm(args: Sequence[str], depth: int) -> CommandClass:
    before = parse(args, _HELM_GLOBAL, stop=True)
    if before.error is not None:
        return unknown(f"helm option {before.error} before the verb not recognised")
    if not before.rest:
        return ro("helm help")
    verb, after = before.rest[0], before.rest[1:]
    if verb in _HELM_RELEASES:
        what = "removes a release" if _HELM_RELEASES[verb] else "changes a release"
        return mut(f"helm {verb} {what} (Kubernetes objects)", _HELM_RELEASES[verb], config=True)
    if verb == "template":
        if find_option(after, ("--post-renderer",)):
            return unknown("helm template --post-renderer runs a program")
        if find_option(after, ("--output-dir",)):
            return mut("helm template --output-dir writes files")
        return ro("helm template only renders")
    if verb in _HELM_READ:
        return ro(f"helm {verb} is read-only")
    if verb in _HELM_LOCAL_TREES:
        parsed = parse(after, _HELM_LOCAL, stop=True)
        if parsed.error is not None:
            return unknown(f"helm {verb}: option {parsed.error} not recognised")
        sub = parsed.rest[0] if parsed.rest else ""
        if sub in ("list", "ls"):
            return ro(f"helm {verb} {sub} is read-only")
        return mut(f"helm {verb} {sub} changes local repositories, plugins or charts")
    if verb in _HELM_LOCAL_WRITES:
        return mut(f"helm {verb} writes charts or pushes them")
    return unknown(f"helm {verb}: verb not recognised")


# --- eksctl -------------------------------------------------------------------------------

_EKSCTL_GLOBAL = grammar(values="-v --verbose -C --color", flags="-h --help", abbreviate=False)
_EKSCTL_READ = word_set("get info version completion help")
_EKSCTL_CHANGES = word_set(
    "create set unset update enable disable register deregister associate anywhere"
)
_EKSCTL_NODES = word_set("cluster clusters nodegroup nodegroups ng")


def _eksctl(args: Sequence[str], depth: int) -> CommandClass:
    before = parse(args, _EKSCTL_GLOBAL, stop=True)
    if before.error is not None:
        return unknown(f"eksctl option {before.error} before the verb not recognised")
    if not before.rest:
        return ro("eksctl help")
    verb = before.rest[0]
    what = before.rest[1] if len(before.rest) > 1 else ""
    if verb in _EKSCTL_READ:
        return ro(f"eksctl {verb} is read-only")
    if verb == "utils":
        if what.startswith("describe-") or what in ("nodegroup-health", "schema"):
            return ro(f"eksctl utils {what} is read-only")
        if what == "write-kubeconfig":
            return mut("eksctl utils write-kubeconfig changes the local kubeconfig")
        return mut(f"eksctl utils {what} changes the cluster", config=True)
    if verb == "delete":
        rank: Rank = 2 if what in _EKSCTL_NODES else 1
        return mut(f"eksctl delete {what} removes cluster resources", rank, config=True)
    if verb in ("drain", "scale"):
        return mut(f"eksctl {verb} {what} evicts pods or removes nodes", 1, config=True)
    if verb == "upgrade":
        rank = 2 if what in ("nodegroup", "nodegroups", "ng") else 0
        return mut(f"eksctl upgrade {what} changes the cluster", rank, config=True)
    if verb in _EKSCTL_CHANGES:
        return mut(f"eksctl {verb} {what} changes the cluster", config=True)
    return unknown(f"eksctl {verb}: verb not recognised")


HANDLERS: dict[str, Handler] = {
    "kubectl": _kubectl,
    "crictl": subcommands(
        "crictl",
        "ps logs inspect inspecti inspectp images img pods stats statsp info version imagefsinfo",
        value_flags="-r --runtime-endpoint -i --image-endpoint -c --config -t --timeout",
        flags="-D --debug --enable-tracing -v --version",
    ),
    "helm": _helm,
    "eksctl": _eksctl,
}
