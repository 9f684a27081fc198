"""What a name in the PDF folder (or in a metadata row) points at: a PDF to read, or why not.

Documents are untrusted input. A symlink or a metadata path may lead out of the collection's folder
(`../../etc/passwd`, a link to a private file): such a file is refused, never opened, and its message
names the path only, never its bytes. Entries that cannot be read as files get a status too instead
of vanishing: dangling links, link loops, folders named `x.pdf`, FIFOs, sockets and devices (a FIFO
is never opened: opening one blocks until someone writes to it).

Only stat calls are made here; no file is opened. A file may be swapped (for a link out) after its
check: whoever opens it later opens the resolved `target` without following links and compares the
opened file's `ident` with the checked one (collection.collection._sha256_checked).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

# error_kind of each refusal (the documents' status is 'error'); MISSING is the caller's to explain.
OUTSIDE = "outside_folder"
DANGLING = "dangling_symlink"
LOOP = "symlink_loop"
NOT_A_FILE = "not_a_file"  # a folder named like a PDF
SPECIAL = "special_file"  # FIFO, socket, character or block device
UNREADABLE = "unreadable"
MISSING = "missing"


@dataclass(frozen=True)
class FolderEntry:
    """One name: `path` as listed or named, `target` the real file when it may be read, and `ident`
    that file's (st_dev, st_ino) when checked, so a later open can tell it is still the same file."""

    path: Path
    target: Path | None
    error_kind: str | None = None
    message: str = ""
    ident: tuple[int, int] | None = None

    @property
    def ok(self) -> bool:
        return self.error_kind is None


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def inspect(path: Path, root: Path) -> FolderEntry:
    """Classify `path` against the collection folder `root` (already resolved), by stat calls only."""
    try:
        is_link = path.is_symlink()
        st = os.stat(path)  # follows links
    except OSError as e:
        if e.errno == errno.ELOOP:
            return FolderEntry(path, None, LOOP, f"{path} is a symlink loop; remove it or point it at a PDF")
        if e.errno in (errno.ENOENT, errno.ENOTDIR) and is_link:
            return FolderEntry(
                path,
                None,
                DANGLING,
                f"{path} is a symlink to a file that does not exist; remove the link or put the PDF back",
            )
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            return FolderEntry(path, None, MISSING, f"{path} does not exist")
        return FolderEntry(path, None, UNREADABLE, f"{path} cannot be read ({e.strerror}); check permissions")
    target = Path(os.path.realpath(path))
    if not target.is_relative_to(root):
        # The resolved path stays out of the message: a link should not reveal where it points.
        how = "a symlink that leads" if is_link else "a path that leads"
        return FolderEntry(
            path,
            None,
            OUTSIDE,
            f"{path} is {how} outside the PDF folder {root}; refused (a document must be a file inside "
            "the folder): copy the PDF into the folder and rebuild",
        )
    if stat.S_ISDIR(st.st_mode):
        return FolderEntry(
            path, None, NOT_A_FILE, f"{path} is a folder, not a PDF file; rename it or move the PDF out of it"
        )
    if not stat.S_ISREG(st.st_mode):
        return FolderEntry(
            path,
            None,
            SPECIAL,
            f"{path} is {_special_kind(st.st_mode)}, not a PDF file; not opened. Replace it with the PDF",
        )
    if not os.access(target, os.R_OK):
        return FolderEntry(
            path, None, UNREADABLE, f"{path} cannot be read (permission denied); check permissions"
        )
    return FolderEntry(path, target, ident=(st.st_dev, st.st_ino))


def scan_folder(pdf_dir: Path) -> list[FolderEntry]:
    """Every entry of the folder whose name ends in .pdf (any case), sorted by name, each classified.
    Other names (notes, the metadata file) are not documents and are left alone."""
    root = pdf_dir.resolve()
    names = sorted(n for n in os.listdir(pdf_dir) if n.lower().endswith(".pdf"))
    return [inspect(pdf_dir / n, root) for n in names]
