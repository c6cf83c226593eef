"""The notices room sits between the faces and the rules: it imports nothing from the
layers above it (activities, workflows, actions, web, reports, cli, stack), and nothing
above it reaches into activities for a label (reports importing activities.rendering while
activities.project_records imported reports.common was an import running back up)."""

from __future__ import annotations

from tests.web.test_layers import imported_modules, top

ABOVE = {"activities", "workflows", "actions", "web", "reports", "cli", "stack", "worker", "bench"}


def test_notices_import_nothing_from_the_layers_above() -> None:
    modules = imported_modules("notices")
    assert "notices/vocabulary.py" in modules
    for path, names in modules.items():
        assert not ({top(n) for n in names} & ABOVE), (path, sorted(names))


def test_reports_and_the_pages_take_their_labels_from_notices_not_activities() -> None:
    for path, names in imported_modules("reports").items():
        assert "activities" not in {top(n) for n in names}, path
    present = imported_modules("web")["web/views/present.py"]
    assert "notices.vocabulary" in present
    assert "activities" not in {top(n) for n in present}
