"""The package's import graph: each layer imports only the layers below it, and no module imports itself back
through others. Ground (the vocabulary and settings) < data (records, the store) < analysis (claims judged
too) < run (engines, the executor, experiments, the cost model) < study.py (the names the chapters use) <
chapters/page (what the chapters show alike: tables, figures, claims) < chapters (a module per notebook, the
article); the kernels and the command line sit on top. An import by name (importlib.import_module,
__import__) counts as an import: a module that imports by name imports every allocorpool module its strings
name. Every module keeps to 500 lines and every function to 80. The object a notebook holds (run.sweep.Sweep)
keeps to 15 public methods, and no class extends more than one of the package's classes."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "allocorpool"
GROUND = {"lists", "profiles", "effects", "settings", "paths", "machine", "collectors", "kinds"}
MODULE_LINES, FUNCTION_LINES = 500, 80
RANK = {"ground": 0, "data": 1, "analysis": 2, "run": 3, "study": 4, "page": 5, "chapters": 6, "top": 7}


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
    if first == "chapters" and len(parts) > 2 and parts[2] == "page":
        return "page"
    return first if first in RANK else "top"


def imports(name, path, known, source=None):
    """Every allocorpool module `name` imports, at any depth of its code (a function's import counts too), by
    an import statement or by name (see by_name)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text() if source is None else source)
    found = by_name(tree, known)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.startswith("allocorpool"):
                found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("allocorpool")}
    return found - {name}


