"""Writes a SOMA experiment with tiledbsoma and records how tiledbsoma reads it.

    python soma_make.py OUT_DIR

Runs in a virtual environment of its own (scripts/python_test.sh makes it
from python/requirements-soma.txt: tiledbsoma pins pandas below the test
environment's). The AnnData is made here, seeded: 300 cells x 120 genes,
X sparse (about 8% of cells non-zero, float32 counts), a raw layer, obs with
a categorical, an integer, a float and a string column, var with gene names
and a boolean, obsm X_pca (dense, becomes a sparse array in SOMA) and varm,
obsp distances, uns values. tiledbsoma.io.from_anndata writes it into
OUT_DIR/experiment. Every SOMA object is then read back with tiledbsoma
into OUT_DIR/reference/<path>.arrow (Arrow IPC files: dataframes whole,
sparse arrays as their soma_dim_*/soma_data table), and OUT_DIR/manifest.json
lists each object's path, SOMA type and TileDB object type.
"""

import json
import os
import shutil
import sys

import anndata as ad
import numpy as np
import pandas as pd
import pyarrow as pa
import scipy.sparse as sp
import tiledbsoma
import tiledbsoma.io


def make_anndata():
    rng = np.random.default_rng(20261129)
    n_obs, n_var = 300, 120
    x = sp.random(n_obs, n_var, density=0.08, format="csr", random_state=7, dtype=np.float32)
    x.data = np.ceil(x.data * 20).astype(np.float32)
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical(rng.choice(["B cell", "T cell", "NK cell", "monocyte"], n_obs)),
            "n_genes": np.asarray((x > 0).sum(axis=1)).ravel().astype(np.int64),
            "percent_mito": rng.random(n_obs).astype(np.float64),
            "donor": [f"donor-{i % 7}" for i in range(n_obs)],
        },
        index=[f"cell-{i:04d}" for i in range(n_obs)],
    )
    var = pd.DataFrame(
        {"highly_variable": rng.random(n_var) < 0.3, "mean": rng.random(n_var).astype(np.float32)},
        index=[f"GENE{i:03d}" for i in range(n_var)],
    )
    a = ad.AnnData(X=x, obs=obs, var=var)
    a.layers["raw"] = x.copy()
    a.obsm["X_pca"] = rng.standard_normal((n_obs, 10)).astype(np.float32)
    a.varm["PCs"] = rng.standard_normal((n_var, 10)).astype(np.float64)
    a.obsp["distances"] = sp.random(n_obs, n_obs, density=0.02, format="csr", random_state=3, dtype=np.float64)
    a.uns["title"] = "tilefmt single-cell test"
    return a


def table_of(obj):
    if isinstance(obj, tiledbsoma.DataFrame):
        return obj.read().concat()
    if isinstance(obj, tiledbsoma.SparseNDArray):
        return obj.read().tables().concat()
    if isinstance(obj, tiledbsoma.DenseNDArray):
        t = obj.read().to_numpy()
        return pa.table({"soma_data": t.ravel()}).replace_schema_metadata({"shape": json.dumps(list(t.shape))})
    return None


def walk(obj, path, out, ref_dir):
    kind = type(obj).__name__
    entry = {"path": path, "soma_type": obj.soma_type, "kind": kind}
    if isinstance(obj, tiledbsoma.Collection) or hasattr(obj, "items") and not hasattr(obj, "read"):
        entry["object_type"] = "group"
        entry["members"] = sorted(obj.keys())
        entry["metadata"] = {k: v for k, v in obj.metadata.items() if isinstance(v, (str, int, float))}
        out.append(entry)
        for name in sorted(obj.keys()):
            walk(obj[name], f"{path}/{name}" if path else name, out, ref_dir)
        return
    entry["object_type"] = "array"
    entry["metadata"] = {k: v for k, v in obj.metadata.items() if isinstance(v, (str, int, float))}
    table = table_of(obj)
    if table is not None:
        ref = os.path.join(ref_dir, path.replace("/", "__") + ".arrow")
        with pa.OSFile(ref, "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
        entry["reference"] = os.path.basename(ref)
        entry["rows"] = table.num_rows
    out.append(entry)


def main():
    out_dir = os.path.abspath(sys.argv[1])
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(os.path.join(out_dir, "reference"))
    uri = os.path.join(out_dir, "experiment")
    tiledbsoma.io.from_anndata(uri, make_anndata(), measurement_name="RNA")
    objects = []
    with tiledbsoma.Experiment.open(uri) as exp:
        walk(exp, "", objects, os.path.join(out_dir, "reference"))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"tiledbsoma": tiledbsoma.__version__, "objects": objects}, f, indent=1, default=str)
    arrays = sum(1 for o in objects if o["object_type"] == "array")
    print(f"soma_make: tiledbsoma {tiledbsoma.__version__} wrote {len(objects) - arrays} groups and {arrays} arrays")


if __name__ == "__main__":
    main()
