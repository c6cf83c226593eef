"""Regenerate the initial migration from models/schema.py: `python -m migrations.regenerate`.

For the first release only, while no database beyond a developer's has been migrated:
there is one migration, `0001`, and it is the models. After the first release, add a new
revision instead (`alembic revision --autogenerate -m "..."`) and never edit this one.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from alembic import command
from alembic.config import Config

from models.database import BASELINE_REVISION, MIGRATIONS_DIR

VERSIONS = MIGRATIONS_DIR / "versions"
ROOT = MIGRATIONS_DIR.parent


def regenerate() -> Path:
    for old in VERSIONS.glob(f"{BASELINE_REVISION}_*.py"):
        old.unlink()
    with tempfile.TemporaryDirectory() as scratch:
        config = Config(str(ROOT / "alembic.ini"))
        config.cmd_opts = type("Opts", (), {"x": [f"url=sqlite:///{scratch}/empty.db"]})()
        command.revision(
            config, message="initial schema", autogenerate=True, rev_id=BASELINE_REVISION
        )
    (path,) = VERSIONS.glob(f"{BASELINE_REVISION}_*.py")
    text = path.read_text()
    # Alembic's reminders to edit by hand: this file is generated, so they would mislead.
    text = re.sub(r"\n *# ### .* ###", "", text)
    text = re.sub(r"Create Date: .*\n", "", text)
    path.write_text(text)
    ruff = Path(sys.executable).parent / "ruff"
    subprocess.run([str(ruff), "check", "--fix", "--quiet", str(path)], check=True)
    subprocess.run([str(ruff), "format", "--quiet", str(path)], check=True)
    return path


if __name__ == "__main__":
    print(regenerate())
