"""Enumerations declared from Python, as TileDB-Py declares them:
``tilefmt.Enumeration(name, ordered, values)`` in the schema's `enums`, an
attribute's `enum_label`, and from_pandas' categorical columns (an int32
attribute of the codes labelled by the categories). TileDB-Py reads what
tilefmt wrote (labels, conditions on labels, categorical frames), and
tilefmt reads TileDB-Py's from_pandas the same way.
"""

import numpy as np
import pytest

import tilefmt

tiledb = pytest.importorskip("tiledb")


def colors_schema():
    return tilefmt.Schema(
        domain=tilefmt.Domain(tilefmt.Dim("d", (0, 99), 10, np.int64)),
        attrs=[tilefmt.Attr("color", np.int8, enum_label="colors"),
               tilefmt.Attr("size", np.int32, enumeration="sizes"),
               tilefmt.Attr("x", np.float64)],
        sparse=True,
        enums=[tilefmt.Enumeration("colors", False, ["red", "green", "blue"]),
               tilefmt.Enumeration("sizes", True, [0.5, 1.0, 2.5])])


def test_attr_takes_enum_label_or_enumeration():
    a, b = tilefmt.Attr("a", np.int8, enum_label="e"), tilefmt.Attr("a", np.int8, enumeration="e")
    assert a == b and a.enum_label == b.enumeration == "e"
    assert "enum_label='e'" in repr(a)
    assert tilefmt.Attr("a", np.int8).enum_label is None
    e = tilefmt.Enumeration("e", True, ["x", "y"])
    assert e == tilefmt.Enumeration("e", True, ["x", "y"]) and e != tilefmt.Enumeration("e", False, ["x", "y"])
    assert list(e.values()) == ["x", "y"] and e.dtype.kind == "U" and e.cell_val_num == 0
    assert tilefmt.Enumeration("n", False, [0.5, 2.0]).values().dtype == np.float64


def test_enumerations_written_by_tilefmt_read_by_tiledb_py(tmp_path):
    uri = str(tmp_path / "colors")
    tilefmt.create(uri, colors_schema())
    d = np.arange(0, 100, 7, dtype=np.int64)
    color = (d % 3).astype(np.int8)
    size = (d % 2).astype(np.int32)
    with tilefmt.open(uri, "w") as A:
        A[d] = {"color": color, "size": size, "x": d * 0.5}
    with tiledb.open(uri) as T:
        assert list(T.enum("colors").values()) == ["red", "green", "blue"]
        assert list(T.enum("sizes").values()) == [0.5, 1.0, 2.5] and T.enum("sizes").ordered
        assert T.schema.attr("color").enum_label == "colors"
        got = T[:]
        np.testing.assert_array_equal(got["d"], d)
        assert list(got["color"]) == [["red", "green", "blue"][c] for c in color]
        blue = T.query(cond="color == 'blue'", attrs=["x"])[:]
        np.testing.assert_array_equal(blue["d"], d[color == 2])
    with tilefmt.open(uri) as A:
        assert A.enum("sizes") == tilefmt.Enumeration("sizes", True, [0.5, 1.0, 2.5])
        assert list(A.enum("colors").values()) == ["red", "green", "blue"] and not A.enum("colors").ordered
        assert list(A[:]["color"]) == [["red", "green", "blue"][c] for c in color]
        np.testing.assert_array_equal(A.query(cond="color == 'blue'", attrs=["x"])[:]["d"], d[color == 2])


@pytest.mark.parametrize("sparse", [True, False], ids=["sparse", "dense"])
def test_from_pandas_categorical_as_tiledb_py(tmp_path, sparse):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({
        "id": np.arange(50, dtype=np.int64),
        "cell_type": pd.Categorical(["B cell", "T cell", "NK cell", "B cell", "monocyte"] * 10),
        "grade": pd.Categorical([3, 1, 2, 1, 3] * 10, categories=[1, 2, 3], ordered=True),
        "value": np.linspace(0, 1, 50),
    }).set_index("id")
    mine, theirs = str(tmp_path / "mine"), str(tmp_path / "theirs")
    tilefmt.from_pandas(mine, frame, sparse=sparse)
    tiledb.from_pandas(theirs, frame, sparse=sparse)
    with tilefmt.open(mine) as A, tilefmt.open(theirs) as B, tiledb.open(theirs) as U:
        assert repr(A.schema) == repr(B.schema)
        assert dict(A.meta) == dict(B.meta)
        for label in ("cell_type", "grade"):
            assert A.enum(label) == B.enum(label)  # name, order flag, labels
            assert list(A.enum(label).values()) == list(U.enum(label).values())
            assert A.enum(label).ordered == U.enum(label).ordered
    # TileDB-Py's frames keep the categories, not their order (ordered=False).
    unordered = frame.assign(grade=frame["grade"].cat.as_unordered())
    with tiledb.open(mine) as T, tiledb.open(theirs) as U:
        assert T.enum("grade").ordered == U.enum("grade").ordered is True
        pd.testing.assert_frame_equal(T.df[:], U.df[:])
        pd.testing.assert_frame_equal(T.df[:], unordered)
        theirs_frame = U.df[:]
    with tilefmt.open(mine) as A:
        pd.testing.assert_frame_equal(A.df[:], theirs_frame)
