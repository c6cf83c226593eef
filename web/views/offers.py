"""Which forms a page offers: only those that apply to this record, this role and this
department. Pure; it mirrors the checks the workflows' validators make (rules/shot_clock/checks.py,
rules/conditions/lifecycle.py) so a page never offers what would be refused for a reason
the page already knows."""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.access import allowed
from rules.kernel.jurisdictions import FEDERAL_PACK
from rules.shot_clock.outcomes import TERMINAL_STATUSES
from rules.shot_clock.packs import RULE_PACKS

NOTICE_OUTSTANDING = ("tolled", "reset_pending")


@dataclass(frozen=True)
class ClockOffers:
    notice: bool = False  # the notice-of-incompleteness builder
    resubmission: bool = False
    tolling_agreement: bool = False
    decision: bool = False
    withdrawal: bool = False
    applicant_notice_kinds: tuple[str, ...] = ()
    non_tolling: bool = False
    why_not: list[str] = field(default_factory=list)  # what is not offered, and why

    @property
    def any(self) -> bool:
        return any(
            (
                self.notice,
                self.resubmission,
                self.tolling_agreement,
                self.decision,
                self.withdrawal,
                self.applicant_notice_kinds,
                self.non_tolling,
            )
        )


def is_efr(category: str | None) -> bool:
    rule = RULE_PACKS[FEDERAL_PACK].categories.get(category or "")
    return bool(rule and rule.eligible_facilities_request)


def clock_offers(role: str, status: str, category: str | None, state: str | None) -> ClockOffers:
    """The clock forms for a user of `role` on an application in `status`."""
    if not allowed(role, "clock.decision"):
        return ClockOffers()
    if status in TERMINAL_STATUSES:
        return ClockOffers(why_not=["The application is closed: nothing more can be recorded."])
    why_not = []
    outstanding = status in NOTICE_OUTSTANDING
    notice = status == "running"
    if status == "expired":
        why_not.append(
            "The clock has expired: a notice of incompleteness or a resubmission no longer "
            "changes it. Record the decision, or the applicant's notice."
        )
    elif outstanding:
        why_not.append(
            "A notice of incompleteness is outstanding: record the resubmission when the "
            "applicant answers it."
        )
    if is_efr(category):
        kinds: tuple[str, ...] = ("deemed_granted_notice",)
    elif state == "CA":
        kinds = ("applicant_public_notice", "deemed_approved_notice")
    else:
        kinds = ()
    return ClockOffers(
        notice=notice,
        resubmission=outstanding,
        tolling_agreement=True,
        decision=True,
        withdrawal=True,
        applicant_notice_kinds=kinds,
        non_tolling=True,
        why_not=why_not,
    )


def may_review(role: str, department: str, condition_department: str) -> bool:
    """Clear or return: the responsible department's reviewer, or an administrator."""
    if role == "admin":
        return True
    return role == "department_reviewer" and department == condition_department
