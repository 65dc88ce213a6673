"""The docs hold together: the README stays a short way in, every page under docs/ is on the site's menu
(mkdocs.yml), and every link between the pages, to a file or to one of its headings, lands somewhere."""

import re
from pathlib import Path

import yaml

from tests.support.stack import ROOT

DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *DOCS.glob("*.md")])
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def slugs(page: Path) -> set[str]:
    """Return the anchors of a page's headings, as GitHub and MkDocs both make them."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", FENCE.sub("", page.read_text()), re.M):
        text = re.sub(r"[^\w\s-]", "", heading).strip().lower()
        anchors |= {re.sub(r" ", "-", text), re.sub(r"[-\s]+", "-", text)}
    return anchors


def nav_pages(entries) -> set[str]:
    pages = set()
    for entry in entries:
        for value in entry.values():
            pages |= nav_pages(value) if isinstance(value, list) else {value}
    return pages


def test_the_readme_is_a_short_way_in():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def test_every_page_is_on_the_sites_menu():
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert nav_pages(site["nav"]) == {page.name for page in DOCS.glob("*.md")}


def test_every_link_between_the_pages_lands():
    broken = []
    for page in PAGES:
        for target in LINK.findall(FENCE.sub("", page.read_text())):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in slugs(linked):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken
