#!/usr/bin/env python3
"""Turns the C++ blocks of README.md and docs/*.md into one translation
unit, so that the build compiles every snippet a reader may copy:

    snippets.py OUT.cpp README.md docs/reading.md ...

With --python instead of an output file, parses every Python block of the
given pages (a syntax error fails, naming the page and line):

    snippets.py --python README.md docs/python.md ...

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


def blocks(text, language="cpp"):
    context = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"\s*<!-- snippet context: (.*) -->\s*$", lines[i])
        if m:
            context = m.group(1)
        elif lines[i].strip() == "```" + language:
            body = []
            first = i + 2
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            yield context, body, first
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


def check_python(pages):
    blocks_seen = 0
    for page in pages:
        for _, body, first in blocks(open(page).read(), "python"):
            blocks_seen += 1
            try:
                compile("\n".join(body) + "\n", f"{page}:{first}", "exec")
            except SyntaxError as e:
                print(f"{page}:{first + (e.lineno or 1) - 1}: {e.msg}")
                return 1
    print(f"{blocks_seen} Python snippets parsed")
    return 0 if blocks_seen else 1


def main():
    if sys.argv[1] == "--python":
        sys.exit(check_python(sys.argv[2:]))
    out, pages = sys.argv[1], sys.argv[2:]
    includes = {"#include <cstdint>", "#include <iostream>", "#include <string>", "#include <vector>"}
    parts = []
    n = 0
    for page in pages:
        for context, body, _ in blocks(open(page).read()):
            n += 1
            inc, decls, stmts = split(body)
            includes.update(inc)
            parts.append(f"// {page}\nnamespace readme_{n} {{\nusing namespace tilefmt;\n" + "\n".join(decls) +
                         f"\n[[maybe_unused]] void run() {{\n{context}\n" + "\n".join(stmts) +
                         "\n}\n}  // namespace readme_%d\n" % n)
    with open(out, "w") as f:
        f.write("// Generated from the README and docs/ by tests/readme/snippets.py: every C++ block compiles.\n")
        f.write("\n".join(sorted(includes)) + "\n\n")
        f.write("\n".join(parts))
        f.write("\nint main() { return 0; }\n")


main()
