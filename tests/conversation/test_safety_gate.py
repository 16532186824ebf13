"""The gate: every mutating command in the model's text leaves as a suggestion block."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.safety.extract import find_commands
from agent.safety.gate import GuardedText, StreamGate, guard_text, purpose_before
from agent.safety.model import (
    FLAG_REPLACE_BEFORE_REBOOT,
    FLAG_SLURM_CONTROLLER,
    FLAG_UNCLASSIFIED,
    Suggestion,
)
from agent.safety.shell import judge
from agent.safety.suggest import Language, SuggestionContext, render_suggestion

IID = "i-0123456789abcdef0"
SG = "sg-0123456789abcdef0"
NOTE = " (see the suggested command below)"
NOTE_ZH = "（见下方建议命令）"
HEADING = "**Suggested command (run yourself)**"
CONTEXT = SuggestionContext(triage_done=True)
REBOOT_API = f"aws sagemaker batch-reboot-cluster-nodes --cluster-name c --node-ids {IID}"
REPLACE_API = f"aws sagemaker batch-replace-cluster-nodes --cluster-name c --node-ids {IID}"
SG_EGRESS = (
    f"aws ec2 authorize-security-group-egress --group-id {SG} "
    f"--ip-permissions IpProtocol=-1,UserIdGroupPairs=[{{GroupId={SG}}}]"
)


def guard(text: str, context: SuggestionContext = CONTEXT, **kwargs: list[str]) -> GuardedText:
    return guard_text(text, context, already_suggested=kwargs.get("already", []))


def outside_blocks(guarded: GuardedText, language: Language = "en") -> str:
    """The output with every suggestion block cut out."""
    text = guarded.text
    for suggestion in guarded.suggestions:
        text = text.replace(render_suggestion(suggestion, language).rstrip("\n"), "")
    return text


def bare_mutations(guarded: GuardedText, language: Language = "en") -> list[str]:
    """Mutating commands outside the blocks that are not marked by the note: right after
    the command, or, for one found only in the paragraph as rendered (its span is the
    paragraph, `agent.safety.inline._second_look`), at the paragraph's end."""
    note = NOTE if language == "en" else NOTE_ZH
    rest = outside_blocks(guarded, language)
    return [
        found.command
        for found in find_commands(rest)
        if judge(found.command).kind != "read_only"
        and not rest.startswith(note, found.end)
        and not rest[found.start : found.end].endswith(note.rstrip())
    ]


def streamed(
    text: str, context: SuggestionContext = CONTEXT, size: int = 1
) -> tuple[str, list[Suggestion]]:
    gate = StreamGate(context)
    out: list[str] = []
    for i in range(0, len(text), size):
        out.extend(gate.feed(text[i : i + size]))
    out.extend(gate.flush())
    return "".join(out), gate.suggestions


# --- prose and inline ---------------------------------------------------------------------


def test_mutating_command_in_plain_prose_becomes_a_suggestion() -> None:
    text = f"The GPU fell off the bus (Xid 79).\nRun {REBOOT_API} now.\n"
    guarded = guard(text)
    (suggestion,) = guarded.suggestions
    assert suggestion.command == REBOOT_API
    assert (suggestion.kind, suggestion.source) == ("reboot", "text")
    assert suggestion.purpose == "The GPU fell off the bus (Xid 79)."
    # The sentence stays readable, the command is marked, and its block follows the text.
    assert f"Run {REBOOT_API}{NOTE} now.\n" in guarded.text
    assert guarded.text.startswith("The GPU fell off the bus (Xid 79).\nRun ")
    assert guarded.text.endswith(render_suggestion(suggestion, "en"))
    assert f"{REBOOT_API} now" not in guarded.text
    assert bare_mutations(guarded) == []


def test_inline_mutating_command_is_marked_after_its_backticks() -> None:
    guarded = guard("If it is still stuck, `sudo systemctl restart slurmd` on the node.")
    assert guarded.text.startswith(
        f"If it is still stuck, `sudo systemctl restart slurmd`{NOTE} on the node.\n\n{HEADING}"
    )
    (suggestion,) = guarded.suggestions
    assert suggestion.purpose == "If it is still stuck"
    assert suggestion.kind == "node"


