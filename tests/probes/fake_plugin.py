"""A stand-in for session-manager-plugin, run as a program by the SSM transport tests.

It checks that it was started the way the AWS CLI starts the real plugin (the StartSession
response, or the name of the environment variable holding it; region; "StartSession";
profile; the request parameters as JSON; the endpoint URL), prints the real plugin's banner
and then what a node would print for the probes named in the command it was given.

FAKE_PLUGIN_MODE picks a behaviour:
  normal      every probe, framed
  tty-only    like normal, but silent unless stdout is a terminal (as the real plugin is)
  hang        the first probe starts, prints a line, then the plugin never exits
  early-exit  the first probe completes, the second starts, then the plugin exits
  banner-only the banner and an error line, then exit (no probe ever started)
FAKE_PLUGIN_LOG, when set, receives the argv and the handoff variable as JSON;
FAKE_PLUGIN_EXTRA is appended to every probe's output.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import NoReturn

sys.path.insert(0, os.environ["FAKE_PLUGIN_REPO"])

from tools.probes.framing import bundle_probes, frame
from tools.probes.model import ProbeOutput

ENV_NAME = "AWS_SSM_START_SESSION_RESPONSE"


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"fake plugin: {message}\n")
    sys.exit(2)


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:
        sys.stdout.write(os.environ.get("FAKE_PLUGIN_VERSION", "1.2.650.0") + "\n")
        return
    if len(args) != 6:
        fail(f"expected 6 arguments, got {len(args)}")
    response_arg, region, operation, _profile, request, endpoint = args
    log = os.environ.get("FAKE_PLUGIN_LOG")
    if log:
        with open(log, "w", encoding="utf-8") as handle:
            json.dump({"argv": args, "env": os.environ.get(ENV_NAME)}, handle)
    raw = os.environ.get(ENV_NAME) if response_arg == ENV_NAME else response_arg
    response = json.loads(raw or "{}")
    if set(response) != {"SessionId", "TokenValue", "StreamUrl"}:
        fail(f"bad session response keys {sorted(response)}")
    if operation != "StartSession" or not region or not endpoint.startswith("http"):
        fail("bad region / operation / endpoint")
    params = json.loads(request)
    if params.get("DocumentName") != "AWS-StartNonInteractiveCommand":
        fail("wrong document")
    command = params["Parameters"]["command"][0]
    names = bundle_probes(command)
    if names is None:
        fail("not a probe bundle")
    nonce = command.split("@@HPD-", 1)[1][:16]

    mode = os.environ.get("FAKE_PLUGIN_MODE", "normal")
    if mode == "tty-only" and not os.isatty(1):
        return  # the real plugin drops the stream without a terminal
    out = sys.stdout
    out.write(f"\nStarting session with SessionId: {response['SessionId']}\n")
    extra = os.environ.get("FAKE_PLUGIN_EXTRA", "")
    outputs = {
        name: ProbeOutput(stdout=f"{name} line 1\n{name} line 2{extra}", exit_code=0)
        for name in names
    }
    if mode == "banner-only":
        out.write("websocket: connection refused\n")
        out.flush()
        sys.exit(1)
    if mode == "hang":
        first = names[0]
        out.write(frame({first: ProbeOutput(stdout=f"{first} line 1", truncated=True)}, nonce))
        out.flush()
        time.sleep(300)
        return
    if mode == "early-exit":
        first, second = names[0], names[1]
        partial = {
            first: outputs[first],
            second: ProbeOutput(stdout=f"{second} line 1", truncated=True),
        }
        out.write(frame(partial, nonce))
        out.flush()
        return
    out.write(frame(outputs, nonce))
    out.write(f"\n\nExiting session with sessionId: {response['SessionId']}.\n\n")
    out.flush()


if __name__ == "__main__":
    main()
