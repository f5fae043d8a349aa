"""A kernel body in the C subset, lowered into a fusion graph (``candlewick.fusion.Graph``)
with C++'s meaning: the same expression path ``candlewick.fuse`` uses, replayed as
storage primitives (or compiled, on a device with the ``fusion`` capability).

Every value is a graph node over the iteration shape (constants are 0-d ``full`` nodes
seen with zero strides). C++'s types are followed step by step: literals are typed as
C++ types them, operands get the integer promotions and usual arithmetic conversions
(``c_types``) through ``astype`` nodes, integer ``/`` and ``%`` truncate toward zero,
assignments convert to the variable's type, ``if``/``else`` become ``where`` over the
variables either branch changed. So the graph computes, element by element, what the
generated device kernel computes from the same text: equal results for exact
operations, and within the math libraries' ulps for transcendental functions.
"""

from __future__ import annotations

from .. import dtypes as _dt
from ..errors import KernelCompileError
from ..opdefs import BinaryOp, CompareOp, UnaryOp
from . import c_functions, c_types
from .graph_values import Var

__all__ = ["Interpreter"]

_ARITH = {"+": BinaryOp.ADD, "-": BinaryOp.SUBTRACT, "*": BinaryOp.MULTIPLY}
_BITS = {"&": BinaryOp.BITWISE_AND, "|": BinaryOp.BITWISE_OR, "^": BinaryOp.BITWISE_XOR}
_SHIFT = {"<<": BinaryOp.BITWISE_LEFT_SHIFT, ">>": BinaryOp.BITWISE_RIGHT_SHIFT}
_COMPARE = {"<": CompareOp.LESS, "<=": CompareOp.LESS_EQUAL, ">": CompareOp.GREATER,
            ">=": CompareOp.GREATER_EQUAL, "==": CompareOp.EQUAL, "!=": CompareOp.NOT_EQUAL}