def test_chinese_prose() -> None:
    context = SuggestionContext(triage_done=True, language="zh")
    text = (
        "节点 hyperpod-i-0123 的 GPU 出现 Xid 79 错误。\n"
        "然后执行 kubectl cordon hyperpod-i-0123，再观察。\n"
    )
    guarded = guard(text, context)
    (suggestion,) = guarded.suggestions
    assert suggestion.command == "kubectl cordon hyperpod-i-0123"
    assert suggestion.kind == "config"
    assert suggestion.iac_warning is None  # a node's state: no IaC note (issue 24)
    assert suggestion.purpose == "节点 hyperpod-i-0123 的 GPU 出现 Xid 79 错误。"
    assert f"然后执行 kubectl cordon hyperpod-i-0123{NOTE_ZH}，再观察。" in guarded.text
    assert "**建议命令（请您自行执行）**" in guarded.text
    assert bare_mutations(guarded, "zh") == []


# --- fences -------------------------------------------------------------------------------


def test_fence_is_split_around_the_mutating_command() -> None:
    text = (
        "Open the security group to itself so EFA traffic flows:\n"
        "```bash\n"
        f"aws ec2 describe-security-groups --group-ids {SG}\n"
        "# allow all egress to the group itself\n"
        f"{SG_EGRESS}\n"
        "kubectl get nodes\n"
        "```\n"
        "Then re-run triage.\n"
    )
    guarded = guard(text)
    (suggestion,) = guarded.suggestions
    assert suggestion.command == SG_EGRESS
    assert suggestion.purpose == "allow all egress to the group itself"
    assert suggestion.iac_warning is not None
    block = render_suggestion(suggestion, "en").rstrip("\n") + "\n"
    assert guarded.text == (
        "Open the security group to itself so EFA traffic flows:\n"
        "\n"
        "```bash\n"
        f"aws ec2 describe-security-groups --group-ids {SG}\n"
        "```\n"
        "\n"
        f"{block}"
        "\n"
        "```bash\n"
        "kubectl get nodes\n"
        "```\n"
        "\n"
        "Then re-run triage.\n"
    )


def test_a_fence_of_one_mutating_command_is_replaced_and_takes_the_paragraph_as_purpose() -> None:
    text = f"To recover the node, reboot it first:\n\n```bash\n{REPLACE_API}\n```\n"
    guarded = guard(text)
    (suggestion,) = guarded.suggestions
    assert suggestion.purpose == "To recover the node, reboot it first"
    assert FLAG_REPLACE_BEFORE_REBOOT in suggestion.flags
    assert "```bash\n" + REPLACE_API + "\n```" in guarded.text
    assert guarded.text.count("```bash") == 1  # only the block's own fence is left
    assert bare_mutations(guarded) == []


def test_unknown_command_is_flagged_unclassified() -> None:
    guarded = guard("```bash\nfrobnicate --all-nodes\n```\n")
    (suggestion,) = guarded.suggestions
    assert FLAG_UNCLASSIFIED in suggestion.flags
    assert suggestion.mutating


def test_unclosed_fence_is_guarded_and_closed() -> None:
    guarded = guard("Do this:\n```bash\nkubectl get nodes\nsudo reboot")
    assert [s.command for s in guarded.suggestions] == ["sudo reboot"]
    assert "```bash\nkubectl get nodes\n```\n" in guarded.text
    assert bare_mutations(guarded) == []


def test_unclosed_read_only_fence_is_left_as_is() -> None:
    text = "Look:\n```bash\nkubectl get nodes"
    assert guard(text).text == text


# --- what stays -----------------------------------------------------------------------------


def test_read_only_commands_are_left_untouched() -> None:
    text = (
        "First look at the cluster with aws sagemaker describe-cluster --cluster-name c, "
        "then `kubectl get nodes`.\n"
        "\n"
        "```bash\n"
        "aws sagemaker describe-cluster --cluster-name c --region us-west-2\n"
        "kubectl get nodes\n"
        "nvidia-smi -q\n"
        "```\n"
        "Please reboot the node only if the GPU is missing."
    )
    guarded = guard(text)
    assert guarded == GuardedText(text, [])


def test_already_suggested_commands_are_left_alone_whitespace_aside() -> None:
    text = (
        "I proposed it above:\n```bash\naws sagemaker batch-reboot-cluster-nodes \\\n"
        f"  --cluster-name c --node-ids {IID}\n```\n"
    )
    guarded = guard(text, already=[f"  {REBOOT_API}  "])
    assert guarded == GuardedText(text, [])


def test_the_same_command_twice_is_one_suggestion() -> None:
    guarded = guard("Run sudo reboot now.\n\nIf that fails, run `sudo reboot` again.\n")
    assert [s.command for s in guarded.suggestions] == ["sudo reboot"]
    assert guarded.text.count(NOTE) == 2
    assert guarded.text.count(HEADING) == 1


