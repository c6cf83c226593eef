"""Which role may do which action in the web app and its API: pure, no I/O.

The workflows' validators stay the authority on *whether* an action holds up (a review by
the wrong department, a sign-off with open blockers); this table decides who may try at
all, so a page shows only the forms a user may use and the API refuses the rest with 403.
Where the lifecycle rules already name the roles, they are taken from there.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.conditions import NOT_APPLICABLE, SATISFIED_BY_ALTERNATIVE, WAIVED
from rules.conditions.lifecycle import RESOLUTION_ROLES, ROLES

# Staff roles (the applicant acts only through an applicant link, never logs in).
STAFF_ROLES = tuple(role for role in ROLES if role != "applicant")
ROLE_LABELS = {
    "project_manager": "Project manager",
    "engineering": "Engineering (milestone sign-off)",
    "department_reviewer": "Department reviewer",
    "planning_manager": "Planning manager (waivers)",
    "city_attorney": "City attorney (reads everything)",
    "admin": "Administrator",
    "applicant": "Applicant",
}

# Who records events on a wireless application's shot clock: the planning staff who
# handle wireless applications, and the administrator.
CLOCK_STAFF = ("project_manager", "planning_manager", "admin")

ACTIONS: dict[str, tuple[str, ...]] = {
    # Wireless applications (ShotClockWorkflow start and updates).
    "clock.open": CLOCK_STAFF,
    "clock.notice": CLOCK_STAFF,
    "clock.resubmission": CLOCK_STAFF,
    "clock.tolling_agreement": CLOCK_STAFF,
    "clock.decision": CLOCK_STAFF,
    "clock.withdrawal": CLOCK_STAFF,
    "clock.applicant_notice": CLOCK_STAFF,
    "clock.non_tolling_event": CLOCK_STAFF,
    "clock.closure": ("admin",),
    "clock.rebase": ("admin",),
    # Permit clocks (PermitClockWorkflow): planning staff open them; inspections and
    # extensions are also recorded by engineering (the building side).
    "permit.open": CLOCK_STAFF,
    "permit.record": (*CLOCK_STAFF, "engineering"),
    # Handing a permit clock to another owner (who acts on it and hears its reminders).
    "permit.reassign": CLOCK_STAFF,
    # Handing a wireless application to another planner.
    "clock.reassign": CLOCK_STAFF,
    # Conditions of approval (ProjectWorkflow updates), as the lifecycle rules allow.
    # The applicant submits through an applicant link (they never log in).
    "condition.submit_evidence": ("applicant", "project_manager", "admin"),
    "condition.review": ("department_reviewer", "admin"),
    "condition.waive": RESOLUTION_ROLES[WAIVED],
    "condition.not_applicable": RESOLUTION_ROLES[NOT_APPLICABLE],
    "condition.satisfied_by_alternative": RESOLUTION_ROLES[SATISFIED_BY_ALTERNATIVE],
    "condition.trigger": ("project_manager", "department_reviewer", "planning_manager", "admin"),
    "condition.correct": ("project_manager", "planning_manager", "admin"),
    # Handing a condition to another owner who can log in and review it.
    "condition.reassign": ("project_manager", "admin"),
    "project.plan": ("project_manager", "engineering", "admin"),
    "project.sign_off": ("engineering", "admin"),
    "project.digest": ("project_manager", "planning_manager", "admin"),
    # Pausing the applicant's scheduled digests (legal notices cannot be paused).
    "project.digest_pause": ("project_manager", "planning_manager", "admin"),
    # Importing a resolution into a new or an existing project (corrections audited).
    "project.import": ("project_manager", "planning_manager", "admin"),
    # Applicant links, and the administrator's pages.
    "link.create": ("project_manager", "planning_manager", "admin"),
    "link.revoke": ("project_manager", "planning_manager", "admin"),
    "admin.calendar": ("admin",),
    "admin.jurisdictions": ("admin",),
    "admin.users": ("admin",),
    "admin.rules": ("admin",),
    # Bringing a department's existing caseload in (docs/onboarding.md).
    "admin.import": ("admin",),
    "admin.webhooks": ("admin",),
    # Each staff user's own personal access tokens (for the CLI and scripts).
    "account.tokens": STAFF_ROLES,
    # Reading: every staff role reads everything (the city attorney reads all).
    "read": STAFF_ROLES,
}

# Resolutions a condition can be given, and the action that governs each.
RESOLUTION_ACTIONS = {
    WAIVED: "condition.waive",
    NOT_APPLICABLE: "condition.not_applicable",
    SATISFIED_BY_ALTERNATIVE: "condition.satisfied_by_alternative",
}


class NotPermitted(PermissionError):
    """The user's role may not do this; the message says who may."""


@dataclass(frozen=True)
class Principal:
    """Who is asking: a staff user, or an applicant holding a link."""

    email: str
    role: str
    department: str = ""


def allowed(role: str, action: str) -> bool:
    if action not in ACTIONS:
        raise KeyError(f"unknown action {action!r}")
    return role in ACTIONS[action]


def require(principal: Principal, action: str) -> None:
    """Refuse with NotPermitted unless the principal's role may do `action`."""
    if not allowed(principal.role, action):
        who = ", ".join(ROLE_LABELS[r].split(" (")[0].lower() for r in ACTIONS[action])
        raise NotPermitted(
            f"{principal.email} ({ROLE_LABELS.get(principal.role, principal.role).lower()}) "
            f"may not {describe(action)}; this is for: {who}"
        )


def describe(action: str) -> str:
    return _DESCRIPTIONS.get(action, action.replace(".", " ").replace("_", " "))


_DESCRIPTIONS = {
    "clock.open": "open a wireless application",
    "project.import": "import a resolution into a new project",
    "account.tokens": "manage personal access tokens",
    "clock.notice": "send a notice of incompleteness",
    "clock.resubmission": "record a resubmission",
    "clock.tolling_agreement": "record a tolling agreement",
    "clock.decision": "record a decision",
    "clock.withdrawal": "record a withdrawal",
    "clock.applicant_notice": "record an applicant's notice",
    "clock.non_tolling_event": "record a moratorium, hearing notice or appeal",
    "clock.closure": "add a local closure day",
    "clock.rebase": "rebase a running clock on the current rules",
    "permit.open": "open a permit clock",
    "permit.record": "record a permit-clock event",
    "permit.reassign": "hand a permit clock to another owner",
    "clock.reassign": "hand a wireless application to another planner",
    "condition.submit_evidence": "submit evidence",
    "condition.review": "review a condition",
    "condition.waive": "waive a condition",
    "condition.not_applicable": "mark a condition not applicable",
    "condition.satisfied_by_alternative": "mark a condition satisfied by an alternative",
    "condition.trigger": "trigger a condition",
    "condition.correct": "correct a condition",
    "condition.reassign": "hand a condition to another owner",
    "project.plan": "set a project's planned dates",
    "project.sign_off": "sign off a milestone",
    "project.digest": "send the applicant's digest",
    "project.digest_pause": "pause or resume the applicant's digests",
    "link.create": "create an applicant link",
    "link.revoke": "revoke an applicant link",
    "admin.calendar": "change the jurisdiction calendar",
    "admin.jurisdictions": "set up or change a jurisdiction",
    "admin.users": "manage users",
    "admin.rules": "see the law watch (provisional, stale and pending rules)",
    "admin.import": "import the existing caseload",
    "admin.webhooks": "manage webhook subscriptions",
    "read": "read pages",
}
