"""Kubeconfig loading: every way it can fail is a KubernetesUnavailable with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.kube.config import exec_command_path, load_kubeconfig
from tools.sources import KubernetesUnavailable

from ._server import write_exec_plugin, write_kubeconfig

SERVER = "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com"


def reason(path: Path | None = None, context: str | None = None) -> str:
    with pytest.raises(KubernetesUnavailable) as caught:
        load_kubeconfig(path, context)
    assert caught.value.hint == "Install kubectl and authenticate (see § K)."
    return caught.value.reason


def test_no_kubeconfig_at_all() -> None:
    assert "no kubeconfig" in reason()


def test_explicit_path_missing(tmp_path: Path) -> None:
    assert "not found" in reason(tmp_path / "nope")


def test_kubeconfig_variable_names_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "a") + ":" + str(tmp_path / "b"))
    assert "KUBECONFIG names no existing file" in reason()


def test_default_path_and_kubeconfig_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_kubeconfig: Path
) -> None:
    (no_kubeconfig / ".kube").mkdir()
    write_kubeconfig(no_kubeconfig / ".kube" / "config", SERVER, token="t")
    assert load_kubeconfig().server == SERVER
    other = write_kubeconfig(tmp_path / "other", "https://other.example:6443", token="t")
    monkeypatch.setenv("KUBECONFIG", str(other))
    assert load_kubeconfig().server == "https://other.example:6443"


def test_garbage_is_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text("clusters: [unclosed\n  - {")
    assert "not valid" in reason(path)
    path.write_text("")
    assert "no configuration" in reason(path) or "not valid" in reason(path)
    path.write_text(json.dumps({"contexts": "not-a-list", "current-context": "x"}))
    assert "x" in reason(path)


def test_undecodable_file(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert "cannot read" in reason(path) or "not valid" in reason(path)


def test_no_current_context_lists_the_contexts(tmp_path: Path) -> None:
    path = write_kubeconfig(tmp_path / "config", SERVER, token="t", current=False)
    text = reason(path)
    assert "--context" in text
    assert "test" in text


def test_unknown_context(tmp_path: Path) -> None:
    path = write_kubeconfig(tmp_path / "config", SERVER, token="t")
    text = reason(path, "prod")
    assert "prod" in text
    assert "contexts: test" in text


def test_token_user_loads_server_and_context(tmp_path: Path) -> None:
    loaded = load_kubeconfig(write_kubeconfig(tmp_path / "config", SERVER, token="t"), "test")
    assert (loaded.server, loaded.context) == (SERVER, "test")
    assert loaded.configuration.api_key["BearerToken"] == "Bearer t"


def test_missing_exec_command_is_refused_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    path = write_kubeconfig(tmp_path / "config", SERVER, exec_command="aws")
    text = reason(path)
    assert "exec command 'aws'" in text
    assert "not found" in text


def test_failing_exec_command_gives_no_silent_unauthenticated_client(tmp_path: Path) -> None:
    plugin = write_exec_plugin(tmp_path / "get-token", "unused", exit_code=255)
    path = write_kubeconfig(tmp_path / "config", SERVER, exec_command=str(plugin))
    text = reason(path)
    assert "gave no credentials" in text
    assert "Unable to locate credentials" in text


def test_exec_plugin_token_is_loaded(tmp_path: Path) -> None:
    plugin = write_exec_plugin(tmp_path / "get-token", "from-exec")
    loaded = load_kubeconfig(
        write_kubeconfig(tmp_path / "config", SERVER, exec_command=str(plugin))
    )
    assert loaded.configuration.api_key["BearerToken"] == "Bearer from-exec"


def test_relative_exec_command_resolves_against_the_kubeconfig_directory(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    write_exec_plugin(tmp_path / "bin" / "get-token", "x")
    assert exec_command_path("bin/get-token", str(tmp_path)) == str(tmp_path / "bin" / "get-token")
    assert exec_command_path("bin/missing", str(tmp_path)) is None


def test_reasons_show_the_home_directory_as_tilde(no_kubeconfig: Path) -> None:
    kube = no_kubeconfig / ".kube"
    kube.mkdir()
    (kube / "config").write_text("{not: [valid", encoding="utf-8")
    text = reason()
    assert str(no_kubeconfig) not in text
    assert "~/.kube/config" in text


def test_an_explicit_path_under_home_is_shown_with_tilde(no_kubeconfig: Path) -> None:
    text = reason(no_kubeconfig / "missing-config")
    assert str(no_kubeconfig) not in text
    assert "~/missing-config" in text


def test_without_home_leaves_other_paths_alone(no_kubeconfig: Path) -> None:
    from tools.kube.config import without_home

    assert without_home(f"{no_kubeconfig}/a, {no_kubeconfig}x/b") == f"~/a, {no_kubeconfig}x/b"
    assert without_home("/etc/kubernetes/admin.conf") == "/etc/kubernetes/admin.conf"
