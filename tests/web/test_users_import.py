"""Users with their roles from a CSV file, as an administrator imports them with
`clearance users import FILE` or on the users page: checked whole (nothing added from a
file with an error), and a second run adds nothing twice."""

from __future__ import annotations

import uuid
from pathlib import Path

from tests.cli.runner import clean_env, clearance
from tests.web.helpers import Browser, csrf_of


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


def test_an_administrator_imports_users_on_the_users_page(browser: Browser) -> None:
    client = browser.as_("admin@cotati.example")
    token = csrf_of(client.get("/admin/users").text)
    email = f"imported-{uuid.uuid4().hex[:6]}@city.example"
    bad = f"email,role\n{email},mayor\n".encode()
    refused = client.post(
        "/admin/users/import",
        data={"csrf_token": token},
        files={"file": ("users.csv", bad, "text/csv")},
    )
    assert refused.status_code == 400 and "row 2, column role" in refused.text
    good = f"email,role,display_name\n{email},planning_manager,Imported Manager\n".encode()
    done = client.post(
        "/admin/users/import",
        data={"csrf_token": token},
        files={"file": ("users.csv", good, "text/csv")},
    )
    assert done.status_code == 200 and "1 added, 0 already there" in done.text, done.text[:300]
    assert f'data-email="{email}"' in done.text
