"""Readings: the interpretations of the rules a pass over the timeline can apply.

The literal reading gives `shot_clock_date`. Where the rules are ambiguous, or a
jurisdiction's pack or calendar is contested, the timeline makes other readings
relevant; `alternative_readings` names them, each with the sentence that describes it
under `alternatives`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.kernel.calendars import CONSERVATIVE, LITERAL, CalendarLayers
from rules.kernel.jurisdictions import FEDERAL_PACK
from rules.shot_clock.statutes import GENERAL_TOLL_RULE

if TYPE_CHECKING:
    from rules.shot_clock.clock_pass import ClockPass

LITERAL_READING = "the literal reading"
CONSERVATIVE_CALENDAR = (
    "the calendar rolling only over weekends, federal holidays and the city's adopted holidays"
)


@dataclass(frozen=True)
class Reading:
    """One interpretation of the rules; the default is the literal reading."""

    swf_late_notice_tolls: bool = False
    efr_roll_forward: bool = False
    reset_at_first_resubmission: bool = False
    # 47 CFR 1.6003(d): a notice citing no rule for an item is defective; the literal
    # reading gives it no effect, this reading lets it toll or reset as if it were valid.
    defective_notice_counts: bool = False
    pack: str | None = None
    # Which calendar layers the date rolls over (rules.calendars readings).
    calendar: frozenset[str] = LITERAL


def alternative_readings(literal: ClockPass, layers: CalendarLayers) -> list[tuple[str, Reading]]:
    """Every other reading the literal pass made relevant, in the order they are listed:
    what an ambiguous notice did, an eligible facilities request's roll-forward, the
    federal default pack instead of a local one, the conservative calendar."""
    out: list[tuple[str, Reading]] = []
    if "swf_late_notice" in literal.ambiguities:
        assert literal.first_notice is not None
        out.append(
            (
                f"the first notice of {literal.first_notice.date} tolls the clock under "
                f"{GENERAL_TOLL_RULE} although it came after the small-wireless reset window",
                Reading(swf_late_notice_tolls=True),
            )
        )
    if "reset_incomplete_resubmission" in literal.ambiguities:
        out.append(
            (
                "the clock restarted at the first resubmission and the later notice tolled "
                "the gap until the next resubmission (read by many city codes)",
                Reading(reset_at_first_resubmission=True),
            )
        )
    if "defective_notice" in literal.ambiguities:
        out.append(
            (
                "a notice citing no rule for a missing item still tolls or resets the clock "
                "(47 CFR 1.6003(d) requires the rule for each item)",
                Reading(defective_notice_counts=True),
            )
        )
    if literal.cat.eligible_facilities_request:
        out.append(
            (
                "roll-forward applied to the eligible facilities request as to 1.6003 "
                "clocks (1.6100 itself has no roll-forward rule)",
                Reading(efr_roll_forward=True),
            )
        )
    other_pack = literal.pack.key != FEDERAL_PACK
    if other_pack:
        out.append(
            (
                "the federal default rule pack (47 CFR 1.6003, 1.6100) instead of the "
                f"jurisdiction's pack '{literal.pack.key}': a local pack cannot lengthen a "
                "federal period",
                Reading(pack=FEDERAL_PACK),
            )
        )
    if layers.contested:
        out.append(
            (
                f"{CONSERVATIVE_CALENDAR}: not over state legal holidays or one-off "
                "closures, whose standing under 47 CFR 1.6003(e) is contested",
                Reading(calendar=CONSERVATIVE),
            )
        )
        if other_pack:
            out.append(
                (
                    f"the federal default rule pack, counted on {CONSERVATIVE_CALENDAR}",
                    Reading(pack=FEDERAL_PACK, calendar=CONSERVATIVE),
                )
            )
    return out
