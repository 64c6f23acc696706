"""tilefmt.open: the one entry point that knows both the reader (_array)
and the writer (_write), so that neither imports the other's caller."""

from ._array import Array
from ._maintain import ArrayDeleter
from ._write import ArrayWriter


def open(uri, mode="r", key=None, timestamp=None, config=None):
    """Opens the TileDB array at `uri` (for reading unless `mode` is "w"):
    a local path or ``s3://bucket/key``.

    `key`: the AES-256-GCM key of an encrypted array (32 bytes, str or
    bytes). `timestamp`: read as of this time (ms since the epoch), or a
    (start, end) pair, as in TileDB-Py. The result is a context manager.
    Mode "w" opens it for writing (tilefmt.ArrayWriter; `timestamp` then
    names the fragments' time). `config`: storage options for s3:// URIs
    (endpoint, region, credentials; see tilefmt._config), over the AWS
    environment variables. Mode "d" opens it for deleting cells
    (``A.query(cond=...).submit()``, tilefmt._maintain.ArrayDeleter)."""
    if mode == "w":
        return ArrayWriter(uri, timestamp=timestamp, config=config, key=key)
    if mode == "d":
        return ArrayDeleter(uri, timestamp=timestamp, config=config, key=key)
    if mode != "r":
        raise ValueError('tilefmt.open: mode must be "r", "w" or "d"')
    return Array(uri, key=key, timestamp=timestamp, config=config)
