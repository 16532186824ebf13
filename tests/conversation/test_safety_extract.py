"""Finding commands in the model's Markdown: fences, inline code and plain prose."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.safety.extract import FoundCommand, find_commands, hidden_command
from agent.safety.markdown import Segmenter, code_spans, segments
from tools.commands.classifier import known_tools

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
    spans = [
        (text[s.start : s.end], text[s.content_start : s.content_end]) for s in code_spans(text)
    ]
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
    assert time.perf_counter() - started < 10
