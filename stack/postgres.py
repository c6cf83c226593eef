"""A throwaway PostgreSQL cluster in a folder, from the server binaries installed on this
machine (initdb / pg_ctl): the test suite, the fault tests and `scripts/test` use it.

    with PostgresCluster(tmp / "pg") as cluster:
        url = cluster.create_database("clearance_test")

From a shell: `python -m stack.postgres start|stop|url|destroy ROOT` (destroy: stop and
delete the data).

The server only listens on 127.0.0.1 (no Unix socket: a temporary folder's path can be
too long for one) and trusts local connections: it is for tests, never for real data.
"""

from __future__ import annotations

import argparse
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import TracebackType

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

from stack.ports import free_port

# initdb and postgres refuse to run as root; CI runs as root, so they run as this user.
SERVER_USER = "postgres"

# Nothing here has to survive a machine crash: trade durability for speed.
FAST_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}

START_TIMEOUT_SECONDS = 60

# Database names the cluster accepts: a plain identifier, so it needs no quoting in a URL.
_DATABASE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def find_pg_bin_dir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres: `initdb` on PATH (links followed,
    so a /usr/local/bin link leads to the real folder), else the newest
    /usr/lib/postgresql/*/bin (Debian keeps them off PATH); None when none is installed."""
    on_path = shutil.which("initdb")
    if on_path is not None:
        folder = Path(on_path).resolve().parent
        if (folder / "pg_ctl").exists() and (folder / "postgres").exists():
            return folder
    candidates = [
        path
        for path in Path("/usr/lib/postgresql").glob("*/bin")
        if (path / "initdb").exists() and (path / "pg_ctl").exists()
    ]
    if not candidates:
        return None

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", path.parent.name)) or (0,)

    return max(candidates, key=version)


def running_as_root() -> bool:
    return os.geteuid() == 0


def ensure_server_user(name: str = SERVER_USER) -> pwd.struct_passwd:
    """The system user the server runs as when we are root, created when missing (a
    fresh CI container may have the binaries without the Debian package's user)."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    result = subprocess.run(
        [
            "useradd",
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            "/usr/sbin/nologin",
            name,
        ],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise PostgresError(f"cannot create the system user {name!r}: {result.stderr.strip()}")
    return pwd.getpwnam(name)


# As root, a cluster's files live in <tmp>/clearance-pg-*/ with OWNER_FILE naming its folder.
HOME_PREFIX = "clearance-pg-"
OWNER_FILE = "owner"


def _sweep_orphans() -> None:
    """Delete the files of stopped clusters whose folder is gone (a test's temporary folder
    that pytest has since removed), so clusters stopped but never removed don't pile up."""
    for home in Path(tempfile.gettempdir()).glob(f"{HOME_PREFIX}*"):
        owner = home / OWNER_FILE
        try:
            gone = owner.is_file() and not Path(owner.read_text().strip()).exists()
        except OSError:
            continue
        if gone and not (home / "data" / "postmaster.pid").exists():
            shutil.rmtree(home, ignore_errors=True)


class PostgresError(RuntimeError):
    """The cluster could not be created, started or stopped (the message says why)."""


