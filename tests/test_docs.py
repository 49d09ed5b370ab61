"""The documentation's links resolve: every relative ``](path)`` and ``](path#anchor)`` in README.md,
CHANGELOG.md and docs/*.md names a file that exists and, with an anchor, a heading of that file.

Anchors are GitHub's: the heading's text in lower case, code marks and punctuation dropped, spaces
turned into hyphens, ``-1``, ``-2``, ... added to repeated ones. Links and headings inside fenced code
blocks are not links and headings, so they are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading's text (without the repeat suffix)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays, its target goes
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor the headings of ``path`` define."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose_lines(path.read_text()):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match[2])
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    """The relative link targets of ``path``: no web address, no code span."""
    targets = []
    for line in prose_lines(path.read_text()):
        line = re.sub(r"`[^`]*`", "", line)
        targets += [t for t in LINK.findall(line) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    return targets


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if ROOT in path.parents else str(path)


def broken(path: Path) -> list[str]:
    """The links of ``path`` that do not resolve, each with why."""
    bad = []
    for target in links(path):
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists():
            bad.append(f"{target}: no file {shown(resolved)}")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            bad.append(f"{target}: no heading with anchor #{anchor} in {shown(resolved)}")
    return bad


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(path):
    assert broken(path) == []


def test_a_broken_link_is_caught(tmp_path):
    (tmp_path / "other.md").write_text(
        "# Other page\n\n## Two cores, and the host tree's `cache`\n\n## Again\n\n## Again\n"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "See [it](other.md#two-cores-and-the-host-trees-cache), [the second](other.md#again-1),\n"
        "[a web page](https://example.org/x), `[code](nowhere.md)` and [here](#top).\n\n# Top\n\n"
        "```bash\n# not a heading [x](missing.md)\n```\n"
        "[gone](missing.md), [no anchor](other.md#again-2), [no heading](#bottom)\n"
    )
    assert [b.split(":")[0] for b in broken(page)] == ["missing.md", "other.md#again-2", "#bottom"]


def test_the_docs_index_lists_every_guide():
    """docs/index.md links every page of docs/, so none is orphaned."""
    index = ROOT / "docs" / "index.md"
    listed = {(index.parent / t.partition("#")[0]).resolve() for t in links(index)}
    pages = {p.resolve() for p in (ROOT / "docs").glob("*.md") if p.name != "index.md"}
    assert pages - listed == set()
