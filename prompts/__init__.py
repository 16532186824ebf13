"""The agent's prompts: Jinja2 templates rendered by one function, failing loudly.

Every template lives beside this file. `StrictUndefined` turns a missing variable into an
error at render time, so a prompt can never silently lose a sentence.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

PROMPTS_DIR = Path(__file__).resolve().parent


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(PROMPTS_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # plain text for a model and a terminal, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template_name: str, **context: object) -> str:
    """Render one template with `context`; a missing variable raises UndefinedError."""
    return _environment().get_template(template_name).render(**context)
