"""The chat's banner does not wait for the model SDK: the provider is built without it and
the import runs in a background thread the first model call waits for."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from agent.chat import warmup
from agent.providers.scripted import ScriptedProvider

from .pty_chat import ROOT

_PROBE = """
import sys
from agent.providers.factory import make_provider
provider = make_provider(sys.argv[1], model=None, region=None, profile=None, script=None)
print("anthropic" in sys.modules)
thread = __import__("agent.chat.warmup", fromlist=["start"]).start(provider)
thread.join(60)
print("anthropic" in sys.modules, provider._lazy.ready)
"""


# Each provider's credentials, fake: building the provider checks they are there (Bedrock's
# through botocore's chain, which reads no file here: HOME points nowhere).
_ENVIRONMENTS = {
    "anthropic": {"ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef"},
    "bedrock": {
        "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKEFAKE",
        "AWS_SECRET_ACCESS_KEY": "fake-secret",
        "AWS_REGION": "us-west-2",
        "AWS_EC2_METADATA_DISABLED": "true",
        "HOME": "/nonexistent",
    },
}


@pytest.mark.parametrize("name", sorted(_ENVIRONMENTS))
def test_an_sdk_provider_is_built_without_the_sdk_and_warms_up_in_a_thread(name: str) -> None:
    env = {"PATH": "/usr/bin:/bin", **_ENVIRONMENTS[name]}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, name],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["False", "True", "True"]


def test_a_provider_with_nothing_to_prepare_starts_no_thread() -> None:
    assert warmup.start(ScriptedProvider.from_turns([])) is None


def test_prepare_runs_in_a_daemon_thread() -> None:
    ran: list[str] = []

    class Slow:
        def prepare(self) -> None:
            ran.append(threading.current_thread().name)

    thread = warmup.start(Slow())
    assert thread is not None
    thread.join(5)
    assert thread.daemon
    assert ran == ["sdk-warm-up"]
