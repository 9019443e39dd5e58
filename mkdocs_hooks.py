"""mkdocs hooks for the manual under docs/ (mkdocs.yml names this file).

A code block's fence carries, after its language, the markers that tell the docs tests
whether and how to run it (```` ```python no-run: a fragment ````, see tests/doc_blocks.py).
GitHub ignores what follows the language; Python-Markdown's fences do not, and would show
such a block as prose. So the site sees the language alone."""
from __future__ import annotations

import re

_FENCE_WITH_MARKERS = re.compile(r"^(?P<fence>```+)(?P<language>[\w+-]+)[ \t]+[^\n`]*$", re.MULTILINE)


def on_page_markdown(markdown: str, **_: object) -> str:
    """The page's Markdown with each fence's run markers left out."""
    return _FENCE_WITH_MARKERS.sub(r"\g<fence>\g<language>", markdown)
