"""Loading a kubeconfig into a client configuration, or saying exactly why it cannot be.

The kubernetes client is forgiving in ways a diagnostic tool must not be: when an EKS
`exec` credential command (usually `aws`) is missing or fails, it logs an error and returns
a configuration without credentials, so every later call is a confusing 401. Here the
command is looked up before anything runs, the plugin's failure is captured, and a
configuration that came out without credentials for an exec user is refused. Every
problem becomes a `KubernetesUnavailable` with a reason a person can act on.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.sources import KubernetesUnavailable
from tools.text import clip

DEFAULT_PATH = Path("~/.kube/config")


@dataclass(frozen=True)
class LoadedKubeConfig:
    """A client configuration with credentials, and where it points."""

    configuration: Any = field(repr=False)  # kubernetes.client.Configuration
    server: str
    context: str
    paths: tuple[str, ...]


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; False too when it cannot even be looked at (a name over
    the system's length limit, a component without permission)."""
    try:
        return path.expanduser().is_file()
    except (OSError, ValueError, RuntimeError):
        return False


def kubeconfig_paths(path: Path | None) -> tuple[str, ...]:
    """The kubeconfig files to merge: the explicit path, else KUBECONFIG, else the default."""
    if path is not None:
        if not _is_file(path):
            raise KubernetesUnavailable(f"kubeconfig {clip(path, 200)} not found")
        return (str(path.expanduser()),)
    variable = os.environ.get("KUBECONFIG", "")
    if variable.strip():
        listed = [p for p in variable.split(os.pathsep) if p.strip()]
        existing = tuple(str(Path(p).expanduser()) for p in listed if _is_file(Path(p)))
        if not existing:
            raise KubernetesUnavailable(
                f"KUBECONFIG names no existing file ({clip(variable, 120)})"
            )
        return existing
    default = DEFAULT_PATH.expanduser()
    if not default.is_file():
        raise KubernetesUnavailable(
            f"no kubeconfig: {DEFAULT_PATH} does not exist and KUBECONFIG is not set"
        )
    return (str(default),)


def _named(node: Any, key: str, name: str) -> Any:
    """The entry called `name` in the merged config's `key` list, or None."""
    entries = node.safe_get(key)
    if entries is None:
        return None
    for entry in entries if isinstance(entries, list) else []:
        value = getattr(entry, "value", entry)
        if isinstance(value, dict) and value.get("name") == name:
            return entry
    return None


def _names(node: Any, key: str) -> list[str]:
    entries = node.safe_get(key)
    names: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        value = getattr(entry, "value", entry)
        if isinstance(value, dict) and value.get("name"):
            names.append(str(value["name"]))
    return names


def exec_command_path(command: str, base_dir: str) -> str | None:
    """Where the exec plugin's command would be found, or None when it would not.

    The client runs the command with the kubeconfig's directory as working directory, so a
    relative path with a slash is resolved against that directory; a bare name uses PATH.
    """
    if os.sep in command or (os.altsep and os.altsep in command):
        candidate = command if os.path.isabs(command) else os.path.join(base_dir, command)
        return candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None
    return shutil.which(command)