class PostgresCluster:
    """One PostgreSQL cluster for the folder `root`, which keeps its port (`root/port`)
    so another process, or the shell, finds it again.

    Its data and log are in `root/data` and `root/postgres.log`, except as root: the
    server then runs as `postgres`, which may not be able to walk down to `root` (pytest
    resets /tmp/pytest-of-root to 0700 whenever a session starts, even mid-run), so they
    live in a folder of its own under the system temporary folder, named in
    `root/data-dir`, with `root/data` a link to it for people looking."""

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.root = Path(root).absolute()
        self._port_file = self.root / "port"
        self._location_file = self.root / "data-dir"
        self._created_here = False
        if port is None and self._port_file.exists():
            port = int(self._port_file.read_text().strip())
        self.port = port if port is not None else free_port()
        bin_dir = find_pg_bin_dir()
        if bin_dir is None:
            raise PostgresError(
                "no PostgreSQL server installed: initdb was not found on PATH or in "
                "/usr/lib/postgresql/*/bin (install postgresql, see scripts/system-packages)"
            )
        self.bin_dir = bin_dir

    @property
    def home(self) -> Path:
        """The folder the server's files are in (see the class's note)."""
        if not running_as_root():
            return self.root
        if self._location_file.exists():
            return Path(self._location_file.read_text().strip())
        if (self.root / "data" / "PG_VERSION").exists():
            return self.root  # made by an earlier version of this module, in place
        return self.root / "not-created"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def log_file(self) -> Path:
        return self.home / "postgres.log"

    # -- the server ---------------------------------------------------------------------

    def _as_server_user(self, args: list[str]) -> list[str]:
        if running_as_root():
            return ["runuser", "-u", SERVER_USER, "--", *args]
        return args

    def _run(self, args: list[str], what: str) -> subprocess.CompletedProcess[str]:
        # The server user's working folder must be one it can enter.
        result = subprocess.run(
            self._as_server_user(args), capture_output=True, text=True, cwd=self.home
        )
        if result.returncode != 0:
            log_tail = ""
            if self.log_file.exists():
                log_tail = "\n".join(self.log_file.read_text(errors="replace").splitlines()[-15:])
            raise PostgresError(
                f"{what} failed (exit {result.returncode}): "
                f"{(result.stderr or result.stdout).strip()}"
                + (f"\n--- {self.log_file} ---\n{log_tail}" if log_tail else "")
            )
        return result

    def _pg_ctl(self, *args: str) -> list[str]:
        return [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), *args]

    @property
    def initialized(self) -> bool:
        return (self.data_dir / "PG_VERSION").exists()

    def _make_home(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if not running_as_root() or self._location_file.exists():
            return
        _sweep_orphans()
        user = ensure_server_user()
        home = Path(tempfile.mkdtemp(prefix=HOME_PREFIX))
        (home / OWNER_FILE).write_text(f"{self.root}\n")
        os.chown(home, user.pw_uid, user.pw_gid)
        self._location_file.write_text(f"{home}\n")
        link = self.root / "data"
        if not link.exists() and not link.is_symlink():
            link.symlink_to(home / "data")

    def init(self) -> None:
        """Create the cluster (once): superuser `postgres`, trust on 127.0.0.1 only."""
        self._make_home()
        if not self.initialized:
            self._run(
                [
                    str(self.bin_dir / "initdb"),
                    "-D",
                    str(self.data_dir),
                    "--username=postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--no-locale",
                    "--no-sync",
                ],
                "initdb",
            )
            self._created_here = True
        self._write_settings()

    def _write_settings(self) -> None:
        # postgresql.auto.conf is read last, so these win over postgresql.conf's defaults.
        settings = {
            "port": str(self.port),
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": "''",
            **FAST_SETTINGS,
        }
        text = "# Written by stack/postgres.py: a throwaway cluster for tests.\n" + "".join(
            f"{key} = {value}\n" for key, value in settings.items()
        )
        auto_conf = self.data_dir / "postgresql.auto.conf"
        auto_conf.write_text(text)
        if running_as_root():
            user = ensure_server_user()
            os.chown(auto_conf, user.pw_uid, user.pw_gid)
        self._port_file.write_text(f"{self.port}\n")

    @property
    def running(self) -> bool:
        if not self.initialized:
            return False
        result = subprocess.run(
            self._as_server_user(self._pg_ctl("status")),
            capture_output=True,
            text=True,
            cwd=self.home,
        )
        return result.returncode == 0

    def start(self) -> PostgresCluster:
        """Create the cluster if needed and start it; returns when it accepts connections."""
        if not self.initialized or not (self.data_dir / "postgresql.auto.conf").exists():
            self.init()
        if self.running:
            return self
        self._write_settings()
        self._run(
            self._pg_ctl(
                "start", "--wait", f"--timeout={START_TIMEOUT_SECONDS}", "-l", str(self.log_file)
            ),
            f"starting PostgreSQL on 127.0.0.1:{self.port}",
        )
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown: open sessions are ended); no-op when stopped."""
        if self.running:
            self._run(
                self._pg_ctl("stop", "--wait", "-m", "fast", f"--timeout={START_TIMEOUT_SECONDS}"),
                "stopping PostgreSQL",
            )

    def restart(self) -> None:
        self.stop()
        self.start()

    def remove(self) -> None:
        """Stop the server and delete its data (the folder `root` itself is left)."""
        self.stop()
        if running_as_root() and self._location_file.exists():
            shutil.rmtree(self.home, ignore_errors=True)
            self._location_file.unlink()
            (self.root / "data").unlink(missing_ok=True)
        else:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self.log_file.unlink(missing_ok=True)
        self._port_file.unlink(missing_ok=True)

    def __enter__(self) -> PostgresCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Throwaway: a cluster this block created goes with it when it lives outside `root`.
        if self._created_here and running_as_root():
            self.remove()
        else:
            self.stop()

    # -- databases ----------------------------------------------------------------------

    def url(self, database: str = "postgres") -> str:
        """A SQLAlchemy URL (psycopg 3 driver) for one database on this cluster."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database and return its URL."""
        return create_database_at(self.url(), name)

    def drop_database(self, name: str) -> None:
        """Drop a database, ending its open sessions first; no error when it is absent."""
        drop_database_at(self.url(), name)


def _admin_connect(server_url: str) -> psycopg.Connection:
    """A connection to the server's maintenance database, from any database's URL."""
    url = make_url(server_url).set(drivername="postgresql", database="postgres")
    return psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)


def create_database_at(server_url: str, name: str) -> str:
    """Create an empty database on the server `server_url` points at; returns its URL."""
    _check_name(name)
    with _admin_connect(server_url) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def drop_database_at(server_url: str, name: str) -> None:
    """Drop a database on that server, ending its sessions; no error when it is absent."""
    _check_name(name)
    with _admin_connect(server_url) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def _check_name(name: str) -> None:
    if not _DATABASE_NAME.match(name):
        raise ValueError(
            f"invalid database name {name!r}: use letters, digits and underscores "
            "(up to 63, not starting with a digit)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stack.postgres", description="A throwaway PostgreSQL cluster in a folder."
    )
    parser.add_argument("action", choices=["start", "stop", "url", "destroy"])
    parser.add_argument("root", type=Path, help="the cluster's folder (created on start)")
    parser.add_argument("--port", type=int, default=None, help="default: a free port")
    parser.add_argument("--database", default="postgres", help="for url: the database name")
    args = parser.parse_args(argv)
    try:
        if args.action != "start" and not (args.root / "port").exists():
            raise PostgresError(f"no cluster in {args.root}: run `start` first")
        cluster = PostgresCluster(args.root, port=args.port)
        if args.action == "start":
            cluster.start()
            print(cluster.url(args.database))
        elif args.action == "stop":
            cluster.stop()
        elif args.action == "destroy":
            cluster.remove()
        else:
            _check_name(args.database)
            print(cluster.url(args.database))
    except (PostgresError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
