"""Finding commands in the model's Markdown: fences, inline code and plain prose."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.safety.extract import FoundCommand, find_commands
from agent.safety.markdown import Segmenter, segments
from agent.safety.prose import hidden_command
from agent.safety.rendered import read
from agent.safety.shell import judge
from tools.command_safety.classifier import known_tools

IID = "i-0123456789abcdef0"


def commands(text: str) -> list[str]:
    return [found.command for found in find_commands(text)]


def places(text: str) -> list[tuple[str, str]]:
    return [(found.command, found.where) for found in find_commands(text)]


# --- known tools --------------------------------------------------------------------------


def test_known_tools_is_the_classifiers_tables() -> None:
    tools = known_tools()
    assert {"aws", "kubectl", "scontrol", "systemctl", "reboot", "nvidia-smi", "rm"} <= tools
    assert {"sinfo", "scancel", "bash", "dmesg"} <= tools
    assert "sudo" not in tools  # a wrapper, stripped before the lookup


# --- fences -------------------------------------------------------------------------------


def test_fence_lines_are_commands_joined_on_backslash_with_prompts_and_comments_dropped() -> None:
    text = (
        "Check first:\n"
        "```bash\n"
        "# look at the cluster\n"
        "$ aws sagemaker describe-cluster \\\n"
        "    --cluster-name c\n"
        "\n"
        "kubectl get nodes\n"
        "```\n"
    )
    found = find_commands(text)
    assert [(f.command, f.where) for f in found] == [
        ("aws sagemaker describe-cluster --cluster-name c", "fence"),
        ("kubectl get nodes", "fence"),
    ]
    first = found[0]
    assert text[first.start : first.end] == (
        "aws sagemaker describe-cluster \\\n    --cluster-name c"
    )


def test_fence_without_language_and_tilde_fence() -> None:
    assert commands("```\nsudo reboot\n```") == ["sudo reboot"]
    assert commands("~~~\nnvidia-smi -q\n~~~\n") == ["nvidia-smi -q"]


def test_a_comment_that_holds_a_command_is_still_read() -> None:
    text = "```bash\n# then: sudo systemctl restart slurmd\n# reboot\n# reboot the node\n```\n"
    assert commands(text) == ["sudo systemctl restart slurmd", "reboot"]


def test_quoted_output_in_a_fence_without_language_is_not_a_command() -> None:
    text = (
        "```\n"
        "[FAIL] EFA SG sg-0123456789abcdef0 has no self-referencing rule → § A\n"
        "[PASS] cluster status InService\n"
        "NAME                           STATUS   ROLES\n"
        "```\n"
    )
    assert commands(text) == []


def test_prompted_session_only_prompted_lines_and_tool_lines_are_commands() -> None:
    text = (
        "```console\n"
        "$ nvidia-smi -q -d ROW_REMAPPER\n"
        "    Pending                      : Yes\n"
        "GPU 00000000:53:00.0\n"
        "$ sudo reboot\n"
        "```\n"
    )
    assert commands(text) == ["nvidia-smi -q -d ROW_REMAPPER", "sudo reboot"]


def test_data_fences_are_read_like_prose() -> None:
    text = "```yaml\nsteps:\n  - command: sudo reboot\n  - name: reboot the node\n```\n"
    assert places(text) == [("sudo reboot", "fence")]


def test_unknown_tool_in_a_shell_fence_is_a_command() -> None:
    assert commands("```bash\nfrobnicate --all-nodes\n```\n") == ["frobnicate --all-nodes"]


def test_heredoc_keeps_its_body() -> None:
    text = "```bash\ncat <<EOF | sudo tee /etc/x.conf\nkey=value\nEOF\nls\n```\n"
    assert commands(text) == ["cat <<EOF | sudo tee /etc/x.conf\nkey=value\nEOF", "ls"]


def test_unclosed_fence_runs_to_the_end() -> None:
    assert commands("Do this:\n```bash\nsudo reboot\nkubectl get nodes") == [
        "sudo reboot",
        "kubectl get nodes",
    ]


# --- inline code --------------------------------------------------------------------------


def test_inline_code_whose_first_word_is_a_tool() -> None:
    text = "Look with `kubectl get nodes`, then `sudo reboot` and `i-0abc1234` is the node."
    found = find_commands(text)
    assert [(f.command, f.where) for f in found] == [
        ("kubectl get nodes", "inline"),
        ("sudo reboot", "inline"),
    ]
    assert text[found[1].start : found[1].end] == "`sudo reboot`"


def test_inline_single_word_is_a_command_only_after_a_run_verb() -> None:
    assert commands("The node logged a `reboot` event.") == []
    assert commands("Then run `reboot`.") == ["reboot"]
    assert commands("执行 `reboot`。") == ["reboot"]


def test_inline_code_hiding_a_command_behind_an_unknown_first_word() -> None:
    assert commands("Try `foo; sudo reboot` if stuck.") == ["foo; sudo reboot"]


def test_double_backtick_spans() -> None:
    assert commands("Use ``kubectl get pods -o jsonpath='{.items[*]}'`` here.") == [
        "kubectl get pods -o jsonpath='{.items[*]}'"
    ]


# --- prose --------------------------------------------------------------------------------


def test_prose_command_ends_at_the_sentence_not_at_a_period_inside_an_id() -> None:
    text = (
        "Run aws sagemaker batch-reboot-cluster-nodes --cluster-name c "
        f"--node-ids {IID} now. Then wait."
    )
    found = find_commands(text)
    expected = f"aws sagemaker batch-reboot-cluster-nodes --cluster-name c --node-ids {IID}"
    assert found == [FoundCommand(expected, 4, 4 + len(expected), "prose")]
    assert commands("Fix it with dos2unix on_create.sh. Then rerun.") == ["dos2unix on_create.sh"]
    assert commands("Run sudo systemctl restart slurmd.") == ["sudo systemctl restart slurmd"]


def test_chinese_prose() -> None:
    text = "然后执行 kubectl cordon hyperpod-i-0123，再观察节点。"
    found = find_commands(text)
    assert found == [FoundCommand("kubectl cordon hyperpod-i-0123", 5, 35, "prose")]
    assert commands("执行kubectl drain hyperpod-i-0123 --ignore-daemonsets。") == [
        "kubectl drain hyperpod-i-0123 --ignore-daemonsets"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Please reboot the node, then check it again.",
        "If a reboot does not help, replace the node.",
        "The iptables rules on the node block port 443.",
        "The hostname ip-10-1-2-3 maps to i-0abc1234.",
        "Reboot i-0123456789abcdef0 first.",
        "Kill the process and watch the logs.",
        "Use the AWS console or the aws cli.",
        "Docs: https://docs.aws.amazon.com/cli/latest/reference/sagemaker/index.html",
        "A kubectl is installed; scontrol is on the controller.",
        "Check the file and the date in the history.",
    ],
)
def test_ordinary_words_that_are_tool_names_are_prose(text: str) -> None:
    assert commands(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Run reboot.", ["reboot"]),
        ("Then sudo reboot to recover.", ["sudo reboot"]),
        ("Use reboot -f only as a last resort.", ["reboot -f"]),
        ("Run sudo shutdown -r now.", ["sudo shutdown -r now"]),
        ("Cancel it with scancel 1234 and resubmit.", ["scancel 1234"]),
        (
            "Try scontrol update nodename=ip-10-1-2-3 state=resume.",
            ["scontrol update nodename=ip-10-1-2-3 state=resume"],
        ),
        ("Set export FI_EFA_USE_HUGE_PAGE=0 in the job.", ["export FI_EFA_USE_HUGE_PAGE=0"]),
        ("Clean up: rm -rf /opt/sagemaker/tmp, then retry.", ["rm -rf /opt/sagemaker/tmp"]),
        ("Run 'sudo reboot' on the node.", ["sudo reboot"]),
        (
            "Check with kubectl get nodes and then sudo reboot.",
            [
                "kubectl get nodes",
                "sudo reboot",
            ],
        ),
        ("- **kubectl delete pod p -n default** (restart)", ["kubectl delete pod p -n default"]),
    ],
)
def test_prose_commands(text: str, expected: list[str]) -> None:
    assert commands(text) == expected


def test_prose_spans_point_at_the_command() -> None:
    text = "First, run kubectl describe node hyperpod-i-0123: it shows the taints."
    (found,) = find_commands(text)
    assert text[found.start : found.end] == found.command == "kubectl describe node hyperpod-i-0123"


# --- hostile text -------------------------------------------------------------------------


def test_hidden_commands_are_part_of_what_is_found() -> None:
    assert commands("Run kubectl get pods; sudo reboot") == ["kubectl get pods; sudo reboot"]
    assert commands("kubectl get pods $(sudo reboot)") == ["kubectl get pods $(sudo reboot)"]
    assert commands("```bash\nnvidia-smi -q && rm -rf /\n```") == ["nvidia-smi -q && rm -rf /"]


def test_a_mutating_command_run_on_after_a_read_only_one_is_found_on_its_own() -> None:
    assert commands("kubectl get nodes sudo reboot") == [
        "kubectl get nodes sudo reboot",
        "sudo reboot",
    ]
    assert hidden_command("grep -i reboot /var/log/syslog") is None
    assert hidden_command('journalctl -u kubelet | grep "sudo reboot"') is None
    assert commands("Try `kubectl get pods kubectl delete pod x` now.") == ["kubectl delete pod x"]


# --- Markdown structure -------------------------------------------------------------------


def test_code_spans_match_runs_of_equal_length() -> None:
    text = "a `b` c ``d ` e`` f ` g"
    spans = [(text[s.start : s.end], s.content) for s in read(text).spans]
    assert spans == [("`b`", "b"), ("``d ` e``", "d ` e")]


def test_segments_are_paragraphs_and_whole_fences() -> None:
    text = "para one\nstill one\n\n```bash\nls\n\nls\n```\nafter\n"
    got = [(s.kind, s.text) for s in segments(text)]
    assert got == [
        ("text", "para one\nstill one\n\n"),
        ("fence", "```bash\nls\n\nls\n```\n"),
        ("text", "after\n"),
    ]


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet="ab `~\n", max_size=80),
    cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=10),
)
def test_segmenting_does_not_depend_on_how_the_text_is_cut(text: str, cuts: list[int]) -> None:
    segmenter = Segmenter()
    pieces = [text[a:b] for a, b in itertools.pairwise([0, *sorted(cuts), len(text)])]
    got = [s for piece in pieces for s in segmenter.feed(piece)] + segmenter.flush()
    assert got == segments(text)
    assert "".join(s.text for s in got) == text


# --- speed --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Run kubectl get nodes and check nvidia-smi -q output. " * 4000,
        "sudo " * 40_000,
        "` `` ``` " * 25_000,
        "reboot " * 30_000,
        "(" * 200_000,
        "执行 kubectl cordon hyperpod-i-0123，" * 6000,
        "```\n" + "x --y\n" * 33_000,
    ],
    ids=["prose", "sudo-chain", "backticks", "tool-words", "parens", "cjk", "open-fence"],
)
def test_200_kb_is_read_quickly(text: str) -> None:
    started = time.perf_counter()
    find_commands(text[:200_000])
    # Linear but not free (~30 µs a character, about 6 s for 200 KB here): a model answer is
    # at most ~35 KB. The bound catches catastrophic backtracking, not a slow machine.
    assert time.perf_counter() - started < 60


# --- commands of tools the classifier does not know (review A3) ---------------------------

UNKNOWN_TOOLS = [
    "helm uninstall training",
    "eksctl delete nodegroup --cluster c --name ng",
    "terraform destroy -auto-approve",
    "lvremove -f vg/lv",
    "nvme format /dev/nvme1n1",
    "blkdiscard /dev/x",
    "init 6",
    "pdsh -w n[1-4] reboot",
]


@pytest.mark.parametrize("command", UNKNOWN_TOOLS)
@pytest.mark.parametrize(
    "template",
    [
        "Clean up with `{}` afterwards.",
        "```\n{}\n```\n",
        "```console\n$ kubectl get nodes\n{}\n```\n",
        "<code>{}</code>",
    ],
    ids=["inline", "unlabelled-fence", "session-line", "html-code"],
)
def test_a_command_line_of_an_unknown_tool_is_a_command(command: str, template: str) -> None:
    assert command in commands(template.format(command))


@pytest.mark.parametrize(
    "text",
    [
        "Set `instance_type` to `ml.p5.48xlarge` and check `FI_EFA_USE_HUGE_PAGE=0`.",
        "The label `sagemaker.amazonaws.com/node-health-status` reads `Schedulable`.",
        "Read `/var/log/syslog` on `i-0123456789abcdef0` (`ip-10-1-2-3`, `hyperpod-i-0abc1234`).",
        "The log shows `no such host`, then `syntax error near unexpected token`.",
        "Look for `while true` loops and `task ... blocked for more than 120 seconds`.",
        "It printed `bad interpreter: /bin/bash^M` and `download failed: s3://b/k`.",
        "This is `recording 2 of 2` of the `InService` cluster.",
        "```\n[FAIL] EFA SG has no self rule → § A\nNVRM: Xid (PCI:0000:a8:00): 79\n```\n",
        '```\n{"name": "x", "status": "InService"}\nkey: value\n- item: 1\n```\n',
        "```\nNAME      READY   STATUS    AGE\nmy-pod-7d9f8   1/1   Running   0   3d\n```",
        "```\ntotal 12\ndrwxr-xr-x 2 root root 4096 Nov 20 09:12 dir\n```\n",
        "```\ntmpfs 32G 0 32G 0% /dev/shm\noverlay 100G 20G 80G 20% /\n```\n",
        "```\nNov 20 09:12:44 ip-10-1-2-3 kubelet[123]: error\n2026-11-20T09:12:44Z warning x\n```",
        "```\nip-10-1-2-3 Ready <none> 3d v1.29\n```\n",
        "```\nagent/   CLI, the agent: loop, providers, safety\n"
        "         layer (safety/), workflow state, transcripts\n```\n",
    ],
)
def test_words_that_only_name_things_or_quote_output_are_no_command(text: str) -> None:
    assert commands(text) == []


# --- Markdown around a command (review A6) --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Do this: <pre>sudo reboot</pre>", "sudo reboot"),
        ("Do this: <code>sudo reboot</code> now.", "sudo reboot"),
        ("Then <kbd>sudo reboot</kbd>.", "sudo reboot"),
        ("<pre><code>sudo systemctl restart slurmd</code></pre>", "sudo systemctl restart slurmd"),
        ("Then <code>echo 1 &gt; /sys/bus/pci/rescan</code>.", "echo 1 > /sys/bus/pci/rescan"),
        ("Or _sudo reboot_ if needed.", "sudo reboot"),
        ("Or *sudo reboot* if needed.", "sudo reboot"),
        ("Or ~~sudo reboot~~ if needed.", "sudo reboot"),
        ("See [sudo reboot](http://x) here.", "sudo reboot"),
        ("Run **reboot**.", "reboot"),
        ("Run **sudo** reboot.", "sudo reboot"),
        ("Finish with `# reboot`.", "reboot"),
        ("Step 1:sudo reboot", "sudo reboot"),
        ("X=1 reboot", "X=1 reboot"),
        ("Then NCCL_DEBUG=INFO FOO=1 scancel 1234.", "NCCL_DEBUG=INFO FOO=1 scancel 1234"),
        ("Then scontrol reconfigure.", "scontrol reconfigure"),
        ("Then echo 1 > /sys/bus/pci/rescan to rescan.", "echo 1 > /sys/bus/pci/rescan"),
        (
            "Write it: echo 0 >/proc/sys/kernel/numa_balancing.",
            "echo 0 >/proc/sys/kernel/numa_balancing",
        ),
    ],
)
def test_a_command_inside_markup_is_found(text: str, expected: str) -> None:
    assert commands(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Use the scontrol command to see the node.",
        "The scontrol output shows it.",
        "Set FI_EFA_USE_HUGE_PAGE=0 in __init__.py and keep ~/.ssh as is.",
        "See [the docs](https://docs.aws.amazon.com/sagemaker/) and <b>reboot</b> nothing.",
        "Use <code>kubectl get nodes</code> to look.",
        "A **kubectl** is installed.",
        "The ARN arn:aws:sagemaker:us-west-2:123:cluster/abc is the cluster.",
    ],
)
def test_markup_without_a_state_changing_command_stays_prose(text: str) -> None:
    assert [c for c in commands(text) if judge(c).kind != "read_only"] == []


def test_a_command_in_markup_spans_its_closing_markup() -> None:
    text = "Run **reboot** now, or [sudo reboot](http://x) later."
    found = find_commands(text)
    assert [text[f.start : f.end] for f in found] == ["reboot**", "sudo reboot](http://x)"]


# --- lines, tables, quotes, comments (review D2, D4, D5) ----------------------------------


def test_a_prose_line_continued_with_a_backslash_is_one_command() -> None:
    text = (
        "Run aws sagemaker \\\nbatch-delete-cluster-nodes --cluster-name c "
        f"--node-ids {IID}\nThen wait."
    )
    (found,) = find_commands(text)
    assert found.command == (
        f"aws sagemaker \\\nbatch-delete-cluster-nodes --cluster-name c --node-ids {IID}"
    )
    assert judge(found.command).kind == "mutating"


def test_a_table_cell_ends_a_command() -> None:
    assert commands("| 1 | sudo reboot | then wait |\n|---|---|---|\n") == ["sudo reboot"]
    assert commands("> | 2 | kubectl cordon hyperpod-i-0123 |") == [
        "kubectl cordon hyperpod-i-0123"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "> ```bash\n> sudo reboot\n> ```\n",
        "> > ```bash\n> > sudo reboot\n> > ```\n",
        "1. Reboot:\n   ```bash\n   sudo reboot\n   ```\n",
        "- ```bash\n  sudo reboot\n  ```\n",
        "    ```bash\n    sudo reboot\n    ```\n",
        "```bash\rsudo reboot\r```\r",
        "```bash\r\nsudo reboot\r\n```\r\n",
    ],
    ids=["quote", "quote-2", "list", "list-marker", "indented", "cr", "crlf"],
)
def test_a_fence_in_a_quote_or_list_reads_its_commands_without_the_prefix(text: str) -> None:
    assert places(text) == [("sudo reboot", "fence")]


def test_a_quote_that_ends_ends_its_fence() -> None:
    text = "> ```bash\n> kubectl get nodes\n\nsudo reboot now\n"
    assert places(text) == [("kubectl get nodes", "fence"), ("sudo reboot", "prose")]


def test_lone_carriage_returns_are_line_breaks() -> None:
    got = [(s.kind, s.text) for s in segments("a\rb\r\r```\rls\r```\r")]
    assert got == [("text", "a\nb\n\n"), ("fence", "```\nls\n```\n")]


@pytest.mark.parametrize("cut", range(1, 12))
def test_a_carriage_return_cut_from_its_line_feed_is_still_one_break(cut: int) -> None:
    text = "a\r\n\r\nb\rc\r\n"
    segmenter = Segmenter()
    got = segmenter.feed(text[:cut]) + segmenter.feed(text[cut:]) + segmenter.flush()
    assert got == segments(text)
    assert "".join(s.text for s in got) == "a\r\n\r\nb\nc\r\n"


def test_a_quoted_string_over_several_lines_is_one_command() -> None:
    assert commands("```bash\necho '\nreboot\n'\nls\n```\n") == ["echo '\nreboot\n'", "ls"]
    assert commands('```bash\nkubectl annotate pod p note="a\nb"\n```') == [
        'kubectl annotate pod p note="a\nb"'
    ]
    # A quote that never closes is no shell quote: each line stays a command of its own.
    assert commands("```bash\necho it's\nsudo reboot\n```\n") == ["echo it's", "sudo reboot"]


@pytest.mark.parametrize("text", ["```bash\nls # && reboot\n```", "Run `ls # && reboot`."])
def test_a_comment_is_read_as_bash_and_as_zsh_reads_it(text: str) -> None:
    (command,) = commands(text)
    # bash only lists; an interactive zsh (the macOS default) treats # as a word and reboots.
    assert judge(command).kind == "mutating"
    assert judge("ls #x && reboot").kind == "mutating"
    assert judge("echo a#b && reboot").kind == "mutating"  # a # inside a word is no comment
    assert judge("ls -la # list the files").kind == "read_only"  # harmless either way


def test_a_markdown_fence_is_read_as_markdown() -> None:
    text = "````markdown\nExample:\n```\nssh ip-10-1-2-3 sudo reboot\n```\n````\n"
    assert places(text) == [("ssh ip-10-1-2-3 sudo reboot", "fence")]


@pytest.mark.parametrize(
    "text",
    [
        "<code>" * 40_000,
        "[a](b) _x_ **y** ~~z~~ <b>c</b> | " * 7000,
        "| sudo | " * 25_000,
        "X=1 " * 50_000 + "reboot",
        "```bash\n" + "echo 'a\n" * 33_000,
        "```\n" + "> ```\n" * 33_000,
        "Run aws \\\n" * 20_000,
        "```\n" + "helm uninstall training\n" * 8000,
    ],
    ids=[
        "tags",
        "markup",
        "table",
        "assignments",
        "quotes",
        "quote-fences",
        "continued",
        "unknown",
    ],
)
def test_200_kb_of_markup_is_read_quickly(text: str) -> None:
    started = time.perf_counter()
    find_commands(text[:200_000])
    # Linear but not free (~30 µs a character, about 6 s for 200 KB here): a model answer is
    # at most ~35 KB. The bound catches catastrophic backtracking, not a slow machine.
    assert time.perf_counter() - started < 60
