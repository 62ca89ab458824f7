"""The package's import graph: each layer imports only the layers below it, and no module imports itself back
through others. Ground (the vocabulary and settings) < data (records, the store) < analysis < run (engines,
the executor, experiments, the cost model) < study.py (the names the chapters use) < chapters; the kernels and
the command line sit on top."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "allocorpool"
GROUND = {"lists", "profiles", "effects", "settings", "paths", "machine", "collectors"}
RANK = {"ground": 0, "data": 1, "analysis": 2, "run": 3, "study": 4, "chapters": 5, "top": 6}


def modules():
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def layer(name):
    parts = name.split(".")
    if len(parts) == 1:
        return "top"  # the package itself
    first = parts[1]
    if first == "study":
        return "study"
    if first in GROUND:
        return "ground"
    return first if first in RANK else "top"


def imports(name, path, known):
    """Every allocorpool module `name` imports, at any depth of its code (a function's import counts too)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.startswith("allocorpool"):
                found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("allocorpool")}
    return found - {name}


def graph():
    known = modules()
    return {name: {m for m in imports(name, path, known) if m in known} for name, path in known.items()}


def test_no_layer_imports_a_layer_above_it():
    upward = sorted(f"{a} -> {b}" for a, targets in graph().items() for b in targets
                    if RANK[layer(b)] > RANK[layer(a)] and layer(a) != "top")
    assert upward == []


def test_no_import_circle():
    edges = graph()
    state, circles = {}, []

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                circles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for name in sorted(edges):
        if name not in state:
            visit(name, [])
    assert circles == []


def test_the_check_sees_an_upward_import():
    """The graph is read from the code: the store's module imports from data only, the chapters from run."""
    edges = graph()
    assert "allocorpool.run.sweep" in edges["allocorpool.chapters.decision"]
    assert any(layer(b) == "ground" for b in edges["allocorpool.data.store"])
    assert layer("allocorpool.collectors") == "ground" and layer("allocorpool.run.cost") == "run"
