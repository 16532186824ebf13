"""The agent's prompts: Jinja2 templates rendered by one function, failing loudly.

Every template lives beside this file. `StrictUndefined` turns a missing variable into an
error at render time, so a prompt can never silently lose a sentence.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

from tools.remediation import prompt_table

PROMPTS_DIR = Path(__file__).resolve().parent


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PROMPTS_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # plain text for a model and a terminal, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # The destructive-order partial is rendered from the remediation table, the one the
    # checks and the safety layer read, so the prompt cannot state another rule. A global
    # because both the chat and the MCP workflow prompts include that partial.
    environment.globals["remediation"] = prompt_table()
    return environment


def render(template_name: str, **context: object) -> str:
    """Render one template with `context`; a missing variable raises UndefinedError."""
    return _environment().get_template(template_name).render(**context)
