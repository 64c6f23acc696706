"""Publishing arrays and groups for tilefmt's browser reader (web/).

A static web server answers range requests but cannot list a folder, and a
TileDB array is a folder. ``write_listing(path)`` writes the list of its
files beside it, as ``<path>.tilefmt-listing``: the browser reads that one
document, then only the byte ranges its queries need. The object's own
folder is left as TileDB made it. Publish both, and open the object's URL::

    python -m tilefmt.web listing data/my_array      # or tilefmt.web.write_listing("data/my_array")

A group's listing covers every file under it, so its members (those inside
its folder) open from the same document.
"""

import os
import sys

__all__ = ["write_listing", "listing_text", "LISTING_SUFFIX"]

LISTING_SUFFIX = ".tilefmt-listing"


def listing_text(path):
    """The listing document of the folder at ``path``: a comment line, then
    ``<size> <relative path>`` per regular file, sorted by path (symbolic
    links, which TileDB never writes, are left out)."""
    root = os.path.abspath(path)
    if not os.path.isdir(root):
        raise FileNotFoundError(f"{path}: not a folder")
    lines = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for f in files:
            full = os.path.join(folder, f)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if "\n" in rel:
                raise ValueError(f"{full}: a file name with a line break cannot be listed")
            lines.append(f"{os.path.getsize(full)} {rel}")
    lines.sort(key=lambda line: line.split(" ", 1)[1])
    return "# tilefmt listing 1\n" + "".join(line + "\n" for line in lines)


def write_listing(path):
    """Writes ``<path>.tilefmt-listing`` beside the folder at ``path`` and
    returns its path. Write it again after the object changes."""
    out = os.path.abspath(path).rstrip(os.sep) + LISTING_SUFFIX
    text = listing_text(path)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, out)
    return out


def _main(argv):
    if len(argv) < 2 or argv[0] != "listing":
        print("usage: python -m tilefmt.web listing PATH...", file=sys.stderr)
        return 2
    for p in argv[1:]:
        print(write_listing(p))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