def by_name(tree, known):
    """The modules a module imports by name: where it calls importlib.import_module or __import__ (with a string
    or not), every allocorpool module a string of its code names ("allocorpool.run.runner", or
    "allocorpool.run.runner:Cell")."""
    def importer(call):
        func = call.func
        return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
            isinstance(func, ast.Name) and func.id in ("import_module", "__import__"))
    if not any(isinstance(node, ast.Call) and importer(node) for node in ast.walk(tree)):
        return set()
    strings = {node.value.partition(":")[0] for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    return {text for text in strings if text.startswith("allocorpool") and text in known}


def graph(sources=None):
    """Each module's imports of the package's modules; sources: a module's code to read instead of its file's."""
    known, sources = modules(), sources or {}
    return {name: {m for m in imports(name, path, known, sources.get(name)) if m in known}
            for name, path in known.items()}


def reaching(edges, below, above):
    """The imports from a module of layer `below` to one of the layers `above`."""
    return sorted(f"{a} -> {b}" for a, targets in edges.items() if layer(a) == below
                  for b in targets if layer(b) in above)


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
    assert layer("allocorpool.chapters.page.tables") == "page" and layer("allocorpool.chapters.page") == "page"
    assert layer("allocorpool.chapters.batch") == "chapters" and layer("allocorpool.analysis.claims") == "analysis"


def test_the_page_imports_no_chapter_module():
    """chapters/page is what every chapter shows alike: it imports no chapter module (the chapters import it)."""
    assert reaching(graph(), "page", {"chapters"}) == []


def test_analysis_imports_nothing_from_chapters_run_or_study():
    """Claims are judged in analysis (analysis.claims) on the ground's vocabulary: nothing of the layers that
    show them (chapters, their page), run them (run) or name them for the chapters (study.py)."""
    assert reaching(graph(), "analysis", {"page", "chapters", "run", "study"}) == []


def test_the_checks_see_a_page_importing_a_chapter_and_analysis_importing_the_page():
    """The two checks above read the code: a page module importing a chapter module, or the claims' judging
    importing how claims are shown, fails them."""
    page = "from allocorpool.chapters import batch\n"
    assert reaching(graph({"allocorpool.chapters.page.tables": page}), "page", {"chapters"}) == [
        "allocorpool.chapters.page.tables -> allocorpool.chapters.batch"]
    judging = "from allocorpool.chapters.page.claims import show_claims\nfrom allocorpool import study\n"
    above = {"page", "chapters", "run", "study"}
    assert reaching(graph({"allocorpool.analysis.claims": judging}), "analysis", above) == [
        "allocorpool.analysis.claims -> allocorpool.chapters.page.claims",
        "allocorpool.analysis.claims -> allocorpool.study"]


def test_the_check_sees_an_import_by_name():
    """A data module that loads a run module by name (as the store once loaded its cell classes) runs up the
    layers; so does __import__ of a constant; a string alone, without an import by name, is no import."""
    known = modules()
    store = known["allocorpool.data.store"]
    by_table = 'import importlib\nKINDS = {"engine": "allocorpool.run.runner:Cell"}\n' \
               'def load(kind):\n    module, _, name = KINDS[kind].partition(":")\n' \
               '    return getattr(importlib.import_module(module), name)\n'
    assert "allocorpool.run.runner" in imports("allocorpool.data.store", store, known, by_table)
    dunder = 'def load():\n    return __import__("allocorpool.chapters.batch")\n'
    assert imports("allocorpool.data.store", store, known, dunder) == {"allocorpool.chapters.batch"}
    assert imports("allocorpool.data.store", store, known, 'NAME = "allocorpool.run.runner"\n') == set()


def sizes(source):
    """The module's length in lines and each function's (its def to its last line, decorators left out)."""
    tree = ast.parse(source)
    functions = {f"{node.name} (line {node.lineno})": node.end_lineno - node.lineno + 1 for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    return len(source.splitlines()), functions


def test_no_module_over_500_lines_and_no_function_over_80():
    long_modules, long_functions = [], []
    for name, path in sorted(modules().items()):
        lines, functions = sizes(path.read_text())
        if lines > MODULE_LINES:
            long_modules.append(f"{name}: {lines} lines")
        long_functions += [f"{name}.{function}: {n} lines" for function, n in functions.items() if n > FUNCTION_LINES]
    assert long_modules == [] and long_functions == []


def test_the_size_check_counts_lines():
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    lines, functions = sizes(f"def long():\n{body}\n\ndef short():\n    return 1\n")
    assert lines == 85 and functions == {"long (line 1)": 81, "short (line 84)": 2}


def public_methods(source, name):
    """The public methods (and properties) of class `name` in source: each def of its body whose name does
    not start with an underscore."""
    tree = ast.parse(source)
    found = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name]
    assert len(found) == 1, f"one class {name}"
    return sorted(node.name for node in found[0].body
                  if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"))


def project_bases(sources):
    """Each class of the package (sources: module name -> code) with its bases that are classes of the package
    too, by name; only classes with more than one such base."""
    trees = {name: ast.parse(source) for name, source in sources.items()}
    ours = {node.name for tree in trees.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}

    def base_name(base):
        base = base.value if isinstance(base, ast.Subscript) else base  # Generic[T] and the like
        return base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
    many = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = [b for b in map(base_name, node.bases) if b in ours]
                if len(bases) > 1:
                    many[f"{module}.{node.name}"] = bases
    return many


def test_what_a_notebook_holds_has_at_most_15_public_methods():
    """The Sweep a notebook holds chooses the solutions shown and ends the chapter; what a chapter measures is
    a function of run.experiments it calls with sweep.executor, not a method of the sweep."""
    held = public_methods(modules()["allocorpool.run.sweep"].read_text(), "Sweep")
    assert 0 < len(held) <= 15, held
    echo = public_methods(modules()["allocorpool.run.experiments.event_echo"].read_text(), "EchoSweep")
    assert len(echo) <= 15, echo  # what chapter 11 holds


def test_no_class_inherits_from_more_than_one_project_class():
    """Composition, not a hierarchy of mixins: a class of the package extends at most one other of its classes."""
    assert project_bases({name: path.read_text() for name, path in modules().items()}) == {}


def test_the_class_checks_see_a_sixteenth_method_and_a_mixin():
    """The two checks above read the code: a sweep of 16 public methods, or a class built of two of the
    package's classes, fails them."""
    fat = "class Sweep:\n" + "".join(f"    def m{i}(self):\n        pass\n" for i in range(16)) + \
          "    def _own(self):\n        pass\n"
    assert len(public_methods(fat, "Sweep")) == 16
    mixins = {"allocorpool.run.a": "class Executor:\n    pass\nclass Heap(Executor):\n    pass\n",
              "allocorpool.run.b": "from allocorpool.run import a\nclass Jdks(a.Executor):\n    pass\n"
                                   "class Sweep(a.Heap, Jdks, object):\n    pass\n"}
    assert project_bases(mixins) == {"allocorpool.run.b.Sweep": ["Heap", "Jdks"]}
