"""`clearance run` keeps its data folder its owner's alone: the folder 0700 and every file
it makes there 0600 (the app database, the Temporal dev server's file, the letters in the
outbox), and an older install's readable files are fixed on its next start."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.browser.harness import running_stack


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_clearance_run_keeps_the_data_folder_private(tmp_path: Path) -> None:
    # An install from before: its folder 0755 and a letter 0644.
    data_dir = tmp_path / "var"
    (data_dir / "outbox").mkdir(parents=True)
    old_letter = data_dir / "outbox" / "old-letter.eml"
    old_letter.write_text("Subject: an older letter\n\nkept\n")
    os.chmod(data_dir, 0o755)
    os.chmod(data_dir / "outbox", 0o755)
    os.chmod(old_letter, 0o644)

    with running_stack(tmp_path) as stack:
        assert stack.data_dir == data_dir
        # The demo has sent its letters (the shot clocks' notices) by the time it is ready.
        letters = sorted((data_dir / "outbox").glob("*.eml"))
        assert len(letters) > 1, sorted(p.name for p in data_dir.rglob("*"))
        made = [data_dir / "temporal.db", *letters]
        if not os.environ.get("CLEARANCE_TEST_DATABASE_URL"):
            made.append(data_dir / "clearance.db")
        assert mode(data_dir) == 0o700
        for path in data_dir.rglob("*"):
            if path.is_dir():
                assert mode(path) == 0o700, path
            else:
                assert mode(path) & 0o077 == 0, (path, oct(mode(path)))
        for path in made:
            assert mode(path) == 0o600, path
        log = stack.log.read_text(errors="replace")
        assert log.count(f"made the data folder {data_dir} private") == 1, log[-3000:]
