"""Writes the .npz archives tsc-run.test feeds tsc-run, from make_artifact.py's
fixtures in DIR: good ones (np.savez, np.savez_compressed) and hostile ones.

Usage: make_npz.py DIR

  gemm_in.npz         x and ids (np.savez: stored entries)
  gemm_expected.npz   y and ids_out as expected (np.savez_compressed: deflated)
  gemm_off.npz        the same with one element of y off by 1e-3
  extra.npz           x, ids and an array 'z' the model has no input for
  not_npy.npz         a zip whose entry is x.txt
  twice.npz           x.npy, then x.npy again (zipfile warns, writes both)
  bad_crc.npz         x stored, one data byte changed after the CRC was taken
  claims_huge.npz     x deflated, its uncompressed size patched to ~4 GiB
  inflates_past.npz   x deflated, its uncompressed size patched 16 bytes short
  not_a_zip.npz       a .npy file's bytes under a .npz name
"""
import io
import pathlib
import struct
import sys
import warnings
import zipfile

import numpy as np

d = pathlib.Path(sys.argv[1])
x = np.load(d / "gemm_x.npy")
ids = np.load(d / "gemm_ids.npy")
y = np.load(d / "gemm_y_expected.npy")

np.savez(d / "gemm_in.npz", x=x, ids=ids)
np.savez_compressed(d / "gemm_expected.npz", y=y, ids_out=ids)
off = y.copy()
off[1, 2] += 1e-3
np.savez(d / "gemm_off.npz", y=off, ids_out=ids)
np.savez(d / "extra.npz", x=x, ids=ids, z=x)


def npy(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


with zipfile.ZipFile(d / "not_npy.npz", "w") as z:
    z.writestr("x.txt", npy(x))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with zipfile.ZipFile(d / "twice.npz", "w") as z:
        z.writestr("x.npy", npy(x))
        z.writestr("x.npy", npy(x))


def stored(path, data, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=method) as z:
        z.writestr("x.npy", data)
    return bytearray(path.read_bytes())


def patch_sizes(raw, compressed=None, uncompressed=None):
    """Rewrites the sizes of the one entry in its local header and in the
    central directory."""
    local = raw.find(b"PK\x03\x04")
    central = raw.find(b"PK\x01\x02")
    for at, csize_off in ((local, 18), (central, 20)):
        if compressed is not None:
            struct.pack_into("<I", raw, at + csize_off, compressed)
        if uncompressed is not None:
            struct.pack_into("<I", raw, at + csize_off + 4, uncompressed)
    return raw


data = npy(x)
raw = stored(d / "bad_crc.npz", data)
raw[raw.find(data) + len(data) - 1] ^= 0x40
(d / "bad_crc.npz").write_bytes(raw)

raw = stored(d / "claims_huge.npz", data, zipfile.ZIP_DEFLATED)
(d / "claims_huge.npz").write_bytes(patch_sizes(raw, uncompressed=0xFFFFFFF0))

raw = stored(d / "inflates_past.npz", data, zipfile.ZIP_DEFLATED)
(d / "inflates_past.npz").write_bytes(patch_sizes(raw, uncompressed=len(data) - 16))

(d / "not_a_zip.npz").write_bytes(data)
print(f"make_npz: wrote 10 archives to {d}")
