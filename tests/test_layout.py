"""The imports form a tree: portal <- memory <- {knowledge, governance, review, agents_mcp}.

memory imports none of the other apps; knowledge, governance and review never import each other; and
portal's shared modules import no app at all (its wiring, the URLconf, admin site, settings and
management commands, may). Parsed with `ast`, so an import inside a function counts too.
"""

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("portal", "memory", "knowledge", "governance", "review", "agents_mcp")
# What each app may import, besides itself.
ALLOWED = {
    "portal": set(),
    "memory": {"portal"},
    "knowledge": {"portal", "memory"},
    "governance": {"portal", "memory"},
    "review": {"portal", "memory"},
    "agents_mcp": {"portal", "memory"},
}
# portal's wiring: the modules that put the apps together.
PORTAL_WIRING = ("portal/urls.py", "portal/admin_site.py", "portal/settings.py", "portal/management/")


def _imported_apps(path: Path) -> set[tuple[str, int]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found |= {(name.split(".")[0], node.lineno) for name in names if name.split(".")[0] in APPS}
    return found


def _imports() -> dict[str, list[tuple[str, str]]]:
    """Return, per app, the (app imported, "file:line") pairs of its modules (migrations excluded)."""
    by_app = defaultdict(list)
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative:
                continue
            if app == "portal" and relative.startswith(PORTAL_WIRING):
                continue
            for imported, line in _imported_apps(path):
                if imported != app:
                    by_app[app].append((imported, f"{relative}:{line}"))
    return by_app


def _edges() -> dict[str, set[str]]:
    return {app: {imported for imported, _ in pairs} for app, pairs in _imports().items()}


def test_no_two_apps_import_each_other():
    edges = _edges()
    pairs = {tuple(sorted((a, b))) for a, targets in edges.items() for b in targets if a in edges.get(b, set())}
    assert pairs == set()


def test_governance_and_review_never_import_each_other():
    between = [where for app, other in (("governance", "review"), ("review", "governance"))
               for imported, where in _imports()[app] if imported == other]
    assert between == []


def test_portal_shared_modules_import_no_app():
    assert _imports()["portal"] == []


def test_every_app_imports_only_what_is_below_it():
    wrong = [f"{where} imports {imported}" for app, pairs in _imports().items() for imported, where in pairs
             if imported not in ALLOWED[app]]
    assert wrong == []


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\n\n\ndef f():\n    from review import services\n")
    assert _imported_apps(module) == {("review", 5)}
