"""Every relative link in the Markdown docs names a file that exists, and every ``#anchor`` a
heading of the file it points to (GitHub's heading ids)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    ROOT / "clients/python/README.md",
    ROOT / "clients/node/README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
]
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.M)


def heading_ids(markdown: str) -> set[str]:
    """The ids GitHub gives the headings: lower case, punctuation dropped, spaces to ``-``,
    ``-1``, ``-2`` ... after repeats."""
    ids: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", markdown)):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        repeat = seen.get(slug, 0)
        seen[slug] = repeat + 1
        ids.add(slug if repeat == 0 else f"{slug}-{repeat}")
    return ids


def test_heading_ids_follow_github() -> None:
    text = "# A course served over TLS: `cardarena up`, or by hand\n## Losing a match's lease\n## Tests\n## Tests\n"
    assert heading_ids(text) == {
        "a-course-served-over-tls-cardarena-up-or-by-hand",
        "losing-a-matchs-lease",
        "tests",
        "tests-1",
    }


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(doc: Path) -> None:
    broken = []
    for target in LINK.findall(FENCE.sub("", doc.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (doc.parent / path).resolve() if path else doc
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in heading_ids(linked.read_text()):
            broken.append(f"{target}: no heading #{anchor}")
    assert not broken, broken
