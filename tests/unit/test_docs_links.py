# SPDX-License-Identifier: BSD-2-Clause
"""The README is a front door and docs/ holds the rest: every relative
link (and picture) in README.md and docs/*.md must lead to a file of this
tree, and a link to a heading (#anchor) to a heading that exists there;
the README stays short, and every page of docs/ is linked from it."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
README = REPO / "README.md"
PAGES = [README] + sorted((REPO / "docs").glob("*.md"))
README_MAX_LINES = 320
LINK_RE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)\)")
FENCE_RE = re.compile(r"^(```|~~~)")
CODE_SPAN_RE = re.compile(r"`[^`\n]*`")


def prose(text):
    """text without fenced code blocks and code spans (links there are
    examples, not links)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE_RE.match(line.lstrip()):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else CODE_SPAN_RE.sub("", line))
    return "\n".join(out)


def links(path):
    return LINK_RE.findall(prose(path.read_text()))


def anchors_of(path):
    """The anchors GitHub gives the headings of a Markdown file (a
    heading's code spans count: their text is part of the anchor)."""
    text = path.read_text()
    seen, found = {}, set()
    fenced = False
    for line in text.split("\n"):
        if FENCE_RE.match(line.lstrip()):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page):
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue        # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target}: no {dest.relative_to(REPO)}")
        elif anchor and dest.suffix == ".md" and \
                anchor not in anchors_of(dest):
            broken.append(f"{target}: no heading #{anchor} in "
                          f"{dest.relative_to(REPO)}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_readme_is_short():
    lines = len(README.read_text().split("\n")) - 1
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES}): move "
        "detail to a page of docs/ and link it")


def test_every_doc_page_is_linked_from_the_readme():
    linked = {(README.parent / t.partition("#")[0]).resolve()
              for t in links(README)}
    missing = [p.name for p in PAGES[1:] if p.resolve() not in linked]
    assert not missing, f"README.md links no docs/{', docs/'.join(missing)}"
