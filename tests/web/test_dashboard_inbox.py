"""The first page is an inbox: its nearest items, how many there are in all, and a link to
the whole inbox; each folded list shows its first rows and links to the full list."""

from __future__ import annotations

import re
from pathlib import Path

from bench.web_seed import SeedSize, seed
from models.database import make_engine
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from web.pages.dashboard import DASHBOARD_INBOX, DASHBOARD_ROWS

MANAGER = "manager@city.example"


def _dues(html: str) -> list[str]:
    return re.findall(r'data-testid="inbox-item" data-kind="\w+" data-due="([^"]*)"', html)


def test_first_page_shows_the_nearest_items_the_count_and_the_whole_inbox(
    tmp_path: Path,
) -> None:
    settings = standalone_settings(tmp_path)
    with standalone_client(settings) as client:
        seed(make_engine(settings.database_url), SeedSize(8, 12, 300, 1, 2))
        add_user(settings, MANAGER, "planning_manager")
        assert log_in(client, MANAGER).status_code == 303
        home = client.get("/").text
        whole = client.get("/inbox")
    assert whole.status_code == 200
    everything = _dues(whole.text)
    assert len(everything) > DASHBOARD_INBOX
    # The nearest items, in the same order as the whole inbox, and the count of the rest.
    assert _dues(home) == everything[:DASHBOARD_INBOX]
    more = re.search(r'data-testid="inbox-more">Showing (\d+) of (?:the nearest )?(\d+)', home)
    assert more and int(more[1]) == DASHBOARD_INBOX and int(more[2]) == len(everything)
    assert 'href="/inbox" data-testid="inbox-all"' in home
    # The folded lists: their first rows, the total, and the way to the full list.
    assert home.count('data-testid="clock-row"') == DASHBOARD_ROWS
    total = re.search(r'href="/applications" data-testid="all-clocks">All (\d+) shot clocks', home)
    assert total and int(total[1]) > DASHBOARD_ROWS
    assert home.count('data-testid="project-row"') == 8  # fewer than a folded page: all
    assert 'data-testid="all-projects">All 8 projects' in home


def test_the_whole_inbox_needs_a_log_in(tmp_path: Path) -> None:
    with standalone_client(standalone_settings(tmp_path)) as client:
        response = client.get("/inbox", follow_redirects=False)
    assert response.status_code in (302, 303) and "/login" in response.headers["location"]
