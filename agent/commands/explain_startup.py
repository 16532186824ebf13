"""Start-up plumbing that keeps `hyperpod-debug explain` (and every command) quick to start.

Three costs of typer are paid before any command runs, and none is needed to run one:

* typer turns the signature of every registered command into click parameters (type
  hints evaluated, ~10 commands) before it dispatches to one. `agent.cli.main` builds an
  app that holds only the command `command_named` finds on the command line (and imports
  only its module); `--help`, a mistyped name or no name at all still get the whole app,
  so listings and "No such command" hints are whole.
* the command modules use postponed annotations (strings), and typer evaluates each
  command's annotations four times while building it (two signature reads, each with
  `eval_str` and `get_type_hints`). `resolve_annotations` evaluates them once, up front,
  as typer's `eval_str` read does: typer then reads the objects it would have built
  (--help builds every command).
* typer coerces each parameter value through a pydantic TypeAdapter, which imports
  pydantic (a third of explain's start-up) to turn "5" into 5. `plain_values` gives
  explain's parameters a coercion that handles exactly the plain cases (a string, one of
  the literal choices, a decimal integer within bounds) and passes anything else to
  typer's own, so errors and their messages are typer's.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

import typer

# The root callback's only option, a flag: it may come before the command name.
_ROOT_FLAGS = frozenset({"--debug"})


def command_named(argv: list[str], commands: Iterable[str]) -> str | None:
    """The command that ``argv`` runs, or None when the whole app is needed: no command
    named, an unknown one, or a root option other than the flags before it (--help)."""
    for arg in argv:
        if arg in _ROOT_FLAGS:
            continue
        if arg.startswith("-"):
            return None
        return arg if arg in commands else None
    return None


_UNSURE = object()


def _plain(annotation: Any, info: Any, value: Any) -> Any:
    """``value`` coerced as typer's pydantic adapter would, or ``_UNSURE``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is bool:
        return value if type(value) is bool else _UNSURE
    if annotation is str or (origin in (Union, types.UnionType) and set(args) == {str, type(None)}):
        return value if isinstance(value, str) else _UNSURE
    if origin is Literal and all(isinstance(a, str) for a in args):
        return value if isinstance(value, str) and value in args else _UNSURE
    if annotation is int and not getattr(info, "clamp", False):
        if isinstance(value, str) and value.isascii() and value.isdigit():
            number = int(value)
        elif type(value) is int:
            number = value
        else:
            return _UNSURE
        low, high = getattr(info, "min", None), getattr(info, "max", None)
        if (low is not None and number < low) or (high is not None and number > high):
            return _UNSURE  # typer's adapter words the error
        return number
    return _UNSURE


def plain_values(command: Any, name: str) -> None:
    """Give the parameters of the click group ``command`` (the root flags) and of its
    subcommand ``name`` the plain coercion. A typer without this internal layout keeps its
    own coercion throughout."""
    try:
        from typer._coercion import RuntimeParam, build_runtime_param
        from typer.core import _TyperParameter
    except ImportError:
        return

    @dataclass(frozen=True)
    class PlainRuntimeParam(RuntimeParam):
        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = _plain(self.annotation, self.parameter_info, value)
            if plain is not _UNSURE:
                return plain
            return build_runtime_param(self.descriptor)._coerce_value(value, param, ctx)

    commands = getattr(command, "commands", {})
    subcommand = commands.get(name) if isinstance(commands, dict) else None
    if subcommand is None:
        return
    # The --help options are made on first use from the help names of the context: made
    # here with the contexts that parsing creates (same settings, same parent), so that
    # parsing finds them already made.
    root = command.context_class(command, **command.context_settings)
    sub = subcommand.context_class(subcommand, parent=root, **subcommand.context_settings)
    for param in [*command.get_params(root), *subcommand.get_params(sub)]:
        descriptor = getattr(param, "type_descriptor", None)
        if not isinstance(param, _TyperParameter) or descriptor is None:
            continue
        if not hasattr(param, "_runtime_param"):
            continue
        param._runtime_param = PlainRuntimeParam(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            descriptor=descriptor,
        )


def _callbacks(app: typer.Typer) -> list[Any]:
    infos: list[Any] = [*app.registered_commands]
    if app.registered_callback is not None:
        infos.append(app.registered_callback)
    found = [info.callback for info in infos if info.callback is not None]
    for group in app.registered_groups:
        if group.typer_instance is not None:
            found += _callbacks(group.typer_instance)
    return found


def resolve_annotations(app: typer.Typer) -> None:
    """Replace each command function's string annotations by their values, once."""
    for function in _callbacks(app):
        annotations = getattr(function, "__annotations__", None)
        if not annotations or not any(isinstance(a, str) for a in annotations.values()):
            continue
        try:
            # The same evaluation as typer's own signature read (eval_str): same objects.
            resolved = inspect.get_annotations(function, eval_str=True)
        except Exception:  # typer reports it when it builds the command
            continue
        function.__annotations__ = resolved


def run(app: typer.Typer, argv: list[str]) -> None:
    """What ``app()`` does (see the module docstring)."""
    resolve_annotations(app)
    command = typer.main.get_command(app)
    if list(getattr(command, "commands", {})) == ["explain"]:  # main built explain alone
        plain_values(command, "explain")
    command()
