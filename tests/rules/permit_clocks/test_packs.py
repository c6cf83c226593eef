"""The packs: every rule of permit-clocks.md §3 is a record in its pack, seed citations
point at lines that say what the rule says, and a malformed pack fails loudly."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rules.permit_clocks import PERMIT_PACKS, PERMIT_RULES, rule_catalog
from rules.permit_clocks.catalog import pack_catalog
from rules.permit_clocks.packs import PackError, _pack

SEEDS = Path("/work/shared/seeds")
SECTION_3 = {
    "california": [
        "ca_psa_completeness",
        "ca_haa_consistency",
        "ca_psa_decision",
        "ca_post_entitlement_completeness",
        "ca_post_entitlement_review",
        "ca_sb330_full_application",
        "ca_tentative_map_expiry",
    ],
    "building": ["building_permit_expiry"],
    "cotati": ["cotati_sign_permit_expiry", "cotati_ltp_term", "cotati_sign_appeal_decision"],
}
CITE = re.compile(r"(cotati-[a-z0-9-]+\.txt):(\d+)(?:-(\d+))?")


def test_every_section_3_rule_is_in_its_pack() -> None:
    for pack, rules in SECTION_3.items():
        assert set(rules) <= set(PERMIT_PACKS[pack].rules), pack


def test_65956_has_two_dated_versions() -> None:
    versions = PERMIT_RULES["ca_psa_decision"].consequence.versions
    assert [(str(v.due_from), str(v.due_before)) for v in versions] == [
        ("2025-06-30", "None"),
        ("None", "2025-06-30"),
    ]
    assert versions[1].requires_event == "public_notice"
    assert versions[1].otherwise == "writ_available"


def test_cotati_pack_cites_seed_lines_and_lists_what_it_leaves_out() -> None:
    pack = PERMIT_PACKS["cotati"]
    for rule in pack.rules.values():
        assert CITE.search(rule.citation), rule.id
    assert len(pack.not_modelled) >= 10
    for entry in pack.not_modelled:
        assert CITE.search(entry["citation"]), entry


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed documents are not on this machine")
@pytest.mark.parametrize(
    ("rule", "phrase"),
    [
        ("cotati_sign_permit_expiry", "twelve months"),
        ("cotati_ltp_term", "two one-year extensions"),
        ("cotati_sign_appeal_decision", "within sixty days"),
        ("cotati_ltp_cleanup", "within thirty days following the expiration"),
        ("cotati_temporary_sign_term", "seventy consecutive days"),
        ("cotati_wireless_removal", "within thirty days of the discontinuance"),
        ("cotati_revegetation", "within no longer than thirty days"),
    ],
)
def test_seed_citations_point_at_the_rule_text(rule: str, phrase: str) -> None:
    cited = PERMIT_RULES[rule].citation
    texts = []
    for name, first, last in CITE.findall(cited):
        lines = (SEEDS / name).read_text(encoding="utf-8").splitlines()
        texts += lines[int(first) - 1 : int(last or first)]
    assert any(phrase in text for text in texts), (rule, cited)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed documents are not on this machine")
def test_not_modelled_lines_exist() -> None:
    for entry in PERMIT_PACKS["cotati"].not_modelled:
        for name, first, last in CITE.findall(entry["citation"]):
            lines = (SEEDS / name).read_text(encoding="utf-8").splitlines()
            assert int(last or first) <= len(lines) and lines[int(first) - 1].strip(), entry


def good_pack() -> dict[str, Any]:
    return {
        "key": "testville",
        "name": "Testville",
        "version": "1",
        "kind": "local",
        "citation": "Testville Code",
        "not_modelled": [],
        "rules": [
            {
                "id": "testville_permit",
                "title": "A permit",
                "citation": "TC 1",
                "family": "expiry",
                "source": "expires in 6 months",
                "verified_on": "2026-12-01",
                "period": {"counting": "months", "amount": 6},
                "start": {"events": ["approved"]},
                "consequence": {"default": "expired", "text": "it expires"},
            }
        ],
    }


def test_a_well_formed_local_pack_loads() -> None:
    pack = _pack(good_pack(), "testville.json")
    assert pack.rules["testville_permit"].rule_version == "testville@1"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["period"].update(counting="weeks"), "counting: 'weeks'"),
        (lambda r: r["period"].update(amount=-3), "amount: must be positive"),
        (lambda r: r.update(family="maybe"), "family: 'maybe'"),
        (lambda r: r.update(start={"events": []}), "at least one start event"),
        (lambda r: r.update(colour="red"), "unknown field 'colour'"),
        (lambda r: r.update(met_by={"done": "finishes"}), "met_by"),
        (lambda r: r.pop("verified_on"), "missing field 'verified_on'"),
        (lambda r: r.update(verified_on="last spring"), "verified_on: 'last spring'"),
    ],
)
def test_a_malformed_rule_is_refused_naming_the_field(change: Any, message: str) -> None:
    raw = good_pack()
    change(raw["rules"][0])
    with pytest.raises(PackError, match=re.escape(message)):
        _pack(raw, "testville.json")


def test_catalog_lists_events_facts_and_chains() -> None:
    by_id = {entry["id"]: entry for entry in rule_catalog()}
    psa = by_id["ca_psa_completeness"]
    assert {"received", "resubmitted", "complete", "incomplete_notice", "ceqa"} <= set(
        psa["events"]
    )
    assert psa["next"] == ["ca_haa_consistency", "ca_psa_decision", "ca_21080_66_tribal_notice"]
    assert by_id["building_permit_expiry"]["event_fields"]["inspection"] == ["qualifying", "result"]
    assert {p["key"] for p in pack_catalog()} >= {"california", "building", "cotati"}


def test_the_documented_local_pack_example_loads() -> None:
    text = (Path(__file__).resolve().parents[3] / "docs" / "permit-clocks.md").read_text()
    block = text.split("```json", 1)[1].split("```", 1)[0]
    raw = json.loads(block)
    pack = _pack(raw, "docs example")
    rule = pack.rules["sonoma_city_use_permit_expiry"]
    assert rule.extensions is not None and rule.extensions.max_count == 1
    assert set(pack.fact_defaults["building_permit_expiry"]) == {
        "max_extensions",
        "term_limit_months",
    }
