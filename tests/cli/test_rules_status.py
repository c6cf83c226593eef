"""`clearance rules status`, run as the real command: the law watch lists provisional
rules, rules not verified against the official text in the last 12 months, and pending
changes of the law; a bad --as-of is one line naming the option."""

from __future__ import annotations

import json

from tests.cli.runner import assert_one_line_error, clearance


def test_rules_status_lists_provisional_stale_and_pending_rules() -> None:
    now = clearance("rules", "status", "--as-of", "2026-12-06", "--json")
    assert now.returncode == 0, now
    watch = json.loads(now.stdout)
    assert watch["stale_after_months"] == 12
    provisional = {r["rule"] for r in watch["provisional"]}
    assert {"ca_21080_66_decision", "ca_psa_decision", "ab2729_2024"} <= provisional
    assert watch["stale"] == []  # every rule was checked in December 2026
    pending = {c["id"]: c for c in watch["pending"]}
    assert "WT Docket No. 25-276" in pending["fcc_wt_25_276"]["citation"]
    # Thirteen months later every rule is due for another look.
    later = json.loads(clearance("rules", "status", "--as-of", "2028-01-06", "--json").stdout)
    assert len(later["stale"]) == later["rules"]
    assert all("more than 12 months" in r["why"] for r in later["stale"])
    table = clearance("rules", "status", "--as-of", "2026-12-06")
    assert table.returncode == 0 and "Pending changes" in table.stdout


def test_rules_status_refuses_a_bad_date() -> None:
    result = clearance("rules", "status", "--as-of", "next week")
    assert_one_line_error(result, 2, "--as-of")
