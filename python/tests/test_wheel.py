"""The package as a user installs it: the wheel that scripts/python_test.sh
builds (pip wheel) and repairs (auditwheel), which every other test here
then runs against. The extension links the libraries the wheel bundles
(tilefmt.libs/), not the system's: checked with ldd, and by reading and
writing arrays through every codec in a mount namespace where the system's
copies of those libraries are /dev/null and /usr/include is empty (a
machine without the -dev packages, nor their runtime libraries).
"""

import glob
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

import tilefmt

WHEEL = os.environ.get("TILEFMT_WHEEL")
pytestmark = pytest.mark.skipif(not WHEEL, reason="not installed from the repaired wheel (scripts/python_test.sh)")

# What a manylinux wheel may take from the system (auditwheel's policy): the
# C and C++ runtimes (glibc's libraries among them), and zlib.
SYSTEM = ("linux-vdso", "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "libpthread.so", "libdl.so",
          "librt.so", "libresolv.so", "ld-linux", "libz.so")
# The libraries the extension links that a machine without tilefmt's build
# dependencies may lack.
BUNDLED = ("libzstd", "liblz4", "libbz2", "libmd", "libwebp", "libcrypto", "libssl", "libcurl")


def core():
    return tilefmt._core.__file__


def test_the_wheel_is_manylinux_and_bundles_its_libraries():
    name = os.path.basename(WHEEL)
    assert "manylinux" in name, name
    with zipfile.ZipFile(WHEEL) as z:
        libs = [n for n in z.namelist() if n.startswith("tilefmt.libs/")]
    for lib in BUNDLED:
        assert any(os.path.basename(n).startswith(lib + "-") for n in libs), (lib, libs)
    print("wheel %s: %.1f MB" % (name, os.path.getsize(WHEEL) / 2 ** 20))


def test_the_extension_links_only_bundled_and_base_libraries():
    out = subprocess.run(["ldd", core()], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        name = os.path.basename(line.strip().split()[0])
        if name.startswith(SYSTEM):
            continue
        assert "tilefmt.libs" in line, line


READ_WRITE = r"""
import os, sys
import numpy as np
import tilefmt
uri = sys.argv[1]
filters = [("ZSTD", 3), ("LZ4", 1), ("BZIP2", 5), ("GZIP", 6)]
attrs = [tilefmt.Attr("a%d" % i, np.float64, filters=[f]) for i, f in enumerate(filters)]
attrs.append(tilefmt.Attr("md5", np.int32, filters=[("CHECKSUM_MD5",), ("CHECKSUM_SHA256",)]))
tilefmt.create(uri, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (0, 9999), 1000, np.int64)),
                                   attrs=attrs))
values = np.arange(10000.0)
with tilefmt.open(uri, "w") as A:
    A[0:10000] = dict({"a%d" % i: values for i in range(len(filters))}, md5=np.arange(10000, dtype=np.int32))
with tilefmt.open(uri) as A:
    got = A[:]
for i in range(len(filters)):
    assert (got["a%d" % i] == values).all()
loaded = [l.split()[-1] for l in open("/proc/self/maps") if ".so" in l]
for lib in ("libzstd", "liblz4", "libbz2", "libmd", "libcrypto"):
    mine = [p for p in loaded if os.path.basename(p).startswith(lib)]
    assert mine and all("tilefmt.libs" in p for p in mine), (lib, mine)
print("ok")
"""


def test_reads_and_writes_where_the_system_has_none_of_the_libraries(tmp_path):
    if not shutil.which("unshare") or subprocess.run(["unshare", "-m", "true"]).returncode != 0:
        pytest.skip("no mount namespace here (unshare -m)")
    hidden = set()
    for folder in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
        for lib in BUNDLED:
            hidden.update(os.path.realpath(p) for p in glob.glob(os.path.join(folder, lib + ".so*")))
    assert hidden, "the system has none of the bundled libraries: nothing to hide"
    script = "".join("mount --bind /dev/null '%s' && " % p for p in sorted(hidden))
    script += "mount -t tmpfs none /usr/include && exec \"$@\""
    out = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", sys.executable, "-c", READ_WRITE,
                          str(tmp_path / "array")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