class Interpreter:
    """Runs statements and expressions of the C subset on a ``graph_values.Builder``.

    ``scopes``: a list of {name: Var} (innermost last); ``types``: {type name: compute
    dtype} for the placeholders (and ``_type_reduce``); ``part``/``text``/``label`` say
    where the code came from, for errors."""

    def __init__(self, builder, scopes, types, part, text, label):
        self.b = builder
        self.scopes = scopes
        self.types = types
        self.part, self.text, self.label = part, text, label

    def fail(self, why, line):
        lines = self.text.split("\n")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        raise KernelCompileError(f"{self.label}: {why}", part=self.part, line=line, text=text)

    # --- variables ---------------------------------------------------------------------
    def lookup(self, name, line):
        for scope in reversed(self.scopes):
            var = scope.get(name)
            if var is not None:
                return scope, var
        self.fail(f"use of undeclared identifier {name!r}", line)

    def read(self, name, line):
        _, var = self.lookup(name, line)
        value = var.value
        if value is None:
            self.fail(f"{name!r} is read before it is given a value", line)
        return value() if callable(value) else value

    def store(self, name, value, line):
        scope, var = self.lookup(name, line)
        if var.kind in ("in", "const"):
            what = "an in parameter" if var.kind == "in" else "not assignable"
            self.fail(f"{name!r} is {what}: only out parameters and local variables can be assigned", line)
        scope[name] = var._replace(value=self.convert(value, var.dtype, line))

    def type_of(self, words, line):
        if len(words) == 1 and words[0] in self.types:
            return self.types[words[0]]
        dtype = c_types.type_from_words(words)
        if dtype is None:
            self.fail(f"unknown type {' '.join(words)!r} (the C subset knows bool, char, short, int, long, "
                      f"long long, their unsigned forms, float, double and the kernel's type placeholders)", line)
        return dtype

    def convert(self, x, dtype, line):
        if x.dtype is dtype:
            return x
        if x.dtype.level == 3 and dtype.level < 3:
            self.fail(f"a complex value cannot become {c_types.C_NAME[dtype]} (take real(...) or abs(...))", line)
        return self.b.astype(x, dtype)

    # --- statements ----------------------------------------------------------------------
    def run(self, stmts):
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, s):
        kind, args, line = s.kind, s.args, s.line
        if kind == "block":
            self.scopes.append({})
            try:
                self.run(args[0])
            finally:
                self.scopes.pop()
        elif kind == "decl":
            words, names = args
            dtype = self.type_of(words, line)
            for name, init in names:
                if name in self.scopes[-1]:
                    self.fail(f"redefinition of {name!r}", line)
                value = self.convert(self.expr(init), dtype, line) if init is not None else None
                self.scopes[-1][name] = Var("local", dtype, value)
        elif kind == "assign":
            name, op, value = args
            if op in ("++", "--"):
                self.store(name, self.arith("+" if op == "++" else "-", self.read(name, line),
                                            self.literal("1", line), line), line)
            elif op == "=":
                self.store(name, self.expr(value), line)
            else:
                self.store(name, self.binary(op[:-1], self.read(name, line), self.expr(value), line), line)
        elif kind == "if":
            self.branch(args, line)
        else:  # pragma: no cover - the parser makes no other statement
            raise AssertionError(kind)

    def branch(self, args, line):
        cond, then, other = args
        c = self.truth(self.expr(cond), line)
        outer = self.scopes
        results = []
        for stmt in (then, other):
            self.scopes = [dict(scope) for scope in outer]
            if stmt is not None:
                self.statement(stmt)
            results.append(self.scopes)
        self.scopes = outer
        for k, scope in enumerate(outer):
            for name, var in scope.items():
                t, e = results[0][k][name].value, results[1][k][name].value
                if t is var.value and e is var.value:
                    continue
                t = t() if callable(t) else t
                e = e() if callable(e) else e
                if t is None or e is None or t is e:
                    merged = e if t is None else t
                else:
                    merged = self.b.where(c, t, e)
                scope[name] = var._replace(value=merged)

    # --- expressions ---------------------------------------------------------------------
    def expr(self, e):
        kind, args, line = e.kind, e.args, e.line
        if kind == "num":
            return self.literal(args[0], line)
        if kind == "name":
            if args[0] in ("true", "false"):
                return self.b.full(args[0] == "true", _dt.bool_)
            return self.read(args[0], line)
        if kind == "unary":
            return self.unary(args[0], self.expr(args[1]), line)
        if kind == "binary":
            return self.binary(args[0], self.expr(args[1]), self.expr(args[2]), line)
        if kind == "ternary":
            c = self.truth(self.expr(args[0]), line)
            x, y = self.expr(args[1]), self.expr(args[2])
            dtype = x.dtype if x.dtype is y.dtype else self.common(x, y, "?:", line)
            return self.b.where(c, self.convert(x, dtype, line), self.convert(y, dtype, line))
        if kind == "cast":
            return self.convert(self.expr(args[1]), self.type_of(args[0], line), line)
        if kind == "call":
            return self.call(args[0], [self.expr(a) for a in args[1]], line)
        raise AssertionError(kind)  # pragma: no cover

    def literal(self, text, line):
        got = c_types.literal(text)
        if isinstance(got, str):
            self.fail(got, line)
        return self.b.full(*got)

    def truth(self, x, line):
        return self.convert(x, _dt.bool_, line)

    def common(self, x, y, op, line):
        dtype = c_types.arithmetic(x.dtype, y.dtype)
        if dtype is None:
            self.fail(f"operator {op} on {c_types.C_NAME[x.dtype]} and {c_types.C_NAME[y.dtype]}: complex values "
                      f"combine only with complex values of their own type", line)
        return dtype

    def unary(self, op, x, line):
        b = self.b
        if op == "!":
            return b.unary(UnaryOp.LOGICAL_NOT, self.truth(x, line))
        if x.dtype.level == 3:
            if op == "~":
                self.fail("~ on a complex value", line)
            return b.unary(UnaryOp.NEGATIVE, x) if op == "-" else x
        x = self.convert(x, c_types.promote(x.dtype), line)
        if op == "+":
            return x
        if op == "-":
            return b.unary(UnaryOp.NEGATIVE, x)
        if x.dtype.level != 1:
            self.fail(f"~ on a {c_types.C_NAME[x.dtype]} value (integers only)", line)
        return b.unary(UnaryOp.BITWISE_INVERT, x)

    def binary(self, op, x, y, line):
        b = self.b
        if op in ("&&", "||"):
            return b.binary(BinaryOp.LOGICAL_AND if op == "&&" else BinaryOp.LOGICAL_OR,
                            self.truth(x, line), self.truth(y, line))
        if op in _SHIFT:
            if x.dtype.level != 1 and not x.dtype.is_bool or y.dtype.level != 1 and not y.dtype.is_bool:
                self.fail(f"operator {op} takes integer operands", line)
            x = self.convert(x, c_types.promote(x.dtype), line)  # the result has the left operand's type
            return b.binary(_SHIFT[op], x, self.convert(y, x.dtype, line))
        dtype = self.common(x, y, op, line)
        x, y = self.convert(x, dtype, line), self.convert(y, dtype, line)
        if op in _COMPARE:
            if dtype.level == 3 and op not in ("==", "!="):
                self.fail(f"operator {op} on complex values", line)
            return b.compare(_COMPARE[op], x, y)
        if op in _BITS or op == "%":
            if dtype.level != 1:
                hint = " (fmod is not part of the C subset)" if op == "%" else ""
                self.fail(f"operator {op} takes integer operands, not {c_types.C_NAME[dtype]}{hint}", line)
            if op == "%":
                return self.int_rem(x, y)
            return b.binary(_BITS[op], x, y)
        return self.arith(op, x, y, line)

    def arith(self, op, x, y, line):
        dtype = self.common(x, y, op, line)
        x, y = self.convert(x, dtype, line), self.convert(y, dtype, line)
        if op == "/":
            return self.b.binary(BinaryOp.DIVIDE, x, y) if dtype.level >= 2 else self.int_div(x, y)
        return self.b.binary(_ARITH[op], x, y)

    def _toward_zero(self, x, y, r):
        """Where C's truncating division differs from the floor division: a remainder
        that is not zero, with operands of different signs."""
        b, zero = self.b, self.b.full(0, x.dtype)
        nonzero = b.compare(CompareOp.NOT_EQUAL, r, zero)
        signs = b.binary(BinaryOp.LOGICAL_XOR, b.compare(CompareOp.LESS, x, zero), b.compare(CompareOp.LESS, y, zero))
        return b.binary(BinaryOp.LOGICAL_AND, nonzero, signs)

    def int_div(self, x, y):
        b = self.b
        q = b.binary(BinaryOp.FLOOR_DIVIDE, x, y)
        if x.dtype.category == "unsigned integer":
            return q
        fix = self._toward_zero(x, y, b.binary(BinaryOp.REMAINDER, x, y))
        return b.where(fix, b.binary(BinaryOp.ADD, q, b.full(1, x.dtype)), q)

    def int_rem(self, x, y):
        b = self.b
        r = b.binary(BinaryOp.REMAINDER, x, y)
        if x.dtype.category == "unsigned integer":
            return r
        return b.where(self._toward_zero(x, y, r), b.binary(BinaryOp.SUBTRACT, r, y), r)

    def call(self, name, args, line):
        return c_functions.call(self, name, args, line)
