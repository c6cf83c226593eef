"""The data folder is its owner's alone: `keep_private` makes it 0700 and its files
0600, new ones and those an earlier release left readable, and says so once."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from operations.data_folder import keep_private


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(autouse=True)
def restored_umask() -> Iterator[None]:
    """keep_private sets the process's umask: give the test process its own back."""
    before = os.umask(0o022)
    os.umask(before)
    yield
    os.umask(before)


def test_a_new_data_folder_and_what_is_created_in_it_are_private(tmp_path: Path) -> None:
    folder = tmp_path / "var"
    privacy = keep_private(folder)
    assert mode(folder) == 0o700
    assert privacy.message() is None  # nothing needed fixing
    # As the outbox writes a letter (it asks for 0644) and a folder is made for uploads:
    (folder / "outbox").mkdir()
    fd = os.open(folder / "outbox" / "letter.eml", os.O_WRONLY | os.O_CREAT, 0o644)
    os.close(fd)
    (folder / "clearance.db").write_text("")
    assert mode(folder / "outbox") == 0o700
    assert mode(folder / "outbox" / "letter.eml") == 0o600
    assert mode(folder / "clearance.db") == 0o600


def test_an_existing_install_is_fixed_on_start_and_says_so_once(tmp_path: Path) -> None:
    os.umask(0o022)
    folder = tmp_path / "var"
    (folder / "evidence" / "ab").mkdir(parents=True)
    (folder / "evidence" / "ab" / "ab12").write_bytes(b"%PDF")
    (folder / "clearance.db").write_text("")
    (folder / "temporal.db").write_text("")
    (folder / "secret_key").write_text("k")
    os.chmod(folder / "secret_key", 0o400)  # already private (and read-only): kept so
    elsewhere = tmp_path / "db" / "app.db"  # a SQLite database outside the data folder
    elsewhere.parent.mkdir()
    elsewhere.write_text("")
    outside = tmp_path / "shared.txt"
    outside.write_text("")
    (folder / "link").symlink_to(outside)
    assert mode(folder / "clearance.db") == 0o644 and mode(folder) == 0o755

    privacy = keep_private(folder, [elsewhere, tmp_path / "db" / "app.db-wal"])
    for path in (folder, folder / "evidence", folder / "evidence" / "ab"):
        assert mode(path) == 0o700, path
    for path in (folder / "evidence" / "ab" / "ab12", folder / "clearance.db", elsewhere):
        assert mode(path) == 0o600, path
    assert mode(folder / "temporal.db") == 0o600
    assert mode(folder / "secret_key") == 0o400
    assert mode(outside) == 0o644  # a link is not followed out of the folder
    assert mode(tmp_path / "db") == 0o755  # nor is a database's own folder changed
    message = privacy.message()
    assert message is not None
    assert f"made the data folder {folder} private: 7 files and folders" in message
    # The next start finds nothing to fix and says nothing.
    assert keep_private(folder, [elsewhere]).message() is None