# --- flags through the gate ---------------------------------------------------------------


def test_replace_flags_depend_on_what_was_rebooted_and_on_the_controller() -> None:
    text = f"```bash\n{REPLACE_API}\n```\n"
    assert FLAG_REPLACE_BEFORE_REBOOT in guard(text).suggestions[0].flags
    rebooted = SuggestionContext(triage_done=True, rebooted=frozenset({IID}))
    assert FLAG_REPLACE_BEFORE_REBOOT not in guard(text, rebooted).suggestions[0].flags
    controller = SuggestionContext(triage_done=True, slurm_controllers=frozenset({IID}))
    assert FLAG_SLURM_CONTROLLER in guard(text, controller).suggestions[0].flags


# --- hostile text -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("```bash\nnvidia-smi -q; sudo reboot\n```\n", "nvidia-smi -q; sudo reboot"),
        ("Run `kubectl get pods $(sudo reboot)` to list pods.", "kubectl get pods $(sudo reboot)"),
        (
            "Check dmesg -T | grep -i xid; rm -rf /opt/sagemaker now.",
            "dmesg -T | grep -i xid; rm -rf /opt/sagemaker",
        ),
        ('```\necho "$(shutdown -r now)"\n```', 'echo "$(shutdown -r now)"'),
        ("kubectl get nodes sudo reboot", "sudo reboot"),
        ('```json\n{"cmd": "sudo reboot"}\n```', "sudo reboot"),
    ],
)
def test_hidden_commands_are_caught(text: str, command: str) -> None:
    guarded = guard(text)
    assert [s.command for s in guarded.suggestions] == [command]
    assert bare_mutations(guarded) == []


# --- streaming ----------------------------------------------------------------------------

MIXED = (
    "Triage found node i-0123456789abcdef0 unhealthy: Xid 79, the GPU fell off the bus.\n"
    f"Run {REBOOT_API} now. If it comes back, check `kubectl get nodes`.\n"
    "\n"
    "To let EFA traffic flow, open the group to itself:\n"
    "```bash\n"
    f"aws ec2 describe-security-groups --group-ids {SG}\n"
    f"{SG_EGRESS}\n"
    "```\n"
    "```\n"
    "[FAIL] EFA SG has no self-referencing rule\n"
    "```\n"
    "Finally `sudo systemctl restart slurmd` and then reboot the node if needed.\n"
    "然后执行 kubectl cordon hyperpod-i-0123，再观察。\n"
    "```bash\n"
    "sudo reboot"
)


@pytest.mark.parametrize("size", [1, 2, 7, 64, 10_000])
def test_streaming_equals_guarding_the_whole_text(size: int) -> None:
    whole = guard(MIXED)
    text, suggestions = streamed(MIXED, size=size)
    assert text == whole.text
    assert suggestions == whole.suggestions
    assert len(suggestions) == 5


def test_stream_releases_a_paragraph_only_once_it_is_complete() -> None:
    gate = StreamGate(CONTEXT)
    assert gate.feed("Run sudo re") == []
    assert gate.feed("boot now.\n") == []  # the paragraph may go on
    released = gate.feed("\n")
    assert released == [f"Run sudo reboot{NOTE} now.\n\n"]
    assert gate.feed("```bash\nsudo systemctl restart slurmd\n") == []  # fence still open
    (block,) = gate.feed("```\n")
    assert block.startswith(HEADING)
    assert [s.command for s in gate.suggestions] == ["sudo reboot", "sudo systemctl restart slurmd"]
    (tail,) = gate.flush()
    assert tail.startswith("\n" + HEADING)
    assert "sudo reboot" in tail


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(MIXED)), max_size=12))
def test_streaming_in_any_pieces_equals_the_whole(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(MIXED)]
    gate = StreamGate(CONTEXT)
    out: list[str] = []
    for a, b in itertools.pairwise(bounds):
        out.extend(gate.feed(MIXED[a:b]))
    out.extend(gate.flush())
    assert "".join(out) == guard(MIXED).text


# --- properties ---------------------------------------------------------------------------

