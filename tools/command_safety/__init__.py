"""Classify a shell command line as read-only, mutating or unknown.

The agent only ever runs read-only commands itself; anything else is rendered as a
suggested command for the customer to run. This package decides which is which, from the
text alone. It fails closed: a command it does not know is ``unknown``, and callers treat
``unknown`` like ``mutating``.

``touches_config`` marks commands that change cluster, VPC, security-group, subnet, EKS or
Kubernetes-object configuration; the safety layer gives those the IaC drift note unless they
only change a node's or a workload's state (cordon, drain, node labels: agent/safety/kinds.py).
``destructive_rank`` orders the blast radius: 0 investigate (or a change that disrupts no
node), 1 reboot-ish (restarts a node, a service or a workload), 2 replace-ish or
data-destroying.

Options are read by each tool's own grammar: an option a tool's grammar does not know
makes the answer ``unknown`` (it may take the next word as its value and so move the verb
or the command), and write options (``-o FILE``, ``-i``, ``-XDELETE``) are judged before
any rule that makes a use read-only.

The command word is read as the shell reads it, in one place (`words.command_name`: quote
and backslash removal, the last component of a path), so ``'kubectl'``, ``k\\ubectl`` and
``/usr/local/bin/aws`` are kubectl, kubectl and aws here and in every finder of commands in
text; `words.prompt_length` tells a shell prompt pasted before a command. A tool it does not
know is ``unknown`` (default deny): interpreters running code and pipes into a shell are
never read-only.

Modules: `result` (the verdict and how verdicts combine), `args` (option grammars and
argument helpers), `words` (the command word, PowerShell cmdlet names, shell prompts),
`shell` (tokens, comments, pipelines, redirections, and the wrappers that run another
program: sudo, env, numactl, timeout, watch ...), `parsed` (one parse of a line: its stages
with their resolved tool, verb and arguments, the files it writes, its substitutions;
shared with the safety layer's rules), `classifier` (the dispatch), and the tools by
concern: `aws`, `kubernetes` (kubectl, crictl, helm, eksctl), `slurm`, `node` (systemd, GPU
tools, kernel settings, mounts, disks, packages), `network` (curl, wget, ip, ethtool, ss),
`text` (sed, awk and other readers with write options), `iac` (terraform, tofu, pulumi,
cdk), `remote` (ssh, pdsh, clush) and `interpreters` (python, perl, ruby, node, PowerShell
and its cmdlets).
"""

from tools.command_safety.classifier import classify
from tools.command_safety.result import CommandClass, Kind, Rank

__all__ = ["CommandClass", "Kind", "Rank", "classify"]
