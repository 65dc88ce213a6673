"""The code's shape, held as tests, with no exemption: a tree of apps, no circle of imports, short functions and
files, no block written twice, one way to read the graph, test helpers in testing modules (tests/support/, or a
helper module of their own).

The imports form a tree: portal <- memory <- {knowledge, governance, review, agents_mcp} <- wiring. portal
imports no app at all; memory imports none of the other apps; knowledge, governance, review and agents_mcp never
import each other, and reach memory through its public modules (never its Cypher or its worker's internals); the
wiring (settings, URLconf, Celery app, admin site, cross-app commands) may import any, and none imports it.
Parsed with `ast`, so an import inside a function counts too.
"""

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("portal", "memory", "knowledge", "governance", "review", "agents_mcp", "wiring")
# What each app may import, besides itself.
ALLOWED = {
    "portal": set(),
    "memory": {"portal"},
    "knowledge": {"portal", "memory"},
    "governance": {"portal", "memory"},
    "review": {"portal", "memory"},
    "agents_mcp": {"portal", "memory"},
    "wiring": {"portal", "memory", "knowledge", "governance", "review", "agents_mcp"},
}
# Memory's own insides, which the apps standing on it never import: its Cypher and the worker's steps.
MEMORY_INTERNALS = ("memory.cypher", "memory.ingest", "memory.extraction", "memory.resolution")
# Every Python file of the repository and the package each is importable under (the client's lives in src/).
SOURCE_ROOTS = {ROOT: (*APPS, "tools", "tests"), ROOT / "clients" / "python" / "src": ("memory_portal",)}
ROOT_FILES = ("manage.py", "gunicorn.conf.py")
FUNCTION_MAX_LINES = 50
FILE_MAX_LINES = 600
REPEATED_LINES = 6


def _python_files(*, tests: bool = True) -> list[Path]:
    """Return every Python file that is code (migrations are generated), the tests' too unless `tests` is off."""
    files = [ROOT / name for name in ROOT_FILES]
    for root, packages in SOURCE_ROOTS.items():
        files += [path for package in packages if tests or package != "tests" for path in (root / package).rglob("*.py")]
    return sorted(path for path in files if "/migrations/" not in path.as_posix())


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _imported_modules(path: Path, package: str) -> list[tuple[str, int]]:
    """Return the dotted names a file imports, with their line: `from a import b` names a.b (a module, or a name
    defined in a)."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return found


def _imported_apps(path: Path) -> set[tuple[str, int]]:
    return {(name.split(".")[0], line) for name, line in _imported_modules(path, "")
            if name.split(".")[0] in APPS}


def _imports() -> dict[str, list[tuple[str, str]]]:
    """Return, per app, the (app imported, "file:line") pairs of its modules (migrations excluded)."""
    by_app = defaultdict(list)
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative:
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


def test_portal_imports_no_app():
    assert _imports()["portal"] == []


def test_every_app_imports_only_what_is_below_it():
    wrong = [f"{where} imports {imported}" for app, pairs in _imports().items() for imported, where in pairs
             if imported not in ALLOWED[app]]
    assert wrong == []


def test_the_apps_on_memory_never_reach_into_its_cypher_or_its_worker():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {name}" for app in ("knowledge", "governance", "review")
             for path in (ROOT / app).rglob("*.py") for name, line in _imported_modules(path, "")
             if name.startswith(MEMORY_INTERNALS)]
    assert wrong == []


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\n\n\ndef f():\n    from review import services\n")
    assert _imported_apps(module) == {("review", 5)}


# --- no circle of imports, between files too ----------------------------------------------------

def _modules() -> dict[str, Path]:
    """Return every importable module by its dotted name."""
    found = {}
    for root, packages in SOURCE_ROOTS.items():
        for package in packages:
            for path in (root / package).rglob("*.py"):
                parts = path.relative_to(root).with_suffix("").parts
                found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _module_graph() -> dict[str, set[str]]:
    """Return which module imports which: `from a import b` is an import of module a.b when there is one, else of
    a (a package's `__init__` counts as the package; what importing a submodule runs of its package does not)."""
    modules = _modules()
    graph = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for imported, _ in _imported_modules(path, package):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                graph[name].add(imported)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, circles = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while not group or group[-1] != node:
                        group.append(stack.pop())
                        on_stack.discard(group[-1])
                    if len(group) > 1:
                        circles.append(sorted(group))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph.get(target, ())))))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
    return circles


