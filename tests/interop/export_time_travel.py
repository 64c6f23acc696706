#!/usr/bin/env python3
"""Copy the arrays that exercise the array directory (time travel, schema
evolution, consolidation with and without vacuuming, consolidated commits
with an ignore file, per-cell timestamps, delete metadata, update commits) from a
generated corpus into tests/data/time_travel/, in the layout of
export_testdata.py. Standard library only.

    export_time_travel.py CORPUS_VERSION_DIR [DEST [ARRAY,...]]   (DEST default: tests/data/time_travel)

tests/data/consolidation holds consolidated_sparse, consolidated_sparse_overwrites,
consolidated_sparse_deletes, consolidated_dense_few_tiles and metadata_consolidated,
exported the same way (DEST and the list given; one array is added to the
folder's manifest by export_testdata.export(CORPUS, DEST, only=[NAME])).

Their manifest entries carry `time_travel`: what TileDB saw when the array
was opened at each of several timestamp ranges (README.md).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import export_testdata as et  # noqa: E402

ARRAYS = [
    "schema_evolution_sparse",
    "consolidated_dense",
    "consolidated_commits_vacuumed",
    "sparse_deletes_consolidated",
    "sparse_deletes",
    "sparse_updates",
]


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    dest = argv[2] if len(argv) > 2 else os.path.join(HERE, "..", "data", "time_travel")
    et.ARRAYS = argv[3].split(",") if len(argv) > 3 else ARRAYS
    out = et.export(argv[1], dest)
    print("exported %d arrays to %s" % (len(out["arrays"]), dest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