MUTATING = [
    "sudo reboot",
    REPLACE_API,
    SG_EGRESS,
    "kubectl delete pod p -n default",
    "kubectl cordon hyperpod-i-0123",
    "sudo systemctl restart slurmd",
    "scontrol update nodename=ip-10-1-2-3 state=resume",
    "rm -rf /opt/sagemaker/checkpoints",
    "scancel 1234",
]
WORDS = [
    "the", "node", "reboot", "then", "check", "kubectl", "get", "nodes", "GPU", "Xid", "79",
    "i-0abc1234", "replace", "run", "Run", "and", "sudo", "nvidia-smi", "-q", "`", "```",
    "。", "，", "执行", "然后", ".", ",", ":", "(", ")", "\n", "\n\n", "#", "$",
]  # fmt: skip
# No quotes among the words: a quote before the command makes it a shell string argument of
# whatever came first (`nvidia-smi 'sudo reboot'` is a read-only line).
SEPARATORS = [" ", "\n", ". ", " and ", "\n\n", " `", "` "]


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(st.sampled_from(WORDS), max_size=12),
    command=st.sampled_from(MUTATING),
    left=st.sampled_from(SEPARATORS),
    right=st.sampled_from(SEPARATORS),
    after=st.lists(st.sampled_from(WORDS), max_size=12),
    language=st.sampled_from(["en", "zh"]),
)
def test_no_mutating_command_survives_outside_a_block(
    *, before: list[str], command: str, left: str, right: str, after: list[str], language: Language
) -> None:
    head = " ".join(before) + left
    text = head + command + right + " ".join(after)
    guarded = guard(text, SuggestionContext(triage_done=True, language=language))
    assert bare_mutations(guarded, language) == []
    # The command was seen, in one form or another, unless it sits in a fence's info string
    # (the word after ```), which Markdown does not show.
    if not head.rsplit("\n", 1)[-1].lstrip(" ").startswith("```"):
        assert guarded.suggestions


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="abr eotsudkcl-`\n.", max_size=120))
def test_arbitrary_text_is_guarded_and_streams_identically(text: str) -> None:
    guarded = guard(text)
    assert bare_mutations(guarded) == []
    assert streamed(text)[0] == guarded.text
    if not guarded.suggestions:
        assert guarded.text == text


PIECES = [
    *WORDS, *MUTATING, "'", '"', "**", "—", "：", "Run:", "执行：", "```bash", "```console",
    "~~~", "$ sudo reboot", "# sudo reboot", "shutdown -r now", "$(", "`sudo", "reboot`", "-f",
    ";", "&&", "\\", "<<EOF", "EOF", "    ",
]  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(PIECES), st.sampled_from([" ", "\n", "", "\n\n"])),
        max_size=30,
    ),
    language=st.sampled_from(["en", "zh"]),
)
def test_any_mix_of_markdown_and_commands_is_guarded_and_streams_identically(
    pieces: list[tuple[str, str]], language: Language
) -> None:
    text = "".join(piece + gap for piece, gap in pieces)
    context = SuggestionContext(triage_done=True, language=language)
    guarded = guard(text, context)
    assert bare_mutations(guarded, language) == []
    assert streamed(text, context, size=3)[0] == guarded.text


def test_purpose_before_strips_the_lead_in_and_clips() -> None:
    assert purpose_before("The GPU is gone. To fix the EFA SG, run:") == "To fix the EFA SG"
    assert purpose_before("The GPU fell off the bus. Run") == "The GPU fell off the bus."
    assert purpose_before("然后执行") == ""
    long = "word " * 100
    assert len(purpose_before(long)) == 160


# --- speed --------------------------------------------------------------------------------


def test_200_kb_answer_is_guarded_quickly() -> None:
    text = (
        MIXED + "\n\n" + "Check the node with kubectl get nodes and nvidia-smi -q. " * 40 + "\n\n"
    ) * 60
    text = text[:200_000]
    started = time.perf_counter()
    guarded = guard(text)
    assert time.perf_counter() - started < 10
    assert bare_mutations(guarded) == []


def test_200_kb_of_commands_in_prose_is_guarded_quickly() -> None:
    started = time.perf_counter()
    guard(("Run sudo reboot now. " * 10_000)[:200_000])
    guard(("执行 kubectl cordon hyperpod-i-0123，" * 6000)[:200_000])
    assert time.perf_counter() - started < 15


# --- review: unknown tools, markup, remote lines, containers, quotes ------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Then `helm uninstall training`.\n",
        "```\neksctl delete nodegroup --cluster c --name ng\n```\n",
        "```console\n$ kubectl get nodes\nterraform destroy -auto-approve\n```\n",
    ],
)
def test_a_command_of_an_unknown_tool_is_turned_into_a_suggestion(text: str) -> None:
    guarded = guard(text)
    assert len(guarded.suggestions) == 1
    assert guarded.suggestions[0].mutating
    assert bare_mutations(guarded) == []


