"""The data folder is its owner's alone: folders 0700, files 0600.

It holds the app database (SQLite), the Temporal dev server's SQLite file, the outbox of
letters (.eml), applicants' evidence uploads, the secret key that signs sessions and
portal links, and logs: nothing in it is for other users of the machine. The processes
that write there (`clearance run`, `clearance worker`, `clearance web`) call
`keep_private` first: it sets the umask so every file they (and the Temporal dev server
they start) create is 0600 and every folder 0700, and takes group and other access away
from what an earlier release left readable, so an existing install is fixed on its next
start (and says so once).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

# New files 0600 and new folders 0700, whatever mode the code creating them asks for.
PRIVATE_UMASK = 0o077
FOLDER_MODE = 0o700
GROUP_AND_OTHERS = 0o077


@dataclass
class Privacy:
    """What `keep_private` did: the paths it made private and those it could not change
    (owned by another user)."""

    folder: Path
    fixed: list[Path] = field(default_factory=list)
    refused: list[Path] = field(default_factory=list)

    def message(self) -> str | None:
        """One line for the log when anything was changed or could not be; else None."""
        parts = []
        if self.fixed:
            parts.append(
                f"made the data folder {self.folder} private: {len(self.fixed)} files and "
                "folders were open to other users and are now 0600 (files) and 0700 (folders)"
            )
        if self.refused:
            shown = ", ".join(str(p) for p in self.refused[:3])
            more = f" and {len(self.refused) - 3} more" if len(self.refused) > 3 else ""
            parts.append(
                f"could not make {len(self.refused)} paths in {self.folder} private "
                f"(not ours to change): {shown}{more}"
            )
        return "; ".join(parts) or None


def keep_private(folder: Path, files: Iterable[Path] = ()) -> Privacy:
    """Set this process's umask to 077 (inherited by the processes it starts), create
    `folder` 0700 if missing, and take group and other access away from it, everything
    under it, and `files` (e.g. a SQLite database kept elsewhere, with its -wal and -shm).
    Symbolic links are left alone, and nothing is followed through them."""
    os.umask(PRIVATE_UMASK)
    folder = Path(folder)
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    privacy = Privacy(folder)
    for path in _tree(folder):
        _tighten(path, privacy)
    for path in files:
        if path.exists() and not path.is_symlink():
            _tighten(path, privacy)
    return privacy


def _tree(folder: Path) -> Iterable[Path]:
    yield folder
    for root, folders, names in os.walk(folder):  # never follows links to folders
        for name in folders + names:
            yield Path(root) / name


def _tighten(path: Path, privacy: Privacy) -> None:
    try:
        info = path.lstat()
    except FileNotFoundError:  # removed meanwhile (a finished upload's temporary file)
        return
    if stat.S_ISLNK(info.st_mode):
        return
    mode = stat.S_IMODE(info.st_mode)
    wanted = mode & ~GROUP_AND_OTHERS
    if stat.S_ISDIR(info.st_mode):
        wanted |= FOLDER_MODE
    if wanted == mode:
        return
    try:
        os.chmod(path, wanted)
    except PermissionError:
        privacy.refused.append(path)
    except FileNotFoundError:
        return
    else:
        privacy.fixed.append(path)