class _Captured(logging.Handler):
    """Collects the errors the kubernetes config loader logs instead of raising."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def without_home(text: str) -> str:
    """`text` with the user's home directory written as "~": failure reasons name
    kubeconfig paths and land in recordings, which must not carry local user names."""
    homes = {os.path.expanduser("~"), str(Path.home())}
    homes |= {os.path.realpath(h) for h in homes}
    # Longest first, so a home under a symlinked one is replaced whole.
    for home in sorted((h.rstrip(os.sep) for h in homes if len(h) > 1), key=len, reverse=True):
        text = re.sub(re.escape(home) + r"(?![\w.-])", "~", text)
    return text


def load_kubeconfig(path: Path | None = None, context: str | None = None) -> LoadedKubeConfig:
    """Merge the kubeconfig files, pick the context and load its credentials (raises
    KubernetesUnavailable, with the home directory shown as "~")."""
    try:
        return _load_kubeconfig(path, context)
    except KubernetesUnavailable as exc:
        raise KubernetesUnavailable(without_home(exc.reason)) from None


def _load_kubeconfig(path: Path | None, context: str | None) -> LoadedKubeConfig:
    from kubernetes import client as _client
    from kubernetes.config import kube_config as _kube_config
    from kubernetes.config.config_exception import ConfigException
    from yaml import YAMLError  # type: ignore[import-untyped]

    # The client's config module is untyped; it is used through Any on purpose.
    kube_config: Any = _kube_config
    client: Any = _client

    paths = kubeconfig_paths(path)
    shown = ", ".join(paths)
    try:
        merged = kube_config.KubeConfigMerger(os.pathsep.join(paths)).config
    except (OSError, UnicodeDecodeError) as exc:
        raise KubernetesUnavailable(f"cannot read kubeconfig {shown}: {clip(exc, 160)}") from None
    except (YAMLError, ConfigException, TypeError, AttributeError, KeyError) as exc:
        raise KubernetesUnavailable(f"kubeconfig {shown} is not valid: {clip(exc, 160)}") from None
    if merged is None:
        raise KubernetesUnavailable(f"kubeconfig {shown} holds no configuration")

    contexts = _names(merged, "contexts")
    chosen = context or merged.safe_get("current-context")
    if not chosen:
        listed = ", ".join(contexts) or "none"
        raise KubernetesUnavailable(
            f"kubeconfig {shown} has no current context: pass --context (contexts: {listed})"
        )
    if chosen not in contexts:
        listed = ", ".join(contexts) or "none"
        raise KubernetesUnavailable(
            f"context {clip(chosen, 80)!s} is not in kubeconfig {shown} (contexts: {listed})"
        )
    _require_exec_command(merged, str(chosen))

    configuration = client.Configuration()
    captured = _Captured()
    root = logging.getLogger()
    root.addHandler(captured)
    try:
        loader = kube_config.KubeConfigLoader(
            config_dict=merged, active_context=chosen, config_base_path=None
        )
        loader.load_and_set(configuration)
    except (ConfigException, OSError, ValueError, TypeError, AttributeError, KeyError) as exc:
        raise KubernetesUnavailable(
            f"kubeconfig context {chosen} cannot be used: {clip(exc, 200)}"
        ) from None
    finally:
        root.removeHandler(captured)
    _require_credentials(merged, str(chosen), configuration, captured.messages)
    server = str(configuration.host or "")
    if not server:
        raise KubernetesUnavailable(f"kubeconfig context {chosen} names no API server")
    return LoadedKubeConfig(configuration, server, str(chosen), paths)


def _user_of(merged: Any, context: str) -> tuple[str, dict[str, Any], str]:
    """(user name, user section, directory of the file that defined it) for a context."""
    entry = _named(merged, "contexts", context)
    value = getattr(entry, "value", entry) or {}
    user_name = str((value.get("context") or {}).get("user") or "")
    user_entry = _named(merged, "users", user_name) if user_name else None
    if user_entry is None:
        return user_name, {}, ""
    user_value = getattr(user_entry, "value", user_entry) or {}
    section = user_value.get("user") if isinstance(user_value, dict) else None
    defined_in = getattr(user_entry, "path", None)
    base_dir = os.path.dirname(os.path.abspath(defined_in)) if defined_in else ""
    return user_name, section if isinstance(section, dict) else {}, base_dir


def _require_exec_command(merged: Any, context: str) -> None:
    user_name, user, base_dir = _user_of(merged, context)
    plugin = user.get("exec")
    if not isinstance(plugin, dict):
        return
    command = str(plugin.get("command") or "")
    if not command:
        raise KubernetesUnavailable(
            f"kubeconfig user {user_name} has an exec section without a command"
        )
    if exec_command_path(command, base_dir) is None:
        raise KubernetesUnavailable(
            f"kubeconfig user {user_name} authenticates with exec command {command!r}, "
            f"which is not found on this machine (install it, e.g. the AWS CLI for EKS)"
        )


def _require_credentials(merged: Any, context: str, configuration: Any, logged: list[str]) -> None:
    """An exec user must come out with a token or a client certificate: the client would
    otherwise carry on without authentication."""
    user_name, user, _ = _user_of(merged, context)
    plugin = user.get("exec")
    if not isinstance(plugin, dict):
        return
    if configuration.api_key.get("BearerToken") or configuration.cert_file:
        return
    detail = "; ".join(clip(m, 200) for m in logged[:2]) or "no token in its output"
    raise KubernetesUnavailable(
        f"exec command {plugin.get('command')!r} of kubeconfig user {user_name} gave no "
        f"credentials: {detail}"
    )