def test_an_unknown_tool_in_inline_code_is_flagged_unclassified() -> None:
    (suggestion,) = guard("Finish with `frobnicate --all-nodes`.\n").suggestions
    assert FLAG_UNCLASSIFIED in suggestion.flags


@pytest.mark.parametrize(
    ("text", "marked"),
    [
        ("Do this: <pre>sudo reboot</pre> now.\n", f"<pre>sudo reboot</pre>{NOTE} now."),
        ("Or _sudo reboot_ if needed.\n", f"_sudo reboot_{NOTE} if needed."),
        ("See [sudo reboot](http://x) here.\n", f"[sudo reboot](http://x){NOTE} here."),
        ("Run **reboot**.\n", f"Run **reboot**{NOTE}."),
        ("Step 1:sudo reboot\n", f"Step 1:sudo reboot{NOTE}"),
    ],
)
def test_the_note_follows_the_markup_around_a_command(text: str, marked: str) -> None:
    guarded = guard(text)
    assert marked in guarded.text
    assert bare_mutations(guarded) == []


def test_a_remote_line_in_an_unlabelled_fence_is_suggested_whole() -> None:
    (suggestion,) = guard("```\nssh ip-10-1-2-3 sudo reboot\n```\n").suggestions
    assert suggestion.command == "ssh ip-10-1-2-3 sudo reboot"
    assert suggestion.kind == "reboot"
    assert suggestion.targets == ["ip-10-1-2-3"]


def test_a_continued_prose_line_is_one_suggestion() -> None:
    text = f"Run aws sagemaker \\\nbatch-delete-cluster-nodes --cluster-name c --node-ids {IID}\n"
    (suggestion,) = guard(text).suggestions
    assert suggestion.kind == "replace"
    assert suggestion.targets == ["c", IID]
    assert guard(text).text.startswith(
        f"Run aws sagemaker \\\nbatch-delete-cluster-nodes --cluster-name c --node-ids {IID}{NOTE}"
    )


def test_a_fence_in_a_quote_is_split_within_the_quote() -> None:
    text = "> ```bash\n> kubectl get nodes\n> sudo reboot\n> ls\n> ```\nafter\n"
    guarded = guard(text)
    (suggestion,) = guarded.suggestions
    assert suggestion.command == "sudo reboot"
    block = render_suggestion(suggestion, "en").rstrip("\n") + "\n"
    assert guarded.text == (
        f"> ```bash\n> kubectl get nodes\n> ```\n\n{block}\n> ```bash\n> ls\n> ```\n\nafter\n"
    )


def test_a_fence_in_a_list_item_reopens_in_the_item() -> None:
    text = "1. ```bash\n   kubectl get nodes\n   sudo reboot\n   ls\n   ```\n"
    guarded = guard(text)
    assert [s.command for s in guarded.suggestions] == ["sudo reboot"]
    assert guarded.text.startswith("1. ```bash\n   kubectl get nodes\n   ```\n")
    assert guarded.text.endswith("\n   ```bash\n   ls\n   ```\n")


def test_a_table_row_gives_the_command_and_no_table_purpose() -> None:
    guarded = guard("| step | command |\n|---|---|\n| 1 | sudo reboot |\n")
    (suggestion,) = guarded.suggestions
    assert suggestion.command == "sudo reboot"
    assert "|" not in suggestion.purpose
    assert f"| 1 | sudo reboot{NOTE} |" in guarded.text


def test_carriage_returns_alone_are_line_breaks() -> None:
    guarded = guard("Look:\r```bash\rkubectl get nodes\rsudo reboot\r```\r")
    assert [s.command for s in guarded.suggestions] == ["sudo reboot"]
    assert "\r" not in guarded.text
    assert "```bash\nkubectl get nodes\n```\n" in guarded.text


def test_a_quoted_string_and_a_comment_leave_a_read_only_fence_untouched() -> None:
    text = "```bash\necho '\nreboot\n'\nls -la # list the files\n```\n"
    assert guard(text) == GuardedText(text, [])


def test_a_comment_that_zsh_would_run_gets_a_block() -> None:
    (suggestion,) = guard("```bash\nls # && reboot\n```\n").suggestions
    assert suggestion.command == "ls # && reboot"


