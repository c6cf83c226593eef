"""`clearance users import FILE` as an administrator runs it: users with their roles from
a CSV file, checked whole (nothing added from a file with an error), and a second run
that adds nothing twice."""

from __future__ import annotations

from pathlib import Path

from tests.cli.runner import clean_env, clearance


def test_users_are_imported_with_their_roles(tmp_path: Path) -> None:
    env = clean_env({"CLEARANCE_DATA_DIR": str(tmp_path / "var")})
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "email,role,department,display_name,password\n"
        "ana@city.example,project_manager,,Ana,\n"
        "not-an-address,engineering,,,\n"
        "bo@city.example,wizard,,,\n"
        "cy@city.example,department_reviewer,,,\n"
        "ana@city.example,admin,,,\n"
        'di@city.example,admin,,=HYPERLINK("x"),\n'
    )
    refused = clearance("users", "import", str(bad), env=env)
    assert refused.returncode == 2, refused
    for where in ("row 3, column email", "row 4, column role", "row 5, column department",
                  "row 6, column email", "row 7, column display_name"):  # fmt: skip
        assert where in refused.stdout, refused
    assert "no user was added" in refused.stderr
    assert "ana@city.example" not in clearance("users", "list", env=env).stdout

    good = tmp_path / "users.csv"
    good.write_text(
        "email,role,department,display_name,password\n"
        "Ana@City.example,project_manager,,Ana Ortiz,\n"
        "fire@city.example,department_reviewer,fire,Fire Prevention,long enough password 7\n"
    )
    first = clearance("users", "import", str(good), env=env)
    assert first.returncode == 0 and "2 added, 0 already there" in first.stdout, first
    listed = clearance("users", "list", env=env).stdout
    assert "ana@city.example" in listed and "department_reviewer" in listed
    again = clearance("users", "import", str(good), env=env)
    assert again.returncode == 0 and "0 added, 2 already there" in again.stdout, again
