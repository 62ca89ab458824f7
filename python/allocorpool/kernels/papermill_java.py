"""papermill parameters for Java notebooks (JJava kernels): a translator for language "java".

papermill ships no Java translator and has no entry point group for translators; it does
load every "papermill.engine" entry point when it is imported. Our package registers
JavaEngine there (python/pyproject.toml), so importing papermill imports this module, and
this module registers JavaTranslator: `papermill -p name value` then works on a Java
notebook with nothing else to do.

Injected parameters are JShell declarations, which replace the parameters cell's own:
`var name = value;` with int (long past 32 bits), double, boolean and String literals,
java.util.List for lists and java.util.Map (keys in order) for dicts; None becomes
`Object name = null;` since `var` cannot take null.
"""

from __future__ import annotations

import math
import re

from papermill.engines import NBClientEngine
from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

_INT_RANGE = range(-(2**31), 2**31)
# A parameters-cell line: `[final] Type name = value; // help`.
_DECLARATION = re.compile(
    r"^\s*(?:final\s+)?(?P<type>[\w.]+(?:<[\w.<>, ?]*>)?(?:\[\])*)\s+(?P<name>\w+)\s*=\s*(?P<value>.*?);"
    r"\s*(?://\s*(?P<help>.*))?$")


class JavaTranslator(Translator):
    @classmethod
    def translate_str(cls, val: str) -> str:
        escaped = []
        for char in val:
            code = ord(char)
            if char in '"\\':
                escaped.append("\\" + char)
            elif char in "\n\r\t\b\f":
                escaped.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}[char])
            elif 0x20 <= code < 0x7F:
                escaped.append(char)
            else:
                # Java strings are UTF-16: outside the BMP, a surrogate pair.
                units = char.encode("utf-16-be")
                escaped.extend(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
        return '"' + "".join(escaped) + '"'

    @classmethod
    def translate_escaped_str(cls, str_val: object) -> str:
        return cls.translate_str(str(str_val))

    @classmethod
    def translate_none(cls, val: None) -> str:
        return "null"

    @classmethod
    def translate_int(cls, val: int) -> str:
        return str(val) if val in _INT_RANGE else f"{val}L"

    @classmethod
    def translate_float(cls, val: float) -> str:
        if math.isnan(val):
            return "Double.NaN"
        if math.isinf(val):
            return "Double.POSITIVE_INFINITY" if val > 0 else "Double.NEGATIVE_INFINITY"
        return repr(val)

    @classmethod
    def translate_list(cls, val: list) -> str:
        return f"java.util.Arrays.asList({', '.join(cls.translate(v) for v in val)})"

    @classmethod
    def translate_dict(cls, val: dict) -> str:
        pairs = ", ".join(f"{{{cls.translate_str(str(k))}, {cls.translate(v)}}}" for k, v in val.items())
        # Collected into a LinkedHashMap: keeps the order and takes null values, unlike Map.of.
        return (f"java.util.stream.Stream.of(new Object[][] {{{pairs}}}).collect("
                "java.util.LinkedHashMap<String, Object>::new, (m, e) -> m.put((String) e[0], e[1]), "
                "java.util.Map::putAll)")

    @classmethod
    def comment(cls, cmt_str: str) -> str:
        return f"// {cmt_str}".strip()

    @classmethod
    def assign(cls, name: str, str_val: str) -> str:
        return f"Object {name} = null;" if str_val == "null" else f"var {name} = {str_val};"

    @classmethod
    def inspect(cls, parameters_cell) -> list[Parameter]:
        parameters = []
        for line in parameters_cell.source.splitlines():
            match = _DECLARATION.match(line)
            if match:
                parameters.append(Parameter(name=match["name"], inferred_type_name=match["type"],
                                            default=match["value"], help=match["help"] or ""))
        return parameters


class JavaEngine(NBClientEngine):
    """papermill's own nbclient engine, registered under "java" only so that papermill
    imports this module (and so its translator) whenever it starts."""


papermill_translators.register("java", JavaTranslator)