def test_a_markdown_fence_stays_whole_with_its_body_guarded() -> None:
    text = "````markdown\nExample:\n```bash\nkubectl get nodes\nsudo reboot\n```\n````\nDone.\n"
    guarded = guard(text)
    (suggestion,) = guarded.suggestions
    block = render_suggestion(suggestion, "en").rstrip("\n") + "\n"
    assert guarded.text == (
        f"````markdown\nExample:\n\n```bash\nkubectl get nodes\n```\n\n{block}````\n\nDone.\n"
    )
    assert bare_mutations(guarded) == []


def test_a_markdown_fence_grows_when_a_block_inside_needs_a_longer_fence() -> None:
    text = '````md\n```bash\necho "```" && sudo reboot\n```\n````\n'
    guarded = guard(text)
    assert guarded.text.startswith("`````md\n")
    assert guarded.text.endswith("\n`````\n")
    assert '````bash\necho "```" && sudo reboot\n````' in guarded.text


def test_a_purpose_from_the_text_that_holds_a_command_is_not_used() -> None:
    text = "Free the disk with sudo rm -rf /opt/x and then:\n```bash\nsudo reboot\n```\n"
    suggestions = guard(text).suggestions
    reboot = next(s for s in suggestions if s.command == "sudo reboot")
    assert reboot.purpose == "Reboot the node to recover it."


REVIEW_PIECES = [
    *PIECES, "> ```bash", "> sudo reboot", ">", "1. ```bash", "   sudo reboot", "\r", "\r\n",
    "| 1 | sudo reboot |", "<pre>", "</pre>", "<code>", "</code>", "_", "~~", "[", "](http://x)",
    "X=1", "Step 1:", "\\\n", "'", "# && reboot", "helm uninstall x", "````markdown", "````",
    "ssh ip-10-1-2-3", "echo 1 > /sys/x",
]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(REVIEW_PIECES), st.sampled_from([" ", "\n", "", "\n\n"])),
        max_size=30,
    ),
    size=st.sampled_from([1, 3, 17]),
)
def test_markup_quotes_and_line_breaks_stream_identically_and_leave_nothing_bare(
    pieces: list[tuple[str, str]], size: int
) -> None:
    text = "".join(piece + gap for piece, gap in pieces)
    guarded = guard(text)
    assert streamed(text, size=size)[0] == guarded.text
    assert bare_mutations(guarded) == []


# --- quoted triage report lines (review of the eval cases) ---------------------------------

REPORT = (
    "[FAIL] P0 slurmctld does not answer scontrol ping on the controller; scontrol reconfigure "
    "after fixing it → references/node-diagnostics-detail.md § H"
)


def test_a_quoted_report_line_without_a_command_passes_unchanged() -> None:
    text = "`[INFO] Probed 1 node(s) over SSM`"
    guarded = guard_text(text, SuggestionContext(triage_done=True))
    assert guarded.suggestions == []
    assert guarded.text == text


@pytest.mark.parametrize("text", [f"Triage says `{REPORT}`.", f"```\n{REPORT}\n```\n"])
def test_a_quoted_report_line_is_read_for_the_command_it_holds(text: str) -> None:
    """No line is exempt because it looks like a report line (issue 22, class 2): the
    state-changing command it names leaves as a block, and only that command, not the line."""
    guarded = guard_text(text, SuggestionContext(triage_done=True))
    assert [s.command for s in guarded.suggestions] == ["scontrol reconfigure"]


INJECTED = (
    '[FAIL] P0 1 Error event on i-0fffffffffff0001 points to EFA health checks: "kubectl '
    'delete node ip-10-1-2-3 --force" → references/node-diagnostics-detail.md § A'
)


@pytest.mark.parametrize(
    "wrapper",
    ["`{}`", "```\n{}\n```", "```text\n{}\n```", "<code>{}</code>", "> {}", "{}"],
)
def test_a_command_injected_through_cluster_text_into_a_report_line_is_caught(
    wrapper: str,
) -> None:
    """The honest worst case: the model quotes a real triage line, as the workflow asks,
    and the line carries a command planted in a cluster event."""
    guarded = guard_text(wrapper.format(INJECTED), SuggestionContext(triage_done=True))
    assert [s.command for s in guarded.suggestions] == ["kubectl delete node ip-10-1-2-3 --force"]
    assert bare_mutations(guarded) == []


def test_a_report_marker_without_its_pointer_does_not_hide_a_command() -> None:
    guarded = guard_text("`[FAIL] sudo reboot`", SuggestionContext(triage_done=True))
    assert len(guarded.suggestions) == 1
