# Sourced by the scripts that run TileDB-Py as the reference (interop.sh,
# python_test.sh, python_asan.sh): the environment its libtiledb runs in.
#
# libtiledb 2.28-2.30 (TileDB-Py 0.34-0.36) starts a parallel merge of the
# fragments' tile lists for every sparse global-order read (consolidation
# too) and can free the merge's state while one of its tasks still runs:
# a SIGSEGV in MergeUnit's destructor on a compute thread, or a heap
# corrupted for later, in about 1% of the corpus generator's consolidation
# cases (TileDB fixed it after 2.30, PR 5723). A threshold of 0 turns the
# merge off and reads take the tile order they took before 2.28; the cells
# read, and the bytes consolidation writes, are the same. libtiledb reads
# any TILEDB_<PARAM> variable as the default of <param>; older releases
# ignore this one. The benchmarks leave it unset: they time TileDB as
# users run it.
export TILEDB_SM_QUERY_SPARSE_GLOBAL_ORDER_PREPROCESS_TILE_MERGE=0
