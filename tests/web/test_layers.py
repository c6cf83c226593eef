"""One way to act: the web app and the action layer never import the CLI, and the action
layer holds no HTTP or template code (the CLI reaches it only through the web API)."""

from __future__ import annotations

import ast
from pathlib import Path

from settings import PROJECT_ROOT


def imported_modules(folder: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in sorted((PROJECT_ROOT / folder).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        out[str(Path(path).relative_to(PROJECT_ROOT))] = names
    return out


def top(name: str) -> str:
    return name.split(".")[0]


def test_the_web_app_does_not_import_the_cli() -> None:
    for path, names in imported_modules("web").items():
        assert "cli" not in {top(n) for n in names}, path


def test_the_action_layer_has_no_http_templates_or_cli() -> None:
    forbidden = {"cli", "web", "fastapi", "starlette", "jinja2", "httpx"}
    for path, names in imported_modules("actions").items():
        assert not ({top(n) for n in names} & forbidden), (path, names & forbidden)


def test_staff_commands_reach_no_workflow_directly() -> None:
    """The CLI's staff commands (clock, project, conditions import) talk to the API only:
    no Temporal client, no database session."""
    for module in (
        "cli/clock.py",
        "cli/projects.py",
        "cli/permits.py",
        "cli/login.py",
        "cli/api.py",
    ):
        names = imported_modules("cli")[module]
        roots = {top(n) for n in names}
        assert "temporalio" not in roots, module
        assert not any(n.startswith(("worker", "models.database", "sqlalchemy")) for n in names), (
            module
        )


def test_the_web_app_acts_and_queries_through_the_action_layer() -> None:
    """No page or API route imports a workflow: it calls `actions.<capability>`."""
    for path, names in imported_modules("web").items():
        assert "workflows" not in {top(n) for n in names}, path


def test_the_stack_sits_below_the_cli() -> None:
    for path, names in imported_modules("stack").items():
        assert "cli" not in {top(n) for n in names}, path
