"""The repository stands alone: nothing in it reads a folder beside the clone."""

import os
import subprocess
import sys
import re
from pathlib import Path

import pytest
from django.core.management import load_command_class

from tests.support.stack import ROOT

# A sibling folder reached as a relative path, or named as a path component ("shared" in a
# pathlib join, /shared/ in a path string).
SIBLING_REFERENCE = re.compile(r"\.\./shared\b|/\s*[\"']shared[\"']|[\"']shared[\"']\s*/|[/\\]shared[/\\]")
# Folders that are not the project's own files: version control, installed packages, run state.
NOT_THE_PROJECT = {".git", ".venv", "var", "node_modules", "__pycache__", ".pytest_cache", "test-artifacts",
                   "media", "staticfiles", os.path.join("tools", "neo4j", "lib")}


def sibling_references(*, root: Path, skip: Path | None = None) -> list[str]:
    """Return `path:line` for every line under root (but skip) that refers to a folder beside the repository."""
    found = []
    for folder, subfolders, files in os.walk(root):
        here = Path(folder).relative_to(root)
        subfolders[:] = sorted(name for name in subfolders
                               if name not in NOT_THE_PROJECT and str(here / name) not in NOT_THE_PROJECT)
        for name in sorted(files):
            if Path(folder) / name == skip:
                continue
            try:
                text = (Path(folder) / name).read_text()
            except UnicodeDecodeError:
                continue
            found += [f"{here / name}:{number}" for number, line in enumerate(text.splitlines(), 1)
                      if SIBLING_REFERENCE.search(line)]
    return found


def test_no_file_refers_to_a_folder_beside_the_repository():
    assert sibling_references(root=ROOT, skip=Path(__file__)) == []


@pytest.mark.parametrize("line", [
    'GOLD = ROOT.parent / "shared" / "benchmarks" / "gold.json"',
    "python manage.py bench_extraction --gold ../shared/benchmarks/poleo/poleo_gold.json",
    "See [the design](../shared/ARCHITECTURE.md).",
    "path = '/work/shared/fixtures/reference.json'",
])
def test_the_scan_finds_a_planted_reference(tmp_path, line):
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "module.py").write_text(f"ok = 1\n{line}\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "site.py").write_text(f"{line}\n")
    assert sibling_references(root=tmp_path) == ["memory/module.py:2"]


def test_shared_as_a_word_is_not_a_reference(tmp_path):
    (tmp_path / "tasks.py").write_text("from celery import shared_task\n# a graph shared by everyone\n"
                                       'VERBS = {"said", "shared", "wrote"}\n')
    assert sibling_references(root=tmp_path) == []


@pytest.mark.parametrize(("command", "option", "expected"), [
    ("bench_extraction", "gold", "data/poleo/poleo_gold.json"),
    ("bench_resolution", "gold", "data/poleo/poleo_resolution_gold.json"),
    ("bench_context_graph", "scenarios", "data/context_graph/scenarios.json"),
    ("bench_poisoning", "scenarios", "data/poisoning/scenarios.json"),
])
def test_the_benchmarks_read_the_repository_copy_by_default(command, option, expected):
    parser = load_command_class("memory", command).create_parser("manage.py", command)
    path = Path(vars(parser.parse_args([]))[option])
    assert path == ROOT / expected and path.is_file()


def test_a_fresh_clone_migrates_into_a_var_folder_it_does_not_have_yet(tmp_path):
    # `make run` against a Neo4j that already answers (or Aura) makes no var/ for Neo4j's store either.
    database = tmp_path / "var" / "portal.sqlite3"
    result = subprocess.run([sys.executable, "manage.py", "check", "--database", "default"], cwd=ROOT,
                            env={**os.environ, "DATABASE_URL": f"sqlite:///{database}"}, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-500:]
