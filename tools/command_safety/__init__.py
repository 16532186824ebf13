"""Classify a shell command line as read-only, mutating or unknown.

The agent only ever runs read-only commands itself; anything else is rendered as a
suggested command for the customer to run. This package decides which is which, from the
text alone. It fails closed: a command it does not know is ``unknown``, and callers treat
``unknown`` like ``mutating``.

``touches_config`` marks commands that change cluster, VPC, security-group, subnet, EKS or
Kubernetes-object configuration: those need the IaC drift note. ``destructive_rank`` orders
the blast radius: 0 investigate (or a change that disrupts no node), 1 reboot-ish (restarts
a node, a service or a workload), 2 replace-ish or data-destroying.

Options are read by each tool's own grammar: an option a tool's grammar does not know
makes the answer ``unknown`` (it may take the next word as its value and so move the verb
or the command), and write options (``-o FILE``, ``-i``, ``-XDELETE``) are judged before
any rule that makes a use read-only.

Modules: `result` (the verdict and how verdicts combine), `args` (option grammars and
argument helpers), `shell` (tokens, comments, pipelines, redirections, and the wrappers that
run another program: sudo, env, numactl, timeout, watch ...), `classifier` (the dispatch),
and the tools by concern: `aws`, `kubernetes` (kubectl, crictl, helm, eksctl), `slurm`,
`node` (systemd, GPU tools, kernel settings, mounts, disks, packages), `network` (curl,
wget, ip, ethtool, ss), `text` (sed, awk and other readers with write options), `iac`
(terraform, tofu, pulumi, cdk) and `remote` (ssh, pdsh, clush).
"""

from tools.command_safety.classifier import classify
from tools.command_safety.result import CommandClass, Kind, Rank

__all__ = ["CommandClass", "Kind", "Rank", "classify"]
