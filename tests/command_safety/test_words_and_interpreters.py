"""The command word as the shell resolves it, interpreters and PowerShell (issue 22,
classes 3 and 5): classifier cases from a data file, and the word and prompt readers."""

from __future__ import annotations

import pytest

from agent.safety.suggest import SuggestionContext, build_suggestion
from tools.command_safety import classify
from tools.command_safety.words import command_name, command_word, prompt_length

from ._data import classifier_cases

ROWS = classifier_cases("words_and_interpreters.txt")


@pytest.mark.parametrize(("kind", "rank", "command"), ROWS)
def test_classifier_case(kind: str, rank: int, command: str) -> None:
    verdict = classify(command)
    assert (verdict.kind, verdict.destructive_rank) == (kind, rank), verdict.reason


@pytest.mark.parametrize(
    ("word", "name"),
    [
        ("'kubectl'", "kubectl"),
        ('"aws"', "aws"),
        ("k\\ubectl", "kubectl"),
        ("nvidia\\-smi", "nvidia-smi"),
        ("\\reboot", "reboot"),
        ("re\\boot", "reboot"),
        ("/usr/local/bin/aws", "aws"),
        ("./kubectl", "kubectl"),
        ('"/usr/bin/"sudo', "sudo"),
        ('"a\\"b"', 'a"b'),  # in double quotes a backslash escapes a quote
        ("'a\\b'", "a\\b"),  # in single quotes nothing is escaped
    ],
)
def test_command_name_is_the_word_after_quote_removal(word: str, name: str) -> None:
    assert command_name(word) == name


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("user@host:~$ sudo reboot", "sudo reboot"),
        ("[root@ip-10-1-2-3 ~]# reboot", "reboot"),
        ("root@node:/# kubectl get nodes", "kubectl get nodes"),
        ("PS C:\\> Stop-Computer", "Stop-Computer"),
        ("PS C:\\Users\\me> Get-Process", "Get-Process"),
        ("(base) ubuntu@ip-10-1-2-3:/fsx$ ls", "ls"),
        ("bash-5.2$ df -h", "df -h"),
        ("ubuntu@ip-10-1-2-3 ~ % ls", "ls"),
        ("➜  ~ ls", "ls"),
        ("~$ ls", "ls"),
        ("/opt/ml/train.sh # a comment", "/opt/ml/train.sh # a comment"),
        ("$ kubectl get pods", "kubectl get pods"),
        ("# reboot", "reboot"),
        ("# see the notes below", "# see the notes below"),
        ("kubectl get nodes", "kubectl get nodes"),
    ],
)
def test_prompt_length_finds_where_the_command_starts(line: str, command: str) -> None:
    assert line[prompt_length(line) :] == command


def test_a_bare_hash_is_no_prompt_when_comments_are_read_apart() -> None:
    assert prompt_length("# reboot", root=False) == 0


def test_command_word_skips_prompt_wrappers_and_assignments() -> None:
    line = "user@host:~$ FOO=1 sudo -- 'systemctl' restart slurmd"
    found = command_word(line)
    assert found is not None
    assert (line[found.start : found.end], found.name) == ("'systemctl'", "systemctl")


@pytest.mark.parametrize(
    ("command", "radius"),
    [
        ("sc\\ontrol reboot ip-10-1-2-3", "Slurm-driven reboot"),
        ("'/usr/bin/kubectl' cordon ip-10-1-2-3", "changes Kubernetes objects"),
    ],
)
def test_the_blast_radius_reads_the_resolved_tool(command: str, radius: str) -> None:
    suggestion = build_suggestion(command, purpose="p", context=SuggestionContext())
    assert radius in suggestion.blast_radius
