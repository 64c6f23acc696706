"""Writes SOMA experiments with tiledbsoma, for tilefmt.soma's tests.

    python soma_make.py OUT_DIR

Imported by test_soma_api.py (which runs beside tiledbsoma, in the SOMA
venv that scripts/python_test.sh makes from python/requirements-soma.txt)
and run by that script to record, for test_soma.py (the test venv, no
tiledbsoma), how tiledbsoma reads every object of one experiment:
OUT_DIR/experiment, OUT_DIR/reference/<path>.arrow (Arrow IPC files:
dataframes whole, sparse arrays as soma_dim_*/soma_data tables, dense ones
as soma_data in row-major order) and OUT_DIR/manifest.json (each object's
path, SOMA type, TileDB object type, members and metadata).

The experiment (`write_experiment`): an AnnData made here, seeded (cells x
genes, X sparse float32 counts at about 8%, a "raw" layer; obs with
categorical, integer, float, string, boolean and nullable string and
integer columns; var with a boolean, a float, nullable string and integer
columns; obsm X_pca, varm PCs, obsp distances, uns), written by
tiledbsoma.io.from_anndata; then, at a
later time, 50 more cells appended through tiledbsoma.io's registration; a
second measurement "ADT" (its own var and an X layer "counts", float64)
and a collection "extras" holding a DenseNDArray. `write_census` writes the
layout and columns of the CELLxGENE Census (cellxgene-census' schema) at a
small size.
"""

import json
import os
import shutil
import sys
import time

import anndata as ad
import numpy as np
import pandas as pd
import pyarrow as pa
import scipy.sparse as sp
import tiledbsoma
import tiledbsoma.io


def make_anndata(n_obs=300, n_var=120, seed=20261129, prefix="cell"):
    rng = np.random.default_rng(seed)
    x = sp.random(n_obs, n_var, density=0.08, format="csr", random_state=seed % 1000, dtype=np.float32)
    x.data = np.ceil(x.data * 20).astype(np.float32)
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical(rng.choice(["B cell", "T cell", "NK cell", "monocyte"], n_obs)),
            "n_genes": np.asarray((x > 0).sum(axis=1)).ravel().astype(np.int64),
            "percent_mito": rng.random(n_obs).astype(np.float64),
            "donor": [f"donor-{i % 7}" for i in range(n_obs)],
            "is_primary": np.arange(n_obs) % 2 == 0,
            "batch": pd.array([None if i % 5 == 0 else f"b{i % 3}" for i in range(n_obs)], dtype=object),
            "n_umi": pd.array([None if i % 7 == 0 else i for i in range(n_obs)], dtype="Int64"),
        },
        index=[f"{prefix}-{i:05d}" for i in range(n_obs)],
    )
    var = pd.DataFrame(
        {"highly_variable": rng.random(n_var) < 0.3, "mean": rng.random(n_var).astype(np.float32),
         "symbol": pd.array([None if i % 9 == 0 else f"sym{i}" for i in range(n_var)], dtype=object),
         "n_cells": pd.array([None if i % 11 == 0 else i * 3 for i in range(n_var)], dtype="Int32")},
        index=[f"GENE{i:04d}" for i in range(n_var)],
    )
    a = ad.AnnData(X=x, obs=obs, var=var)
    a.layers["raw"] = x.copy()
    a.obsm["X_pca"] = rng.standard_normal((n_obs, 10)).astype(np.float32)
    a.varm["PCs"] = rng.standard_normal((n_var, 10)).astype(np.float64)
    a.obsp["distances"] = sp.random(n_obs, n_obs, density=0.02, format="csr", random_state=3, dtype=np.float64)
    a.uns["title"] = "tilefmt single-cell test"
    return a


def write_experiment(uri, n_obs=300, n_var=120, appended=50):
    """Writes the experiment at `uri`; returns the time (ms) between the
    first ingest and the appended cells."""
    tiledbsoma.io.from_anndata(uri, make_anndata(n_obs, n_var), measurement_name="RNA")
    time.sleep(0.01)
    before_append = int(time.time() * 1000)
    time.sleep(0.01)
    if appended:
        more = make_anndata(appended, n_var, seed=7, prefix="later")
        del more.obsp
        del more.varm
        more.uns = {}
        rd = tiledbsoma.io.register_anndatas(uri, [more], measurement_name="RNA", obs_field_name="obs_id",
                                             var_field_name="var_id", append_obsm_varm=True)
        rd.prepare_experiment(uri)
        tiledbsoma.io.from_anndata(uri, more, measurement_name="RNA", registration_mapping=rd)
    n_cells = n_obs + appended
    with tiledbsoma.Experiment.open(uri, "w") as exp:
        adt = exp.ms.add_new_collection("ADT", tiledbsoma.Measurement)
        var = adt.add_new_dataframe("var", schema=pa.schema([("protein", pa.large_string()), ("isotype", pa.bool_())]),
                                    index_column_names=["soma_joinid"], domain=[(0, 9)])
        var.write(pa.table({"soma_joinid": pa.array(np.arange(10), pa.int64()),
                            "protein": [f"CD{i}" for i in range(10)], "isotype": [i % 4 == 0 for i in range(10)]}))
        m = sp.random(n_cells, 10, density=0.3, format="coo", random_state=1)
        counts = adt.add_new_collection("X").add_new_sparse_ndarray("counts", type=pa.float64(), shape=(n_cells, 10))
        counts.write(pa.table({"soma_dim_0": m.row.astype(np.int64), "soma_dim_1": m.col.astype(np.int64),
                               "soma_data": m.data}))
        grid = exp.add_new_collection("extras").add_new_dense_ndarray("grid", type=pa.int32(), shape=(20, 30))
        grid.write((slice(0, 19), slice(0, 29)), pa.Tensor.from_numpy(np.arange(600, dtype=np.int32).reshape(20, 30)))
    return before_append


