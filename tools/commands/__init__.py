"""Classify a shell command line as read-only, mutating or unknown.

The agent only ever runs read-only commands itself; anything else is rendered as a
suggested command for the customer to run. This package decides which is which, from the
text alone. It fails closed: a command it does not know is ``unknown``, and callers treat
``unknown`` like ``mutating``.

``touches_config`` marks commands that change cluster, VPC, security-group, subnet, EKS or
Kubernetes-object configuration: those need the IaC drift note. ``destructive_rank`` orders
the blast radius: 0 investigate (or a change that disrupts no node), 1 reboot-ish (restarts
a node, a service or a workload), 2 replace-ish or data-destroying.

Modules: `result` (the verdict and how verdicts combine), `args` (argument helpers),
`shell` (tokens, pipelines, redirections, wrappers such as sudo and env), `classifier`
(the dispatch), and the tools by concern: `aws`, `kubernetes`, `slurm`, `node`.
"""

from tools.commands.classifier import classify
from tools.commands.result import CommandClass, Kind, Rank

__all__ = ["CommandClass", "Kind", "Rank", "classify"]
