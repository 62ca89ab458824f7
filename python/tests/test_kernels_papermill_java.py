"""papermill's Java parameters: the translator's output and its registration."""

import nbformat
from papermill.translators import papermill_translators

from allocorpool.kernels.papermill_java import JavaTranslator


def test_papermill_finds_it_for_java_notebooks():
    # Registered through the package's papermill.engine entry point, by importing papermill alone.
    assert papermill_translators.find_translator("java17-g1", "java") is JavaTranslator


def test_parameters_become_jshell_declarations():
    code = JavaTranslator.codify({
        "caseName": "A",
        "packets": 200_000,
        "big": 2**40,
        "scale": 0.05,
        "verbose": True,
        "nothing": None,
    })
    assert code.splitlines() == [
        "// Parameters",
        'var caseName = "A";',
        "var packets = 200000;",
        "var big = 1099511627776L;",
        "var scale = 0.05;",
        "var verbose = true;",
        "Object nothing = null;",
    ]


def test_strings_are_java_literals():
    assert JavaTranslator.translate('say "hi"\\\n\t') == r'"say \"hi\"\\\n\t"'
    assert JavaTranslator.translate("é😀") == r'"\u00e9\ud83d\ude00"'


def test_special_floats():
    assert JavaTranslator.translate(float("nan")) == "Double.NaN"
    assert JavaTranslator.translate(float("-inf")) == "Double.NEGATIVE_INFINITY"
    assert JavaTranslator.translate(1e-07) == "1e-07"


def test_lists_and_dicts():
    assert JavaTranslator.translate(["a", 1, None]) == 'java.util.Arrays.asList("a", 1, null)'
    assert JavaTranslator.translate({"x": 1, "y": None}) == (
        'java.util.stream.Stream.of(new Object[][] {{"x", 1}, {"y", null}}).collect('
        "java.util.LinkedHashMap<String, Object>::new, (m, e) -> m.put((String) e[0], e[1]), "
        "java.util.Map::putAll)")


def test_inspect_reads_the_parameters_cell():
    cell = nbformat.v4.new_code_cell(
        'String caseName = "A";  // the case\n'
        "double scale = 0.02;\n"
        "final int packets = 1_000;\n"
        "java.util.List<String> names = java.util.List.of(\"a\");\n"
        "System.out.println(scale);\n")
    parameters = JavaTranslator.inspect(cell)
    assert [(p.name, p.inferred_type_name, p.default, p.help) for p in parameters] == [
        ("caseName", "String", '"A"', "the case"),
        ("scale", "double", "0.02", ""),
        ("packets", "int", "1_000", ""),
        ("names", "java.util.List<String>", 'java.util.List.of("a")', ""),
    ]
