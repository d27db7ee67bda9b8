"""Export names: what ``--name`` may be in each target language, and the one check.

A name becomes file names and identifiers of the generated code: C's ``NAME.h`` (included
as ``#include "NAME.h"``), its guard ``NAME_H``, the macros ``NAME_N``/``NAME_NP`` and the
functions ``NAME_M`` …; C++'s ``namespace NAME`` and guard ``NAME_HPP``; Julia's module
(``arm_2`` → ``module Arm2``); MATLAB's functions and files ``NAME_M`` …; JavaScript's
global ``var NAME``; the Python modules ``NAME_jax``/``NAME_numba``. :func:`check_export_name`
refuses a name when it, or any identifier derived from it, clashes with the target
language: its keywords, the standard library and macros the generated code (or the
program that includes it) sees — ``main``, ``NAN``, ``INFINITY``, ``M_PI``, ``sin``,
``exp``, the standard header ``math`` …, the module's own names (Julia's ``N``), or the
host's globals (JavaScript's ``Math``, ``module``, ``window``, ``location``). Every name is
an ASCII identifier of at most :data:`MAX_NAME_LENGTH` characters not starting with ``_``
(the identifiers of C, C++, Julia, MATLAB, JavaScript and Python alike); MATLAB function
names are at most 63 characters (``namelengthmax``).

Examples
--------
>>> from lagdyn.codegen.names import check_export_name, derived_names
>>> check_export_name("arm2", "c")
>>> derived_names("arm_2", "julia")
{'module': 'Arm2'}
>>> check_export_name("main", "c")
Traceback (most recent call last):
...
lagdyn.errors.LagdynError: export name 'main' clashes with C: 'main' is a name of the C standard ...
"""

from __future__ import annotations

import builtins
import keyword
import re

from ..errors import LagdynError
from .build import KERNELS

__all__ = ["MAX_NAME_LENGTH", "RESERVED", "check_export_name", "derived_names", "julia_module"]

#: Longest export name (file names stay well under 255 bytes).
MAX_NAME_LENGTH = 64
#: MATLAB's ``namelengthmax``: longer function names are truncated, so two functions
#: could become one.
MATLAB_NAME_MAX = 63

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --------------------------------------------------------------------------- C and C++

_C_KEYWORDS = _words(
    """auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while
    alignas alignof bool constexpr false nullptr static_assert thread_local true typeof
    typeof_unqual"""
)
_C_MATH_FUNCTIONS = _words(
    """acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1
    frexp ilogb ldexp log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow sqrt
    erf erfc lgamma tgamma ceil floor nearbyint rint lrint llrint round lround llround trunc
    fmod remainder remquo copysign nan nextafter nexttoward fdim fmax fmin fma"""
)
_C_MATH = (
    _C_MATH_FUNCTIONS
    | frozenset(f + s for f in _C_MATH_FUNCTIONS for s in ("f", "l"))
    | _words(
        """NAN INFINITY HUGE_VAL HUGE_VALF HUGE_VALL FP_NAN FP_INFINITE FP_ZERO
        FP_SUBNORMAL FP_NORMAL FP_FAST_FMA FP_FAST_FMAF FP_FAST_FMAL FP_ILOGB0 FP_ILOGBNAN
        MATH_ERRNO MATH_ERREXCEPT math_errhandling fpclassify isfinite isinf isnan isnormal
        signbit isgreater isgreaterequal isless islessequal islessgreater isunordered
        float_t double_t M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI
        M_2_SQRTPI M_SQRT2 M_SQRT1_2 j0 j1 jn y0 y1 yn gamma drem finite significand exp10
        pow10 sincos"""
    )
)
_C_LIBRARY = _words(
    """main errno NULL EOF FILE size_t ptrdiff_t wchar_t ssize_t off_t abs labs llabs div
    ldiv lldiv malloc calloc realloc free exit abort atexit quick_exit at_quick_exit atoi
    atof atol atoll strtod strtof strtold strtol strtoll strtoul strtoull system getenv
    qsort bsearch rand srand RAND_MAX EXIT_SUCCESS EXIT_FAILURE MB_CUR_MAX printf fprintf
    sprintf snprintf vprintf vfprintf vsprintf vsnprintf scanf fscanf sscanf puts fputs
    gets fgets putc fputc putchar getc fgetc getchar ungetc fopen freopen fclose fflush
    fread fwrite fseek ftell rewind feof ferror clearerr perror remove rename tmpfile
    tmpnam stdin stdout stderr BUFSIZ memcpy memset memmove memcmp memchr strlen strcpy
    strncpy strcmp strncmp strcat strncat strchr strrchr strstr strtok strerror strdup
    assert static_assert bool true false int8_t int16_t int32_t int64_t uint8_t uint16_t
    uint32_t uint64_t intptr_t uintptr_t intmax_t uintmax_t INT_MAX INT_MIN UINT_MAX
    LONG_MAX LONG_MIN CHAR_BIT CHAR_MAX CHAR_MIN DBL_MAX DBL_MIN DBL_EPSILON DBL_DIG
    FLT_MAX FLT_MIN FLT_EPSILON time clock clock_t time_t CLOCKS_PER_SEC signal raise
    setjmp longjmp jmp_buf va_list va_start va_arg va_end va_copy offsetof complex
    imaginary I"""
)
#: The standard headers: ``NAME.h`` beside the user's sources would shadow them.
_C_HEADERS = _words(
    """assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp
    signal stdalign stdarg stdatomic stdbit stdbool stdckdint stddef stdint stdio stdlib
    stdnoreturn string tgmath threads time uchar wchar wctype"""
)
#: Macros GCC and Clang predefine in their default GNU modes (``-std=gnu*``, the default):
#: ``namespace unix {`` becomes ``namespace 1 {``.
_C_PREDEFINED = _words("unix linux i386 i486 i586 i686 sun sparc mips vax m68k hppa hpux pdp11")
_C = _C_KEYWORDS | _C_MATH | _C_LIBRARY | _C_PREDEFINED

