"""The CLI starts without the heavy SDKs: `--help` and offline paths stay fast."""

from __future__ import annotations

import subprocess
import sys


def test_cli_import_does_not_load_heavy_sdks() -> None:
    code = (
        "import sys, agent.cli; "
        "heavy = [m for m in ('boto3', 'botocore', 'anthropic', 'kubernetes') "
        "if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
