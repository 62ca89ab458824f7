"""Splits a C++ cell into the top-level pieces Cling takes one at a time.

Cling compiles a piece either as declarations or wrapped in a function as statements, so
a cell that mixes both (an #include, a struct, a function, then a loop that uses them)
must reach it piece by piece, as lines reach the cling prompt. A piece ends at a `;` or a
block's closing `}` outside any bracket, or is one preprocessor line (a whole `#if` ...
`#endif` with what it encloses); a `}` that an `else`, `catch`, `;`, an operator or
(after `struct`/`class`/`union`/`enum`/`typedef`) a declarator follows does not end it. Comments, string and character literals (raw ones
included) and digit separators are skipped over, so their brackets and quotes count for
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

_OPENING = "([{"
_CLOSING = ")]}"
# First words after which a closing brace may be followed by a declarator: `struct S {...} s;`.
_TYPE_DEFINITIONS = {"struct", "class", "union", "enum", "typedef"}
_RAW_STRING_PREFIXES = {"R", "u8R", "uR", "UR", "LR"}


@dataclass(frozen=True)
class Chunk:
    """A top-level piece of a cell and the (1-based) cell lines it spans."""

    text: str
    first_line: int
    last_line: int


class _Scanner:
    def __init__(self, code: str) -> None:
        self.code = code
        self.pos = 0

    def peek(self, offset: int = 0) -> str:
        at = self.pos + offset
        return self.code[at] if at < len(self.code) else ""

    def at_end(self) -> bool:
        return self.pos >= len(self.code)

    def skip_space_and_comments(self) -> None:
        while not self.at_end():
            if self.peek().isspace():
                self.pos += 1
            elif self.peek() == "/" and self.peek(1) == "/":
                self.skip_line()
            elif self.peek() == "/" and self.peek(1) == "*":
                end = self.code.find("*/", self.pos + 2)
                self.pos = len(self.code) if end < 0 else end + 2
            else:
                return

    def skip_line(self) -> None:
        """To the end of the line (its newline excluded), following backslash continuations."""
        while not self.at_end() and self.peek() != "\n":
            if self.peek() == "\\" and self.peek(1) == "\n":
                self.pos += 1
            self.pos += 1

    def skip_quoted(self, quote: str) -> None:
        self.pos += 1
        while not self.at_end() and self.peek() != quote and self.peek() != "\n":
            self.pos += 2 if self.peek() == "\\" else 1
        self.pos += 1

    def skip_raw_string(self) -> None:
        """From the opening quote of R"delim( ... )delim"."""
        open_paren = self.code.find("(", self.pos)
        if open_paren < 0:
            self.pos = len(self.code)
            return
        closing = ")" + self.code[self.pos + 1:open_paren] + '"'
        end = self.code.find(closing, open_paren)
        self.pos = len(self.code) if end < 0 else end + len(closing)

    def read_word(self) -> str:
        start = self.pos
        while not self.at_end() and (self.peek().isalnum() or self.peek() == "_"):
            self.pos += 1
        return self.code[start:self.pos]

    def skip_number(self) -> None:
        """A pp-number: digits, letters, dots, digit separators and exponent signs."""
        while not self.at_end():
            c = self.peek()
            if c.isalnum() or c in "._'":
                self.pos += 1
            elif c in "+-" and self.code[self.pos - 1] in "eEpP":
                self.pos += 1
            else:
                return

    def next_word(self) -> str:
        """The identifier that comes next (after space and comments), without consuming it."""
        saved = self.pos
        self.skip_space_and_comments()
        word = self.read_word()
        self.pos = saved
        return word

    def next_char(self) -> str:
        saved = self.pos
        self.skip_space_and_comments()
        c = self.peek()
        self.pos = saved
        return c


def split(code: str) -> list[Chunk]:
    """The cell's pieces in order; comments between pieces are left out."""
    scanner = _Scanner(code)
    chunks: list[Chunk] = []
    while True:
        scanner.skip_space_and_comments()
        if scanner.at_end():
            return chunks
        start = scanner.pos
        if scanner.peek() == "#":
            _scan_directive(scanner)
        else:
            _scan_statement(scanner)
        text = code[start:scanner.pos].rstrip()
        first_line = code.count("\n", 0, start) + 1
        chunks.append(Chunk(text, first_line, first_line + text.count("\n")))


def _directive_name(scanner: _Scanner) -> str:
    """The name of the directive at the scanner (at its `#`), without consuming it."""
    saved = scanner.pos
    scanner.pos += 1
    while scanner.peek() in (" ", "\t"):
        scanner.pos += 1
    name = scanner.read_word()
    scanner.pos = saved
    return name


def _scan_directive(scanner: _Scanner) -> None:
    """Advances past a preprocessor line, or a whole #if ... #endif with what it encloses."""
    depth = 0
    while True:
        name = _directive_name(scanner)
        if name in ("if", "ifdef", "ifndef"):
            depth += 1
        elif name == "endif":
            depth -= 1
        scanner.skip_line()
        if depth <= 0:
            return
        # Inside a conditional: on to its next directive, the lines between included.
        while True:
            scanner.skip_space_and_comments()
            if scanner.at_end() or (scanner.peek() == "#" and _at_line_start(scanner)):
                break
            scanner.skip_line()
        if scanner.at_end():
            return


def _at_line_start(scanner: _Scanner) -> bool:
    line_start = scanner.code.rfind("\n", 0, scanner.pos) + 1
    return not scanner.code[line_start:scanner.pos].strip()


def _scan_statement(scanner: _Scanner) -> None:
    """Advances past one top-level declaration or statement."""
    first_word = scanner.next_word()
    depth = 0
    while not scanner.at_end():
        c = scanner.peek()
        if c == "/" and scanner.peek(1) in ("/", "*"):
            scanner.skip_space_and_comments()
        elif c == '"':
            scanner.skip_quoted('"')
        elif c == "'":
            scanner.skip_quoted("'")
        elif c.isdigit():
            scanner.skip_number()
        elif c.isalpha() or c == "_":
            word = scanner.read_word()
            if word in _RAW_STRING_PREFIXES and scanner.peek() == '"':
                scanner.skip_raw_string()
        elif c in _OPENING:
            depth += 1
            scanner.pos += 1
        elif c in _CLOSING:
            depth = max(0, depth - 1)
            scanner.pos += 1
            if c == "}" and depth == 0 and _block_ends_statement(scanner, first_word):
                if scanner.next_char() == ";":
                    scanner.skip_space_and_comments()
                    scanner.pos += 1
                return
        elif c == ";" and depth == 0:
            scanner.pos += 1
            return
        else:
            scanner.pos += 1


def _block_ends_statement(scanner: _Scanner, first_word: str) -> bool:
    """Whether the top-level `}` just read ends the piece (with a `;` that may follow it)."""
    following = scanner.next_char()
    if following in ("", ";", "#"):
        return True
    word = scanner.next_word()
    if not word:
        return following == "{"  # an operator, a comma or a bracket goes on with the piece
    if word in ("else", "catch") or (word == "while" and first_word == "do"):
        return False
    return first_word not in _TYPE_DEFINITIONS
