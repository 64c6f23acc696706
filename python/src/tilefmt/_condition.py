"""Query conditions written as TileDB-Py writes them, e.g.
``"a > 5 and (s == 'x' or n == None)"``, parsed with Python's own parser
into the tree the compiled reader turns into tilefmt conditions.

Grammar: comparisons ``< <= > >= == !=`` (chained as ``1 < a <= 5``),
``in`` / ``not in`` a list, ``== None`` / ``!= None`` for nulls, joined with
``and``/``&``, ``or``/``|`` and ``not``; ``attr("odd name")`` and
``val(v)`` name fields and values that are not identifiers or literals.
A string compared with an attribute that has an enumeration names a label.
"""

import ast

from . import _types

_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
        ast.In: "in", ast.NotIn: "not in"}
# a < b is b > a: for a value written left of the field.
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class _Parser:
    def __init__(self, schema):
        self.fields = {}
        for d in schema.domain.dims:
            self.fields[d.name] = (d.tiledb_type, False)
        for a in schema.attrs:
            self.fields[a.name] = (a.tiledb_type, bool(a.enumeration))

    def parse(self, text):
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as e:
            raise ValueError("tilefmt: cannot parse the condition %r: %s" % (text, e.msg)) from None
        return self.node(tree.body)

    def node(self, n):
        if isinstance(n, ast.BoolOp):
            kind = "and" if isinstance(n.op, ast.And) else "or"
            return (kind, [self.node(v) for v in n.values])
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.BitAnd, ast.BitOr)):
            kind = "and" if isinstance(n.op, ast.BitAnd) else "or"
            return (kind, [self.node(n.left), self.node(n.right)])
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Not, ast.Invert)):
            return ("not", self.node(n.operand))
        if isinstance(n, ast.Compare):
            parts = []
            left = n.left
            for op, right in zip(n.ops, n.comparators):
                parts.append(self.compare(left, op, right))
                left = right
            return parts[0] if len(parts) == 1 else ("and", parts)
        raise ValueError("tilefmt: unsupported condition syntax: %s" % ast.dump(n))

    def field_name(self, n):
        if isinstance(n, ast.Name) and n.id in self.fields:
            return n.id
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "attr"
                and len(n.args) == 1 and isinstance(n.args[0], ast.Constant)):
            if n.args[0].value not in self.fields:
                raise ValueError("tilefmt: the condition names no field of the array: %r" % n.args[0].value)
            return n.args[0].value
        return None

    def value(self, n):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "val" and len(n.args) == 1:
            n = n.args[0]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            v = self.value(n.operand)
            return -v
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            raise ValueError("tilefmt: the condition names no field of the array: %r" % n.id)
        raise ValueError("tilefmt: unsupported value in a condition: %s" % ast.dump(n))

    def compare(self, left, op, right):
        op = _OPS[type(op)]
        name = self.field_name(left)
        other = right
        if name is None:
            name = self.field_name(right)
            other = left
            if name is None:
                raise ValueError("tilefmt: a comparison in the condition names no field")
            if op in ("in", "not in"):
                raise ValueError("tilefmt: `in` needs the field on its left")
            op = _FLIP[op]
        tiledb_type, enumerated = self.fields[name]
        if op in ("in", "not in"):
            if not isinstance(other, (ast.List, ast.Tuple, ast.Set)):
                raise ValueError("tilefmt: `in` needs a list of values")
            values = [self.value(e) for e in other.elts]
            label = enumerated and all(isinstance(v, str) for v in values)
            return ("set", name, op, [_types.encode(tiledb_type, v) for v in values], label)
        v = self.value(other)
        if v is None:
            if op not in ("==", "!="):
                raise ValueError("tilefmt: None compares only with == and !=")
            return ("cmp", name, op, None, False)
        label = enumerated and isinstance(v, str)
        return ("cmp", name, op, _types.encode(tiledb_type, v), label)


def parse(text, schema):
    """The condition `text` as the compiled reader's condition tree."""
    return _Parser(schema).parse(text)
