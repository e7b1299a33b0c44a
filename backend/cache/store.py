"""The compile cache's directory: one checked file per key, bounded in size.

An entry is a `backend/container.py` file (magic `MJCACHE\\0`): a JSON manifest
and a blob, with a SHA-256 over both. Reading checks magic, version, length and
checksum before anything is used, so a truncated, corrupted or foreign file is
an `CacheEntryError` (the caller warns and compiles again), never a crash. No
pickle: nothing in the directory can run code.

Writers write a temporary file in the directory and rename it over the entry,
so two processes compiling the same network at once both succeed and leave one
whole entry; a temp file whose writer died (`support/files.py` names them) goes
at the next trim. After each write the directory is trimmed to `max_bytes`, least
recently used first (a hit refreshes an entry's time).
"""

from __future__ import annotations

import os
import time
from typing import Any

from mindjit.backend.container import ContainerError, pack, unpack
from mindjit.support.files import is_dead_temp, is_temp, write_atomic

MAGIC = b"MJCACHE\0"
FORMAT_VERSION = 1
SUFFIX = ".mjc"
STALE_TEMP_SECONDS = 3600.0  # a temporary file this old belongs to a writer that died


class CacheEntryError(ContainerError):
    """An entry that cannot be used (damaged, foreign, or from another format)."""


class CompileCache:
    def __init__(self, directory: str, max_bytes: int):
        self.directory = directory
        self.max_bytes = max_bytes

    def path_of(self, key: str) -> str:
        return os.path.join(self.directory, key + SUFFIX)

    def load(self, key: str) -> tuple[Any, bytes] | None:
        """(manifest, blob) of the entry for `key`; None when there is none."""
        path = self.path_of(key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CacheEntryError(f"cannot read it: {exc.strerror}", path) from None
        manifest, blob = unpack(
            data, MAGIC, FORMAT_VERSION, "mindjit compile-cache entry", CacheEntryError
        )
        if not isinstance(manifest, dict) or manifest.get("key") != key:
            raise CacheEntryError("it belongs to another key", path)
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
        return manifest, blob

    def store(self, key: str, manifest: dict[str, Any], blob: bytes) -> None:
        """Write the entry (whole or not at all), then trim the directory."""
        data = pack(MAGIC, FORMAT_VERSION, {**manifest, "key": key}, blob)
        if len(data) > self.max_bytes:
            return  # it alone would overflow the bound: not kept
        os.makedirs(self.directory, exist_ok=True)
        write_atomic(self.path_of(key), data, private=True)  # the cache stays private
        self.evict()

    def evict(self) -> None:
        """Delete the least recently used entries until the directory fits."""
        entries = []
        now = time.time()
        try:
            listing = list(os.scandir(self.directory))
        except OSError:
            return
        for e in listing:
            try:
                st = e.stat()
            except OSError:
                continue  # another process removed it
            if is_temp(e.name):  # a writer's; its own if it died (or another host's, if old)
                if is_dead_temp(e.name) or now - st.st_mtime > STALE_TEMP_SECONDS:
                    _remove(e.path)
                continue
            if e.name.endswith(SUFFIX):
                entries.append((st.st_mtime_ns, st.st_size, e.path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            _remove(path)
            total -= size

    def discard(self, key: str) -> None:
        _remove(self.path_of(key))


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