def write_census(root, n_obs=400, n_var=150, seed=5):
    """The CELLxGENE Census' layout and columns, small: a collection with
    census_info (summary, datasets) and census_data/homo_sapiens, an
    experiment whose obs and var have the Census' columns and whose RNA
    measurement has X layers "raw" and "normalized"."""
    rng = np.random.default_rng(seed)

    def cat(values, n):
        return pd.Categorical(rng.choice(values, n))

    x = sp.random(n_obs, n_var, density=0.05, format="csr", random_state=seed, dtype=np.float32)
    x.data = np.ceil(x.data * 50).astype(np.float32)
    nnz = np.diff(x.indptr).astype(np.int64)
    tissues = ["lung", "blood", "brain", "kidney"]
    obs = pd.DataFrame({
        "dataset_id": cat(["d0a1", "d0b2", "d0c3"], n_obs),
        "assay": cat(["10x 3' v3", "10x 3' v2", "Smart-seq2"], n_obs),
        "assay_ontology_term_id": cat(["EFO:0009922", "EFO:0009899", "EFO:0008931"], n_obs),
        "cell_type": cat(["B cell", "T cell", "natural killer cell", "classical monocyte"], n_obs),
        "cell_type_ontology_term_id": cat(["CL:0000236", "CL:0000084", "CL:0000623", "CL:0000860"], n_obs),
        "development_stage": cat(["adult stage", "unknown"], n_obs),
        "development_stage_ontology_term_id": cat(["HsapDv:0000087", "unknown"], n_obs),
        "disease": cat(["normal", "COVID-19"], n_obs),
        "disease_ontology_term_id": cat(["PATO:0000461", "MONDO:0100096"], n_obs),
        "donor_id": cat([f"donor_{i}" for i in range(6)], n_obs),
        "is_primary_data": rng.random(n_obs) < 0.8,
        "observation_joinid": [f"obs{i:08x}" for i in range(n_obs)],
        "self_reported_ethnicity": cat(["European", "unknown"], n_obs),
        "self_reported_ethnicity_ontology_term_id": cat(["HANCESTRO:0005", "unknown"], n_obs),
        "sex": cat(["female", "male"], n_obs),
        "sex_ontology_term_id": cat(["PATO:0000383", "PATO:0000384"], n_obs),
        "suspension_type": cat(["cell", "nucleus"], n_obs),
        "tissue": cat(tissues, n_obs),
        "tissue_ontology_term_id": cat(["UBERON:0002048", "UBERON:0000178", "UBERON:0000955", "UBERON:0002113"], n_obs),
        "tissue_type": cat(["tissue"], n_obs),
        "tissue_general": cat(tissues, n_obs),
        "tissue_general_ontology_term_id": cat(["UBERON:0002048", "UBERON:0000178"], n_obs),
        "raw_sum": np.asarray(x.sum(axis=1)).ravel().astype(np.float64),
        "nnz": nnz,
        "raw_mean_nnz": np.asarray(x.sum(axis=1)).ravel() / np.maximum(nnz, 1),
        "raw_variance_nnz": rng.random(n_obs),
        "n_measured_vars": np.full(n_obs, n_var, np.int64),
    }, index=[str(i) for i in range(n_obs)])
    var = pd.DataFrame({
        "feature_id": [f"ENSG{i:011d}" for i in range(n_var)],
        "feature_name": [f"G{i}" for i in range(n_var)],
        "feature_length": rng.integers(200, 20000, n_var).astype(np.int64),
        "nnz": np.diff(x.tocsc().indptr).astype(np.int64),
        "n_measured_obs": np.full(n_var, n_obs, np.int64),
    }, index=[str(i) for i in range(n_var)])
    a = ad.AnnData(X=x, obs=obs, var=var)
    norm = x.copy()
    norm.data = (norm.data / np.repeat(np.maximum(obs["raw_sum"].to_numpy(), 1), nnz)).astype(np.float32)
    a.layers["normalized"] = norm
    with tiledbsoma.Collection.create(root) as census:
        info = census.add_new_collection("census_info")
        summary = info.add_new_dataframe("summary", schema=pa.schema([("label", pa.large_string()),
                                                                       ("value", pa.large_string())]),
                                           domain=[(0, 1)])
        summary.write(pa.table({"soma_joinid": pa.array([0, 1], pa.int64()), "label": ["census_schema_version",
                                "total_cell_count"], "value": ["2.1.0", str(n_obs)]}))
        census.add_new_collection("census_data")
    path = os.path.join(root, "census_data", "homo_sapiens")
    tiledbsoma.io.from_anndata(path, a, measurement_name="RNA", X_layer_name="raw")
    with tiledbsoma.Collection.open(os.path.join(root, "census_data"), "w") as data, \
            tiledbsoma.Experiment.open(path) as exp:
        data.set("homo_sapiens", exp, use_relative_uri=True)
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
    write_experiment(uri)
    objects = []
    with tiledbsoma.Experiment.open(uri) as exp:
        walk(exp, "", objects, os.path.join(out_dir, "reference"))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"tiledbsoma": tiledbsoma.__version__, "objects": objects}, f, indent=1, default=str)
    arrays = sum(1 for o in objects if o["object_type"] == "array")
    print(f"soma_make: tiledbsoma {tiledbsoma.__version__} wrote {len(objects) - arrays} groups and {arrays} arrays")


if __name__ == "__main__":
    main()
