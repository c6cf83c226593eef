"""How a shot clock closes, and what the applicant can do once it has run out.

A decision closes it on time or late; a withdrawal closes it. After expiry an eligible
facilities request is deemed granted on the applicant's written notice (47 CFR
1.6100(c)(4)); in California other applications are deemed approved once the applicant
has given public notice and notified the city, which then has 30 days to seek judicial
review (Cal. Gov. Code 65964.1); elsewhere the delay is presumptively unreasonable.
"""

from __future__ import annotations

from datetime import date, timedelta

from rules.shot_clock.clock_state import ClockState, days_text
from rules.shot_clock.packs import CategoryRule
from rules.shot_clock.statutes import (
    CA_DEEMED_APPROVED_RULE,
    DEEMED_GRANTED_RULE,
    JUDICIAL_REVIEW_DAYS,
    SECTION_332_REMEDY_RULE,
)
from rules.shot_clock.timeline import Event

TERMINAL_STATUSES = frozenset(
    {"decided_on_time", "decided_late", "withdrawn", "deemed_granted", "deemed_approved"}
)
OUTCOME_LABELS = {
    "approved": "approved",
    "approved_with_conditions": "approved with conditions",
    "denied": "denied",
}


def expiry_remedy(category: CategoryRule, state: str | None) -> str:
    """What the applicant can do once the clock has run out, in one sentence."""
    if category.eligible_facilities_request:
        return (
            "The request is deemed granted once the applicant notifies the city in "
            f"writing ({DEEMED_GRANTED_RULE})."
        )
    if state == "CA":
        return (
            "The application is deemed approved once the applicant has given the "
            "required public notice and notified the city; the city then has "
            f"{JUDICIAL_REVIEW_DAYS} days to seek judicial review ({CA_DEEMED_APPROVED_RULE})."
        )
    return (
        "Delay past the shot clock date is presumptively unreasonable and the "
        f"applicant may sue within 30 days ({SECTION_332_REMEDY_RULE})."
    )


class OutcomeRules(ClockState):
    """The pass's rules for decisions, withdrawals and the applicant's notices after expiry."""

    def _close(self, status: str, on: date) -> None:
        self.terminal_date = self.current_date()
        self.terminal = status
        self.terminal_on = on

    def _on_decision(self, e: Event) -> None:
        current = self.current_date()
        on_time = current is None or e.date <= current
        label = OUTCOME_LABELS[e.outcome or ""]
        if current is None:
            timing = "on time (the clock was paused)"
        elif on_time:
            timing = f"on time (on or before the shot clock date {current})"
        else:
            late = (e.date - current).days
            timing = f"late ({days_text(late)} after the shot clock date {current})"
            self.warnings.append(
                f"the decision of {e.date} came {days_text(late)} after the shot clock "
                f"date {current}"
            )
        self._close("decided_on_time" if on_time else "decided_late", e.date)
        self._log(e.date, e.type, f"{label}, {timing}", None, self.cat.rule)

    def _on_withdrawn(self, e: Event) -> None:
        self._close("withdrawn", e.date)
        self._log(
            e.date, e.type, "the applicant withdrew the application: the clock stops", None, ""
        )

    def _on_deemed_granted_notice(self, e: Event) -> None:
        if not self.cat.eligible_facilities_request:
            self._no_effect(
                e,
                "a deemed-granted notice applies only to eligible facilities requests",
                DEEMED_GRANTED_RULE,
            )
            return
        current = self.current_date()
        if current is None or e.date <= current:
            self._no_effect(
                e,
                f"the applicant's deemed-granted notice of {e.date} came before the clock "
                f"expired ({current or 'the clock is paused'})",
                DEEMED_GRANTED_RULE,
            )
            return
        self._close("deemed_granted", e.date)
        self._log(
            e.date,
            e.type,
            f"deemed granted: the clock expired after {current} and the applicant notified "
            "the city in writing",
            None,
            DEEMED_GRANTED_RULE,
        )

    def _deemed_approved_applies(self) -> bool:
        return self.timeline.state == "CA" and not self.cat.eligible_facilities_request

    def _on_applicant_public_notice(self, e: Event) -> None:
        if not self._deemed_approved_applies():
            self._no_effect(
                e,
                "the applicant's public notice matters only for the California "
                "deemed-approved remedy of non-EFR applications",
                CA_DEEMED_APPROVED_RULE,
            )
            return
        self.public_notice = e.date
        self._log(
            e.date,
            e.type,
            "the applicant's public notice is recorded (a condition of deemed approval)",
            None,
            f"{CA_DEEMED_APPROVED_RULE}(a)",
        )
        if self.deemed_notice is not None:
            self._deemed_approved(e.date)

    def _on_deemed_approved_notice(self, e: Event) -> None:
        if self.cat.eligible_facilities_request:
            self._no_effect(
                e,
                "for an eligible facilities request the applicant's remedy is a "
                "deemed-granted notice",
                DEEMED_GRANTED_RULE,
            )
            return
        if self.timeline.state != "CA":
            self._no_effect(
                e,
                "there is no deemed-approved remedy outside California; expiry is "
                f"presumptively unreasonable delay ({SECTION_332_REMEDY_RULE})",
                CA_DEEMED_APPROVED_RULE,
            )
            return
        current = self.current_date()
        if current is None or e.date <= current:
            self._no_effect(
                e,
                f"the applicant's deemed-approved notice of {e.date} came before the clock "
                f"expired ({current or 'the clock is paused'})",
                CA_DEEMED_APPROVED_RULE,
            )
            return
        self.deemed_notice = e.date
        if self.public_notice is None:
            self.warnings.append(
                f"the applicant's deemed-approved notice of {e.date} is recorded; the "
                "application is deemed approved once the applicant's public notice is recorded"
            )
            self._log(
                e.date,
                e.type,
                "applicant notified the city that the time has lapsed; awaiting the "
                "applicant's public notice",
                None,
                CA_DEEMED_APPROVED_RULE,
            )
            return
        self._log(
            e.date,
            e.type,
            "applicant notified the city that the time has lapsed",
            None,
            CA_DEEMED_APPROVED_RULE,
        )
        self._deemed_approved(e.date)

    def _deemed_approved(self, on: date) -> None:
        assert self.deemed_notice is not None
        self._close("deemed_approved", on)
        self.judicial_review_deadline = self.deemed_notice + timedelta(days=JUDICIAL_REVIEW_DAYS)
        self._log(
            on,
            "deemed_approved",
            f"deemed approved; the city may seek judicial review within {JUDICIAL_REVIEW_DAYS} "
            f"days of the applicant's notice, until {self.judicial_review_deadline} "
            "(calendar days, not extended)",
            JUDICIAL_REVIEW_DAYS,
            CA_DEEMED_APPROVED_RULE,
        )
