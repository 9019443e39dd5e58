"""The project's own code checks, run as part of the test suite (so the README's one test
command and CI run them): ruff, mypy (strict for spark_mq.mq and spark_mq.mqi) and the
import-linter layer contracts, all configured in pyproject.toml; and no import cycles
inside the embedded queue manager's server package, which import-linter does not check."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import PROJECT_ROOT

BIN = os.path.dirname(sys.executable)
SERVER = "spark_mq.embedded.server"


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([os.path.join(BIN, tool), *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("tool, args", [
    ("ruff", ("check", "src", "tests", "bench", "jobs", "examples", "mkdocs_hooks.py")),
    ("mypy", ()),
    ("lint-imports", ()),
], ids=["ruff", "mypy", "import-linter"])
def test_code_check_passes(tool, args):
    done = run(tool, *args)
    assert done.returncode == 0, f"{tool} failed:\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"


# --- import cycles in the server package ---------------------------------------------------
def package_modules(package: str) -> dict[str, Path]:
    """Every module of `package` (under src/), by dotted name; a package is its __init__.py."""
    root = Path(PROJECT_ROOT, "src", *package.split("."))
    modules = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join((package, *parts))] = path
    return modules


def imported_modules(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules among `modules` that `module` imports, with any import statement anywhere in
    it: at the top, under TYPE_CHECKING or inside a function (an import put off to run time
    still needs the other module, so it is as much a cycle)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, path.name == "__init__.py", node.module, node.level)
            # `from package import name`: name is a submodule, or something the package defines
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                     for alias in node.names]
        else:
            continue
        found.update(name for name in names if name in modules and name != module)
    return found


def _absolute(module: str, is_package: bool, name: str | None, level: int) -> str:
    """The module a `from` import names, relative (`from .x import y`) or not."""
    if not level:
        return name or ""
    parts = module.split(".")
    # relative to the package the module is in; a package's __init__ is in the package itself
    parts = parts[:len(parts) - level + is_package]
    return ".".join([*parts, name] if name else parts)


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that import each other, directly or not (the strongly connected
    components of more than one module)."""
    reachable = {module: _reachable(graph, module) for module in graph}
    groups: list[set[str]] = []
    for module in sorted(graph):
        if module in reachable[module] and not any(module in group for group in groups):
            groups.append({other for other in reachable[module] if module in reachable[other]})
    return groups


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    pending = list(graph[start])
    while pending:
        module = pending.pop()
        if module not in seen:
            seen.add(module)
            pending.extend(graph[module])
    return seen


def test_cycle_check_finds_cycles_and_resolves_relative_imports():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    assert _absolute("p.q.m", False, "x", 1) == "p.q.x"
    assert _absolute("p.q", True, None, 1) == "p.q"
    assert _absolute("p.q.m", False, None, 2) == "p"


def test_server_package_has_no_import_cycles():
    """Each module of the server builds on modules below it: a cycle would mean two modules
    that can only be understood (and imported) together."""
    modules = package_modules(SERVER)
    graph = {module: imported_modules(module, path, modules) for module, path in modules.items()}
    assert graph.get(f"{SERVER}.verbs.qmgr"), "the server package's modules were not found"
    found = [_describe(group, graph) for group in cycles(graph)]
    if found:
        pytest.fail(f"import cycles in {SERVER}:\n" + "\n\n".join(found), pytrace=False)


def _describe(group: set[str], graph: dict[str, set[str]]) -> str:
    """Each module of a cycle, with the modules of the cycle it imports."""
    def short(module: str) -> str:
        return module.removeprefix(f"{SERVER}.")
    return "\n".join(f"  {short(module)} imports {', '.join(sorted(map(short, graph[module] & group)))}"
                     for module in sorted(group))


# --- private names stay in their module ----------------------------------------------------
def private_reach_ins(path: Path) -> list[str]:
    """Where a module takes another module's private name: `from m import _x`, or `m._x` on a
    module it imported (a name that starts with one underscore is its module's own), or
    imports a package's __main__ (a program, not a library: what two programs share has a
    module of its own)."""
    tree = ast.parse(path.read_text(), str(path))
    imported: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("spark_mq"):
            imported.update(alias.asname or alias.name for alias in node.names)
            found += [f"{path.name}:{node.lineno}: from {node.module} import {alias.name}"
                      for alias in node.names if _private(alias.name) or alias.name == "__main__"
                      or (node.module or "").endswith(".__main__")]
        elif isinstance(node, ast.Import):
            imported.update((alias.asname or alias.name).split(".")[0] for alias in node.names
                            if alias.name.startswith("spark_mq"))
    found += [f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}" for node in ast.walk(tree)
              if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id in imported and _private(node.attr)]
    return sorted(found, key=lambda where: int(where.split(":")[1]))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_private_check_finds_both_kinds(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from spark_mq.x import _hidden, shown\nfrom spark_mq import y\n"
                      "y._inner()\nshown._field\nself._own\nfrom spark_mq.z import __main__\n")
    assert private_reach_ins(module) == ["m.py:1: from spark_mq.x import _hidden",
                                         "m.py:3: y._inner", "m.py:4: shown._field",
                                         "m.py:6: from spark_mq.z import __main__"]


def test_no_module_takes_another_modules_private_names():
    paths = sorted(Path(PROJECT_ROOT, "src").rglob("*.py"))
    assert len(paths) > 100
    assert [where for path in paths for where in private_reach_ins(path)] == []
