"""The C subset of custom kernel bodies: tokens and a syntax tree (docs/custom_kernels.md lists it).

Statements: declarations of local variables (``float t = x * y;``, ``const T u = 1;``),
assignments to locals and out parameters (``=``, ``+=`` and the other compound
assignments, ``++``/``--``), ``if``/``else`` and blocks. Expressions: literals,
names, the unary, binary and ternary operators of C, casts (``(float)x``, ``float(x)``,
``static_cast<float>(x)``) and calls of the math functions (``c_types.FUNCTIONS``).
Anything else (loops, pointers and indexing, ``return``, member access, preprocessor
lines) is refused with ``KernelCompileError`` naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import KernelCompileError

__all__ = ["Node", "parse_expression", "parse_statements"]

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+) | (?P<newline>\n) | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]* | (?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFlLuU]*)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|&&|\|\||==|!=|<=|>=|<<|>>|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|::|[-+*/%<>=!~&|^?:;,(){}\[\].#])
""", re.VERBOSE | re.DOTALL)

#: words that make up the C type names of the subset (c_types maps the phrases)
TYPE_WORDS = frozenset({"bool", "char", "signed", "unsigned", "short", "int", "long", "float", "double"})
_REFUSED_WORDS = {
    "for": "loops", "while": "loops", "do": "loops", "return": "return", "goto": "goto", "switch": "switch",
    "break": "break", "continue": "continue", "struct": "struct", "sizeof": "sizeof",
}

_BINARY = (  # lowest precedence first
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("<<", ">>"),
    ("+", "-"), ("*", "/", "%"),
)
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})


@dataclass(frozen=True)
class Node:
    """A syntax tree node: ``kind`` with its ``args`` and the source ``line``.

    Expressions: ``num`` (text), ``name`` (id), ``unary`` (op, x), ``binary`` (op, x, y),
    ``ternary`` (c, x, y), ``cast`` (type words, x), ``call`` (name, args).
    Statements: ``decl`` (type words, ((name, init or None), ...)), ``assign`` (name, op,
    value or None for ``++``/``--``), ``if`` (c, then, else or None), ``block`` (stmts).
    """

    kind: str
    args: tuple
    line: int


class _Tokens:
    def __init__(self, text, part, label):
        self.text, self.part, self.label = text, part, label
        self.items = []  # (kind, value, line)
        line, pos = 1, 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                self.fail(f"unexpected character {text[pos]!r}", line)
            kind, value = m.lastgroup, m.group()
            if kind == "newline":
                line += 1
            elif kind == "comment":
                line += value.count("\n")
            elif kind != "space":
                if value == "#":
                    self.fail("preprocessor lines are not part of the C subset", line)
                self.items.append((kind, value, line))
            pos = m.end()
        self.items.append(("end", "", line))
        self.pos = 0

    def fail(self, why, line):
        lines = self.text.split("\n")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        raise KernelCompileError(f"{self.label}: {why}", part=self.part, line=line, text=text)

    def peek(self, k=0):
        return self.items[min(self.pos + k, len(self.items) - 1)]

    def next(self):
        tok = self.items[self.pos]
        self.pos += 1
        return tok

    def accept(self, value):
        if self.peek()[1] == value and self.peek()[0] != "end":
            self.pos += 1
            return True
        return False

    def expect(self, value):
        kind, got, line = self.next()
        if got != value or kind == "end":
            self.fail(f"expected {value!r}, found {got or 'the end'!r}", line)


