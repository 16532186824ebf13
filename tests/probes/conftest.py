"""The fake session-manager-plugin (tests/probes/fake_plugin.py) installed first on PATH."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake plugin as an executable named session-manager-plugin, first on PATH; it
    logs its argv to <tmp_path>/argv.json."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "session-manager-plugin"
    script.write_text(
        f"#!{sys.executable}\n" + (REPO / "tests" / "probes" / "fake_plugin.py").read_text()
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_PLUGIN_REPO", str(REPO))
    monkeypatch.setenv("FAKE_PLUGIN_LOG", str(tmp_path / "argv.json"))
    return script