def test_no_module_imports_itself_through_others():
    assert _circles(_module_graph()) == []


def test_the_circle_check_sees_a_circle_of_three():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# --- short functions, short files, nothing written twice -----------------------------------------------

def test_no_production_function_is_longer_than_fifty_lines():
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in _python_files(tests=False) for node in ast.walk(_tree(path))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > FUNCTION_MAX_LINES]
    assert long == []


def test_no_file_is_longer_than_six_hundred_lines():
    long = [f"{path.relative_to(ROOT)} ({n} lines)" for path in _python_files()
            if (n := len(path.read_text().splitlines())) > FILE_MAX_LINES]
    assert long == []


def _repeated_blocks(files: list[Path]) -> list[str]:
    """Return the places where six or more lines (stripped of their indent, blank lines left out) stand again."""
    seen: dict[tuple[str, ...], str] = {}
    repeated = []
    for path in files:
        lines = [(number, line.strip()) for number, line in enumerate(path.read_text().splitlines(), 1)
                 if line.strip()]
        for start in range(len(lines) - REPEATED_LINES + 1):
            window = tuple(text for _, text in lines[start:start + REPEATED_LINES])
            if sum(len(re.sub(r"\W", "", text)) for text in window) < 40:
                continue  # closing brackets and the like: no logic to share
            where = f"{path.relative_to(ROOT)}:{lines[start][0]}"
            if window in seen:
                repeated.append(f"{where} repeats {seen[window]}")
            else:
                seen[window] = where
    return repeated


def test_no_block_of_six_lines_is_written_twice():
    assert _repeated_blocks(_python_files()) == []


def test_the_repeat_check_sees_a_block_written_again_with_another_indent(tmp_path):
    block = "".join(f"value_{n} = compute({n}, 'x')\n" for n in range(6))
    (tmp_path / "a.py").write_text(block)
    (tmp_path / "b.py").write_text("def f():\n" + "".join("    " + line + "\n" for line in block.splitlines()))
    global ROOT
    real, ROOT = ROOT, tmp_path
    try:
        assert _repeated_blocks([tmp_path / "a.py", tmp_path / "b.py"]) == ["b.py:2 repeats a.py:1"]
    finally:
        ROOT = real


# --- one reader of the graph; test helpers in testing modules ------------------------------------------

def test_only_portal_graphdb_talks_to_neo4j_directly():
    direct = re.compile(r"\bcypher_query\(|\.session\(|\bdriver\.")
    found = [f"{path.relative_to(ROOT)}:{number}" for path in _python_files(tests=False)
             # tools/ runs outside the portal (the NAM fixture writer has a venv and a Neo4j of its own)
             if path.relative_to(ROOT).parts[0] in APPS and path != ROOT / "portal" / "graphdb.py"
             for number, line in enumerate(path.read_text().splitlines(), 1) if direct.search(line)]
    assert found == []


def test_tests_import_helpers_from_testing_modules_never_from_other_tests():
    modules = _modules()
    wrong = []
    for path in (ROOT / "tests").rglob("*.py"):
        for name, line in _imported_modules(path, "tests"):
            while name and name not in modules:
                name = name.rpartition(".")[0]
            imported = modules.get(name)
            if imported is not None and (imported.name.startswith("test_") or imported.name == "conftest.py"):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert wrong == []
