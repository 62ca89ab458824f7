"""The C++ kernel's cell splitter: one piece per top-level declaration or statement."""

from allocorpool.kernels.cpp_chunks import split


def texts(code: str) -> list[str]:
    return [chunk.text for chunk in split(code)]


def test_declarations_and_statements_come_apart():
    code = (
        "#include <vector>\n"
        "struct Foo { int x = 3; };\n"
        "int add(int a, int b) {\n"
        "    return a + b;\n"
        "}\n"
        "std::vector<int> v{1, 2};\n"
        "for (int i : v) { total += add(i, 1); }\n"
        "total\n"
    )
    assert texts(code) == [
        "#include <vector>",
        "struct Foo { int x = 3; };",
        "int add(int a, int b) {\n    return a + b;\n}",
        "std::vector<int> v{1, 2};",
        "for (int i : v) { total += add(i, 1); }",
        "total",
    ]


def test_line_numbers_are_the_cells():
    chunks = split("// a comment\n\nint a = 1;\nint f() {\n  return a;\n}\n")
    assert [(c.first_line, c.last_line) for c in chunks] == [(3, 3), (4, 6)]


def test_a_closing_brace_that_does_not_end_the_statement():
    code = (
        "if (x) { a(); } else { b(); }\n"
        "do { x++; } while (x < 3);\n"
        "try { f(); } catch (...) { g(); }\n"
        "struct S { int a; } s1, s2;\n"
        "auto r = [](int q) { return q; }(3);\n"
        "auto l = [](int q) { return q; };\n"
        "namespace ns { int z; }\n"
        "enum class E { A, B };\n"
    )
    assert texts(code) == [
        "if (x) { a(); } else { b(); }",
        "do { x++; } while (x < 3);",
        "try { f(); } catch (...) { g(); }",
        "struct S { int a; } s1, s2;",
        "auto r = [](int q) { return q; }(3);",
        "auto l = [](int q) { return q; };",
        "namespace ns { int z; }",
        "enum class E { A, B };",
    ]


def test_literals_and_comments_hide_their_brackets():
    code = (
        "int big = 1'000'000; char c = '}';\n"
        'const char* s = "{;";\n'
        'const char* raw = R"x(a ")}" b)x";\n'
        "int f() { /* } */ return 1; // }\n"
        "}\n"
    )
    assert texts(code) == [
        "int big = 1'000'000;",
        "char c = '}';",
        'const char* s = "{;";',
        'const char* raw = R"x(a ")}" b)x";',
        "int f() { /* } */ return 1; // }\n}",
    ]


def test_a_conditional_block_is_one_piece():
    code = "#ifdef __OPTIMIZE__\nint level = 2;\n#  if 0\nnever\n#  endif\n#else\nint level = 0;\n#endif\nlevel\n"
    assert texts(code) == [
        "#ifdef __OPTIMIZE__\nint level = 2;\n#  if 0\nnever\n#  endif\n#else\nint level = 0;\n#endif",
        "level",
    ]


def test_only_comments_is_nothing():
    assert split("// nothing\n/* at all */\n") == []
