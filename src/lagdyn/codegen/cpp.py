"""C++: a header-only ``NAME.hpp`` of templates on the scalar type ``T``.

Math functions are called unqualified after ``using std::sin`` …, so
argument-dependent lookup finds those of custom scalars (autodiff types).
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.cxx import CXX17CodePrinter

from ..errors import LagdynError
from .c import function_body
from .common import PrinterMixin, describe, header_lines, kernel_args
from .ir import HEADER, Program

__all__ = ["CXX_RESERVED", "CxxPrinter", "export_files"]

#: C++ keywords and alternative tokens: not usable as a namespace name.
CXX_RESERVED = frozenset(
    [
        "alignas",
        "alignof",
        "and",
        "and_eq",
        "asm",
        "auto",
        "bitand",
        "bitor",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "char8_t",
        "char16_t",
        "char32_t",
        "class",
        "compl",
        "concept",
        "const",
        "consteval",
        "constexpr",
        "constinit",
        "const_cast",
        "continue",
        "co_await",
        "co_return",
        "co_yield",
        "decltype",
        "default",
        "delete",
        "do",
        "double",
        "dynamic_cast",
        "else",
        "enum",
        "explicit",
        "export",
        "extern",
        "false",
        "float",
        "for",
        "friend",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "mutable",
        "namespace",
        "new",
        "noexcept",
        "not",
        "not_eq",
        "nullptr",
        "operator",
        "or",
        "or_eq",
        "private",
        "protected",
        "public",
        "register",
        "reinterpret_cast",
        "requires",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "static_assert",
        "static_cast",
        "struct",
        "switch",
        "template",
        "this",
        "thread_local",
        "throw",
        "true",
        "try",
        "typedef",
        "typeid",
        "typename",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "wchar_t",
        "while",
        "xor",
        "xor_eq",
        "std",
    ]
)


class CxxPrinter(PrinterMixin, CXX17CodePrinter):
    """Unqualified math calls (``using std::sin`` in the body) so ADL finds custom scalars.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.cpp import CxxPrinter
    >>> CxxPrinter().doprint(sp.sin(sp.Symbol("x")))
    'sin(x)'
    """

    _ns = ""

    def _print_Pow(self, expr: sp.Pow) -> str:
        out = self.small_power(expr)
        if out is not None:
            return out
        if expr.exp == sp.Rational(1, 2):
            return f"sqrt({self._print(expr.base)})"
        return f"pow({self._print(expr.base)}, {self._print(expr.exp)})"


def export_files(program: Program, name: str) -> dict[str, str]:
    """``NAME.hpp``: templates on ``T``, pointers as in the C layout.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.cpp import export_files
    >>> dp = ld.zoo.double_pendulum()
    >>> list(export_files(system_program(dp, Binding(dp.parameters)), "dp"))
    ['dp.hpp']
    """
    if name in CXX_RESERVED:
        raise LagdynError(f"name {name!r} is a C++ reserved word; choose another --name")
    pr = CxxPrinter()
    up = name.upper()
    lines = [f"// {HEADER}", *[f"// {x}" for x in header_lines(program, name)[1:]]]
    lines += [
        "// C++: templates on the scalar type T; pointers as in the C layout.",
        f"#ifndef {up}_HPP",
        f"#define {up}_HPP",
        "#include <cmath>",
        "",
        f"namespace {name} {{",
        "",
        f"constexpr int N = {program.n};",
        f"constexpr int NP = {len(program.vector('params'))};",
        "",
    ]
    using = (
        "    using std::sin; using std::cos; using std::tan; using std::exp; using std::log;\n"
        "    using std::sqrt; using std::pow; using std::atan2; using std::abs;"
    )
    for k in program.kernels.values():
        params = ["T t" if a == "t" else f"const T *{a}" for a in kernel_args(k)]
        ret = "T" if k.shape == () else "void"
        if k.shape != ():
            params.append("T *out")
        lines += [f"// {describe(k.name)}", "template <typename T>"]
        lines.append(f"inline {ret} {k.name}({', '.join(params)}) {{")
        lines.append(using)
        lines += function_body(program, k, pr, "T")
        lines += ["}", ""]
    lines += [f"}}  // namespace {name}", f"#endif  // {up}_HPP", ""]
    return {f"{name}.hpp": "\n".join(lines)}
