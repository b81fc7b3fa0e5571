"""Values worked out from a file once per change of that file.

A batch asks for the same files many times (the fingerprint hashes every file of the grading
package, each grading run starts from the reference notebook's setup cells), and they do not
change while it runs; when one does, its size, modification time or inode says so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


class PerChange(Generic[T]):
    """`make(path)`, worked out again only when the file's size, modification time or inode
    changed. Raises OSError when the file cannot be looked at."""

    def __init__(self, make: Callable[[Path], T]) -> None:
        self._make = make
        self._made: dict[tuple[Path, int, int, int], T] = {}

    def __call__(self, path: Path) -> T:
        status = path.stat()
        key = (path, status.st_mtime_ns, status.st_size, status.st_ino)
        if key not in self._made:
            self._made[key] = self._make(path)
        return self._made[key]