class _Parser:
    def __init__(self, tokens, type_names):
        self.t = tokens
        self.type_names = frozenset(type_names)  # placeholders and other names that are types

    # --- types ------------------------------------------------------------------------
    def starts_type(self, k=0):
        kind, value, _ = self.t.peek(k)
        return kind == "name" and (value in TYPE_WORDS or value in self.type_names or value == "const")

    def type_words(self):
        words = []
        while True:
            kind, value, line = self.t.peek()
            if kind == "name" and value == "const":
                self.t.next()
                continue
            if kind == "name" and (value in TYPE_WORDS or (not words and value in self.type_names)):
                words.append(self.t.next()[1])
                if value in self.type_names:
                    break
                continue
            break
        if not words:
            self.t.fail("expected a type name", self.t.peek()[2])
        if self.t.peek()[1] in ("*", "&"):
            self.t.fail("pointers and references are not part of the C subset (raw parameters run on "
                        "devices that compile kernels)", self.t.peek()[2])
        return tuple(words)

    # --- statements --------------------------------------------------------------------
    def statements(self, until="end"):
        out = []
        while True:
            kind, value, _ = self.t.peek()
            if kind == "end" or (until == "}" and value == "}"):
                return tuple(out)
            out.append(self.statement())

    def statement(self):
        kind, value, line = self.t.peek()
        if value == ";" and kind == "op":
            self.t.next()
            return Node("block", ((),), line)
        if value == "{" and kind == "op":
            self.t.next()
            body = self.statements("}")
            self.t.expect("}")
            return Node("block", (body,), line)
        if kind == "name" and value == "if":
            self.t.next()
            self.t.expect("(")
            cond = self.expression()
            self.t.expect(")")
            then = self.statement()
            other = self.statement() if self.t.accept("else") else None
            return Node("if", (cond, then, other), line)
        if kind == "name" and value in _REFUSED_WORDS:
            self.t.fail(f"{_REFUSED_WORDS[value]} is not part of the C subset", line)
        if self.starts_type():
            return self.declaration()
        if value in ("++", "--"):
            self.t.next()
            name = self.target()
            self.t.expect(";")
            return Node("assign", (name, value, None), line)
        name = self.target()
        op_kind, op, op_line = self.t.next()
        if op in ("++", "--"):
            self.t.expect(";")
            return Node("assign", (name, op, None), line)
        if op not in ASSIGN_OPS or op_kind != "op":
            self.t.fail(f"expected an assignment to {name!r}, found {op or 'the end'!r} (a statement is a "
                        f"declaration, an assignment, an if or a block)", op_line)
        value_expr = self.expression()
        self.t.expect(";")
        return Node("assign", (name, op, value_expr), line)

    def target(self):
        kind, value, line = self.t.next()
        if kind != "name":
            self.t.fail(f"expected a variable name, found {value or 'the end'!r}", line)
        if self.t.peek()[1] in ("[", ".", "->"):
            self.t.fail(f"indexing and member access ({value}{self.t.peek()[1]}...) are not part of the C subset",
                        line)
        return value

    def declaration(self):
        line = self.t.peek()[2]
        words = self.type_words()
        names = []
        while True:
            kind, name, nline = self.t.next()
            if kind != "name":
                self.t.fail(f"expected a variable name, found {name or 'the end'!r}", nline)
            if self.t.peek()[1] == "[":
                self.t.fail("arrays are not part of the C subset", nline)
            init = self.expression() if self.t.accept("=") else None
            names.append((name, init))
            if not self.t.accept(","):
                break
        self.t.expect(";")
        return Node("decl", (words, tuple(names)), line)

    # --- expressions ---------------------------------------------------------------------
    def expression(self):
        kind, value, line = self.t.peek()
        cond = self.binary(0)
        if self.t.accept("?"):
            a = self.expression()
            self.t.expect(":")
            b = self.expression()
            return Node("ternary", (cond, a, b), line)
        if self.t.peek()[1] in ASSIGN_OPS and self.t.peek()[0] == "op":
            self.t.fail("an assignment inside an expression is not part of the C subset", self.t.peek()[2])
        return cond

    def binary(self, level):
        if level == len(_BINARY):
            return self.unary()
        x = self.binary(level + 1)
        while True:
            kind, op, line = self.t.peek()
            if kind != "op" or op not in _BINARY[level]:
                return x
            self.t.next()
            x = Node("binary", (op, x, self.binary(level + 1)), line)

    def unary(self):
        kind, value, line = self.t.peek()
        if kind == "op" and value in ("+", "-", "!", "~"):
            self.t.next()
            return Node("unary", (value, self.unary()), line)
        if kind == "op" and value in ("++", "--"):
            self.t.fail("++/-- inside an expression is not part of the C subset (write it as a statement)", line)
        if kind == "op" and value in ("*", "&"):
            self.t.fail("pointers are not part of the C subset", line)
        if value == "(" and kind == "op" and self.starts_type(1):
            self.t.next()
            words = self.type_words()
            self.t.expect(")")
            return Node("cast", (words, self.unary()), line)
        return self.postfix()

    def postfix(self):
        x = self.primary()
        kind, value, line = self.t.peek()
        if value in ("[", ".", "->") and kind == "op":
            self.t.fail(f"indexing and member access ({value}) are not part of the C subset", line)
        if value in ("++", "--") and kind == "op":
            self.t.fail("++/-- inside an expression is not part of the C subset (write it as a statement)", line)
        return x

    def primary(self):
        kind, value, line = self.t.next()
        if kind == "number":
            return Node("num", (value,), line)
        if kind == "op" and value == "(":
            x = self.expression()
            self.t.expect(")")
            return x
        if kind != "name":
            self.t.fail(f"expected an expression, found {value or 'the end'!r}", line)
        if value == "static_cast":
            self.t.expect("<")
            words = self.type_words()
            self.t.expect(">")
            self.t.expect("(")
            x = self.expression()
            self.t.expect(")")
            return Node("cast", (words, x), line)
        if value in TYPE_WORDS or value in self.type_names:
            self.t.pos -= 1
            words = self.type_words()  # functional cast: float(x), T(x)
            if len(words) != 1:
                self.t.fail(f"a functional cast takes a one-word type, not {' '.join(words)!r}", line)
            self.t.expect("(")
            x = self.expression()
            self.t.expect(")")
            return Node("cast", (words, x), line)
        if value in _REFUSED_WORDS:
            self.t.fail(f"{_REFUSED_WORDS[value]} is not part of the C subset", line)
        if self.t.peek()[1] == "(" and self.t.peek()[0] == "op":
            self.t.next()
            args = []
            if not self.t.accept(")"):
                while True:
                    args.append(self.expression())
                    if self.t.accept(")"):
                        break
                    self.t.expect(",")
            return Node("call", (value, tuple(args)), line)
        if self.t.peek()[1] == "::":
            self.t.fail("qualified names (std::...) are not part of the C subset: call the function itself", line)
        return Node("name", (value,), line)


def parse_statements(text, part, label, type_names=()):
    """The statements of ``text`` (a kernel body), as a tuple of ``Node``."""
    tokens = _Tokens(text, part, label)
    return _Parser(tokens, type_names).statements()


def parse_expression(text, part, label, type_names=()):
    """The one expression of ``text`` (a reduction's map or reduce expression)."""
    tokens = _Tokens(text, part, label)
    parser = _Parser(tokens, type_names)
    expr = parser.expression()
    kind, value, line = tokens.peek()
    if kind != "end":
        tokens.fail(f"unexpected {value!r} after the expression", line)
    return expr
