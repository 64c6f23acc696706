#!/usr/bin/env python3
"""Turns the C++ blocks of README.md into one translation unit, so that the
build compiles every snippet a reader may copy.

Each block becomes a namespace `readme_N`: its #include lines go to the top of
the file, declarations (struct, using, namespace aliases, static_assert,
templates) stay at namespace scope, and the statements form the body of a
function. Names a block uses without declaring come from an HTML comment just
before it in the README:

    <!-- snippet context: std::vector<std::byte> bytes; -->
"""
import re
import sys

DECLARATION = re.compile(r"^(struct|class|using|namespace|static_assert|template|enum)\b")


def blocks(text):
    context = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"\s*<!-- snippet context: (.*) -->\s*$", lines[i])
        if m:
            context = m.group(1)
        elif lines[i].strip() == "```cpp":
            body = []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            yield context, body
            context = ""
        i += 1


def split(body):
    """(includes, declarations, statements) of one block."""
    includes, decls, stmts = [], [], []
    depth = 0
    target = None
    for line in body:
        code = line.split("//")[0]
        if depth == 0:
            if line.startswith("#include"):
                includes.append(line)
                continue
            target = decls if DECLARATION.match(line) else stmts
        target.append(line)
        depth += code.count("{") + code.count("(") - code.count("}") - code.count(")")
    return includes, decls, stmts


def main():
    readme, out = sys.argv[1], sys.argv[2]
    includes = {"#include <cstdint>", "#include <iostream>", "#include <string>", "#include <vector>"}
    parts = []
    for n, (context, body) in enumerate(blocks(open(readme).read()), 1):
        inc, decls, stmts = split(body)
        includes.update(inc)
        parts.append(f"namespace readme_{n} {{\nusing namespace tilefmt;\n" + "\n".join(decls) +
                     f"\n[[maybe_unused]] void run() {{\n{context}\n" + "\n".join(stmts) + "\n}\n}  // namespace readme_%d\n" % n)
    with open(out, "w") as f:
        f.write("// Generated from README.md by tests/readme/snippets.py: every C++ block compiles.\n")
        f.write("\n".join(sorted(includes)) + "\n\n")
        f.write("\n".join(parts))
        f.write("\nint main() { return 0; }\n")


main()