_CXX_KEYWORDS = _words(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq
    final override import module"""
)
#: ``namespace NAME`` sits beside everything <cmath> declares (in ``std`` and, in
#: practice, globally) and its macros; ``std``, ``T`` (the template parameter) too.
_CXX = _CXX_KEYWORDS | _C | _words("std T abs")

# --------------------------------------------------------------------------- Julia

_JULIA_KEYWORDS = _words(
    """baremodule begin break catch const continue do else elseif end export false finally
    for function global if import let local macro module quote return struct true try
    using while abstract mutable primitive type where outer in isa"""
)
#: Names the module's code calls (the name itself should not read like them).
_JULIA_CALLS = _words("sin cos tan exp log sqrt abs atan hypot pi")
#: Base and Core names a module name (capitalized) would shadow in the user's Main,
#: and the module's own constants.
_JULIA_MODULES = _words(
    """Base Core Main N NP Any Array Bool Char Complex Dict Expr Float16 Float32 Float64
    Function Int Int8 Int16 Int32 Int64 Int128 Integer Inf Inf16 Inf32 Inf64 Irrational
    Matrix Missing Module Nothing Number Pair Ptr Rational Real Ref Regex Set Signed Some
    String Symbol Task Tuple Type Union Unsigned Val Vector UInt UInt8 UInt16 UInt32 UInt64
    UInt128 NaN NaN16 NaN32 NaN64 Enum Exception Method Channel Timer Pipe Cmd Colon
    Dims Vararg Random LinearAlgebra Statistics Test Printf Dates"""
)

# --------------------------------------------------------------------------- MATLAB

_MATLAB_KEYWORDS = _words(
    """break case catch classdef continue else elseif end for function global if otherwise
    parfor persistent return spmd switch try while"""
)
_MATLAB_BUILTINS = _words(
    """sin cos tan asin acos atan atan2 sinh cosh tanh exp log log2 log10 sqrt abs sign pow
    power mod rem floor ceil round fix min max sum prod zeros ones eye size numel length
    disp error warning pi eps Inf inf NaN nan i j e true false ans double single int32 real
    imag norm det inv mtimes plus minus times cell struct feval eval"""
)
_MATLAB = _MATLAB_KEYWORDS | _MATLAB_BUILTINS

# --------------------------------------------------------------------------- JavaScript

_JS_KEYWORDS = _words(
    """arguments await break case catch class const continue debugger default delete do
    else enum eval export extends false finally for function if implements import in
    instanceof interface let new null package private protected public return static super
    switch this throw true try typeof var void while with yield async get set of"""
)
#: Globals of the language and its hosts: ``var NAME`` at the top of a script replaces
#: (or, for read-only ones such as ``window``, ``top`` and ``undefined``, silently fails
#: to replace) them; ``name``/``status`` would be turned into strings.
_JS_GLOBALS = _words(
    """globalThis Object Function Array Number Boolean String Symbol BigInt Date Promise
    RegExp Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError
    URIError JSON Math Intl Reflect Proxy Map Set WeakMap WeakSet WeakRef
    FinalizationRegistry ArrayBuffer SharedArrayBuffer DataView Atomics Int8Array Uint8Array
    Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array
    Float64Array BigInt64Array BigUint64Array NaN Infinity undefined parseFloat parseInt
    isFinite isNaN decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape
    console window self top parent frames location document name status length closed
    opener history navigator origin performance screen frameElement customElements
    localStorage sessionStorage crypto fetch alert confirm prompt setTimeout setInterval
    clearTimeout clearInterval requestAnimationFrame event external
    module exports require process global Buffer setImmediate"""
)

# --------------------------------------------------------------------------- Python

_PYTHON = (
    frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
    | frozenset(n for n in dir(builtins) if not n.startswith("_"))
    | _words("np numpy math numba jax jnp casadi ca")
)

#: Per target: the words a name, or an identifier derived from it, must not be.
RESERVED: dict[str, frozenset[str]] = {
    "c": _C,
    "cpp": _CXX,
    "julia": _JULIA_KEYWORDS | _JULIA_CALLS | _JULIA_MODULES,
    "matlab": _MATLAB,
    "js": _JS_KEYWORDS | _JS_GLOBALS,
    "jax": _PYTHON,
    "numba": _PYTHON,
    "casadi": _PYTHON,
}

_LANGUAGE = {
    "c": "C",
    "cpp": "C++",
    "julia": "Julia",
    "matlab": "MATLAB",
    "js": "JavaScript",
    "jax": "Python (JAX)",
    "numba": "Python (numba)",
    "casadi": "CasADi (Python)",
}


def _kind(word: str, target: str) -> str:
    """What ``word`` is in ``target`` (for the message)."""
    lang = _LANGUAGE[target]
    if target in ("c", "cpp"):
        if word in (_CXX_KEYWORDS if target == "cpp" else _C_KEYWORDS):
            return f"a {lang} keyword"
        if word in _C_MATH:
            return "a name of <math.h>" if target == "c" else "a name of <cmath>"
        if word in ("std", "T"):
            return "a name the generated C++ code uses"
        if word in _C_PREDEFINED:
            return "a macro GCC and Clang predefine in their default GNU modes"
        return "a name of the C standard library"
    if target == "julia":
        if word in _JULIA_KEYWORDS:
            return "a Julia keyword"
        if word in ("N", "NP"):
            return "a constant of the generated module"
        if word in _JULIA_CALLS:
            return "a function the generated code calls"
        return "a name of Julia's Base or standard library"
    if target == "matlab":
        return "a MATLAB keyword" if word in _MATLAB_KEYWORDS else "a MATLAB builtin"
    if target == "js":
        return "a JavaScript keyword" if word in _JS_KEYWORDS else "a JavaScript global"
    return "a Python keyword, builtin or module the generated code uses"


def julia_module(name: str) -> str:
    """The Julia module name of an export name (``arm_2`` → ``Arm2``), as julia.py makes it.

    Examples
    --------
    >>> from lagdyn.codegen.names import julia_module
    >>> julia_module("double_pendulum")
    'DoublePendulum'
    """
    return "".join(part.capitalize() for part in name.split("_")) or "Model"


def derived_names(name: str, target: str) -> dict[str, str]:
    """The identifiers (and header names) the generator makes from ``name``, by role.

    Examples
    --------
    >>> from lagdyn.codegen.names import derived_names
    >>> derived_names("dp", "c")["guard"], derived_names("dp", "matlab")["forward_dynamics"]
    ('DP_H', 'dp_forward_dynamics')
    """
    up = name.upper()
    if target == "c":
        out = {"name": name, "guard": f"{up}_H", "size": f"{up}_N", "parameters": f"{up}_NP"}
        out.update({k: f"{name}_{k}" for k in KERNELS})
        return out
    if target == "cpp":
        return {"namespace": name, "guard": f"{up}_HPP"}
    if target == "julia":
        return {"module": julia_module(name)}
    if target == "matlab":
        return {k: f"{name}_{k}" for k in KERNELS}
    return {"name": name}


def check_export_name(name: str, target: str) -> None:
    """Refuse an export ``name`` that is not a plain identifier or clashes in ``target``.

    Raises
    ------
    LagdynError
        Naming the clash (the word, what it is, the identifier derived from the name) and
        the target.

    Examples
    --------
    >>> from lagdyn.codegen.names import check_export_name
    >>> for target in ("c", "cpp", "julia", "matlab", "js", "jax", "numba"):
    ...     check_export_name("double_pendulum", target)
    >>> check_export_name("n", "julia")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: export name 'n' clashes with Julia: its module 'N' is a constant ...
    """
    lang = _LANGUAGE.get(target, target)
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise LagdynError(
            f"export name {name!r} must be an identifier: an ASCII letter, then ASCII "
            "letters, digits or '_' (not starting with '_')"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise LagdynError(
            f"export name {name[:20]!r}… has {len(name)} characters; at most {MAX_NAME_LENGTH}"
        )
    if "__" in name and target == "cpp":
        raise LagdynError(
            f"export name {name!r} clashes with C++: names holding '__' are reserved for "
            "the implementation; choose another --name"
        )
    reserved = RESERVED.get(target, frozenset())
    if name in reserved:
        raise LagdynError(
            f"export name {name!r} clashes with {lang}: {name!r} is {_kind(name, target)}; "
            "choose another --name"
        )
    if target == "c" and name in _C_HEADERS:
        raise LagdynError(
            f"export name {name!r} clashes with C: '{name}.h' would shadow the standard "
            f"header <{name}.h>; choose another --name"
        )
    for role, ident in derived_names(name, target).items():
        if ident != name and ident in reserved:
            raise LagdynError(
                f"export name {name!r} clashes with {lang}: its {role} {ident!r} is "
                f"{_kind(ident, target)}; choose another --name"
            )
        if target == "matlab" and len(ident) > MATLAB_NAME_MAX:
            raise LagdynError(
                f"export name {name!r} is too long for MATLAB: the function {ident!r} has "
                f"{len(ident)} characters, more than namelengthmax = {MATLAB_NAME_MAX}"
            )
