"""The references as MCP resources: each section of node-diagnostics-detail.md, and the
ticket catalogue, under stable URIs.

The top-level sections § A–O are listed (each one's text includes its subsections); a
resource template names every section, so `.../G.1.a` reads one subsection alone. The text
is read by the same code as the `read_reference` tool (`tools.references`).
"""

from __future__ import annotations

from mcp import types

from tools.sections import CATALOG_PATH, REFERENCE_PATH, SECTIONS, TOP_LEVEL_IDS

SCHEME = "hyperpod-debug"
SECTION_URI_PREFIX = f"{SCHEME}://references/node-diagnostics-detail/"
SECTION_URI_TEMPLATE = SECTION_URI_PREFIX + "{section}"
CATALOG_URI = f"{SCHEME}://references/node-issue-catalog"
MARKDOWN = "text/markdown"


def section_uri(section_id: str) -> str:
    return SECTION_URI_PREFIX + section_id


def resource_list() -> list[types.Resource]:
    sections = [
        types.Resource(
            uri=section_uri(section_id),
            name=f"section-{section_id}",
            title=f"§ {section_id} {SECTIONS[section_id].title}",
            description=f"{REFERENCE_PATH} § {section_id} with its subsections: what it "
            "means, how to confirm (read-only), root causes, the fix, when to escalate.",
            mime_type=MARKDOWN,
        )
        for section_id in TOP_LEVEL_IDS
    ]
    catalog = types.Resource(
        uri=CATALOG_URI,
        name="node-issue-catalog",
        title="HyperPod node issue catalogue (ticket patterns)",
        description=f"{CATALOG_PATH}: the problems customers most often open tickets about, "
        "each with its signals, cause, read-only confirmation, fix and section.",
        mime_type=MARKDOWN,
    )
    return [*sections, catalog]


def resource_templates() -> list[types.ResourceTemplate]:
    return [
        types.ResourceTemplate(
            uri_template=SECTION_URI_TEMPLATE,
            name="reference-section",
            title="A reference section or subsection",
            description=f"One section of {REFERENCE_PATH} by id, as on a finding line: A, B.2, "
            "G.1.a ...",
            mime_type=MARKDOWN,
        )
    ]


def read(uri: str) -> str | None:
    """The Markdown behind ``uri``, or None when no resource has that URI."""
    from tools.references import catalog_text, section_text

    if uri == CATALOG_URI:
        return catalog_text()
    if uri.startswith(SECTION_URI_PREFIX):
        section_id = uri.removeprefix(SECTION_URI_PREFIX)
        if section_id in SECTIONS:
            return section_text(section_id)
    return None
