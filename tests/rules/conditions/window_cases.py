"""Cotati's conditions and helpers shared by the window tests (test_window_schedule_*.py).

The condition texts below are the real words of the City of Cotati resolution adopted
2024-02-27 (shared/seeds/cotati-council-packet-2024-02-27.txt, lines 166-513), copied
with the PDF page markers ("319 of 403") removed and wrapped lines joined, as the parser
hands them over. Every expected date in the tests is worked out by hand in a comment next
to it.
"""

from __future__ import annotations

from datetime import date

from models.conditions import ConditionSpec, SubItem
from rules.conditions.planned_dates import PlannedDates
from rules.conditions.window_schedule import DueItem, WindowConflict, schedule

# ------------------------------------------------------------- real condition texts

TEXT_7 = (
    "Please provide a current (within the last 3 months) Preliminary Title Report (including the "
    "grant deed and title items) and show all existing easements and other relevant title items on "
    "the Site Plan and other plans as appropriate."
)
TEXT_63 = (
    "If grading is to take place between October 15 and April 15, both temporary and permanent "
    "erosion control measures, conforming to the Project erosion control plans shall be in place "
    "before October 1st. Erosion control measures shall be monitored and maintained continuously "
    "throughout the storm season."
)
TEXT_46 = (
    "Improvements plans shall include an erosion control (winterization) plan. The plan must "
    "include an order of work and staging/scheduling component indicating when facilities must be "
    "installed and when they may be removed. A separate Rain Event Action Plan (REAP) shall be "
    "required and prepared as part of the Storm Water Pollution Prevention Plan (SWPPP). A copy of "
    "the REAP shall be kept on-site throughout the duration of construction activities."
)
TEXT_62 = (
    "During construction, the Contractor shall be responsible for controlling noise, odors, dust "
    "and debris to minimize impacts on surrounding properties and roadways. Contractor shall be "
    "responsible that all construction equipment is equipped with manufacturers approved muffler’s "
    "baffles in compliance with all City codes relating to noise and idling equipment. City Code "
    "includes but is not limited to section 17.30.050. Failure to do so may result in the issuance "
    "of an order to stop work."
)
HYD1_TEXT = (
    "The applicant shall submit a Storm Water Prevention and Pollution Plan (SWPPP) and erosion "
    "and sediment control plan for approval by the City Engineer prior to the issuance of a "
    "building permit. The SWPPP shall include Best Management Practices for construction "
    "activities as well as accounting for any BMPs required for operational activities. The SWPPP "
    "shall incorporate the requirements of all applicable federal, state, and local regulations. "
    "Submitted plans shall also demonstrate compliance with City of Cotati Municipal Code Chapter "
    "13.68 Storm Water Ordinance and Chapter 14.36 Erosion and Sediment Control."
)
AQ1_INTRO = (
    "During any construction period ground disturbance, the Project will ensure that the Project "
    "contractor(s) implement the following measures to control dust and exhaust that are "
    "recommended by BAAQMD and listed below:"
)
AQ1_ITEMS = [
    SubItem(
        "A",
        (
            "All exposed surfaces (e.g., parking areas, staging areas, soil piles, graded areas, "
            "and unpaved access roads) shall be watered two times per day."
        ),
    ),
    SubItem(
        "B",
        (
            "All haul trucks transporting soil, sand, or other loose material off-site shall be "
            "covered."
        ),
    ),
    SubItem(
        "C",
        (
            "All visible mud or dirt track-out onto adjacent public roads shall be removed using "
            "wet power vacuum street sweepers at least once per day. The use of dry power sweeping "
            "is prohibited."
        ),
    ),
    SubItem(
        "D",
        "All vehicle speeds on unpaved roads shall be limited to 15 miles per hour (mph).",
    ),
    SubItem(
        "E",
        (
            "All roadways, driveways, and sidewalks to be paved shall be completed as soon as "
            "possible. Building pads shall be laid as soon as possible after grading unless "
            "seeding or soil binders are used."
        ),
    ),
    SubItem(
        "F",
        (
            "Idling times shall be minimized either by shutting equipment off when not in use or "
            "reducing the maximum idling time to 5 minutes (as required by the California airborne "
            "toxics control measure Title 13, Section 2485 of California Code of Regulations "
            "[CCR]). Clear signage shall be provided for construction workers at all access points."
        ),
    ),
    SubItem(
        "G",
        (
            "All construction equipment shall be maintained and properly tuned in accordance with "
            "manufacturer’s specifications. All equipment shall be checked by a certified mechanic "
            "and determined to be running in proper condition prior to operation."
        ),
    ),
    SubItem(
        "H",
        (
            "Designate a Disturbance Coordinator and post a publicly visible sign with the "
            "telephone number of the Disturbance Coordinator to contact regarding dust complaints. "
            "The Disturbance Coordinator shall respond and take corrective action within 48 hours. "
            "The Air District’s phone number shall also be visible to ensure compliance with "
            "applicable regulations."
        ),
    ),
]
BIO1_INTRO = (
    "Prior to site preparation, grading, or construction, the applicant shall take the following "
    "actions:"
)
BIO1_A = SubItem(
    "A",
    (
        "If any work occurs between September 1 and January 31, a qualified biologist shall follow "
        "the California a Department of Fish and Game (now CDFW) 2012 Staff Report on Burrowing "
        "Owl Mitigation (CDFW 2012 Staff Report) habitat assessment and survey methodology prior "
        "to Project activities occurring. The habitat assessment and surveys shall encompass a "
        "sufficient buffer zone to detect owls nearby that may be impacted. Time lapses between "
        "surveys or Project activities shall trigger subsequent surveys, as determined by a "
        "qualified biologist, including but not limited to a final survey within 24 hours prior to "
        "ground disturbance and before construction equipment mobilizes to the Project area. The "
        "qualified biologist shall have a minimum of two years of experience implementing the CDFW "
        "2012 Staff Report survey methodology resulting in detections. Detected burrowing owls "
        "shall be avoided pursuant to the buffer zone prescribed in the CDFW 2012 Staff Report, "
        "unless otherwise approved in writing by CDFW, and any eviction plan shall be subject to "
        "CDFW review."
    ),
)
BIO1_B = SubItem(
    "B",
    (
        "Prior to demolition of existing structures and trees, the biologist shall perform bat "
        "roost emergence surveys no more than 7 days prior to the start of activities outside of "
        "the hibernation period (November 1 to March 1). If bats are found, a bat exclusion plan "
        "shall be prepared and submitted to CDFW to include the following:"
    ),
)
BIO1_B_ITEMS = [
    SubItem(
        "1",
        (
            "Bats shall be excluded between March 1 (once overnight low temperatures exceed 45 "
            "degrees Fahrenheit) and April 15, or between September 1 and October 15 to ensure no "
            "impact to maternity roosting occurs. Once bats have been fully excluded, the "
            "structure may be demolished or removed."
        ),
    ),
    SubItem(
        "2",
        (
            "If a maternity roost is found, a replacement roost must be established either on‐site "
            "or at a nearby off‐site at a permanently protected location in consultation with CDFW."
        ),
    ),
    SubItem(
        "3",
        (
            "Tree removal for trees greater than 16‐inch dbh shall be performed using the "
            "three‐step removal process. First the crown or upper 1/3 of the tree shall be removed "
            "and any limbs removed and left overnight. Next, the rest of the tree shall be felled "
            "and left overnight. On the third day, the biologist shall examine the felled tree to "
            "make sure any bats have escaped prior to chipping on‐site or hauling to an off‐site "
            "location for disposal."
        ),
    ),
]
BIO1_C = SubItem(
    "C",
    (
        "The applicant shall consult with the California Department of Fish and Wildlife prior to "
        "the start of any ground-disturbing activities to confirm with CDFW that the Project would "
        "not result in impacts to CESA-listed species/special status species."
    ),
)
BIO3_INTRO = (
    "To prevent any potential affects to nesting birds, the following actions shall be taken:"
)
BIO3_ITEMS = [
    SubItem(
        "A",
        (
            "If construction begins between February 1 and August 31, a pre‐construction nesting "
            "bird (both passerine and raptor) survey of the habitats within 500 feet of all work "
            "areas shall be performed within 7 days of groundbreaking. If no nesting birds are "
            "observed, no further action is required, and grading must occur within one week of "
            "the survey to prevent “take” of individual birds that could begin nesting after the "
            "survey. A follow-up survey is required if a stoppage in work occurs for longer than 7 "
            "days between February 1 and July 1."
        ),
    ),
    SubItem(
        "B",
        (
            "If active bird nests (passerine and/or raptor) are observed during the "
            "pre‐construction survey, a disturbance‐free buffer zone shall be established around "
            "the nest tree(s) until the young have fledged or the nest has naturally failed or "
            "been predated, as determined by a qualified biologist. The radius of the required "
            "buffer zone can vary depending on the species, with the dimension of any required "
            "buffer zone to be determined by a qualified biologist."
        ),
    ),
    SubItem(
        "C",
        (
            "To delineate the “no‐work” buffer zone around a nesting tree, orange construction "
            "fencing must be placed at the specified radius from the base of the tree within which "
            "no construction related activity or machinery shall intrude."
        ),
    ),
]
NOI2_INTRO = (
    "The Project shall implement best management practices to minimize construction-related noise "
    "impacts as set forth in Action N1h of the General Plan, as listed below, and shall meet all "
    "applicable noise standards as set forth in Section 17.30.050 of the Cotati Municipal Code:"
)
NOI2_ITEMS = [
    SubItem(
        "A",
        (
            "Noise-generating construction activities, including truck traffic coming to and from "
            "the construction site for any purpose, shall be limited to between the hours of 7:00 "
            "am and 7:00 pm on weekdays and 9:00 am and 5:00 pm on Saturdays. No construction "
            "shall occur on Sundays or holidays."
        ),
    ),
    SubItem(
        "B",
        (
            "All equipment driven by internal combustion engines shall be equipped with mufflers, "
            "which are in good condition and appropriate for the equipment."
        ),
    ),
    SubItem(
        "C",
        (
            "The construction contractor shall utilize “quiet” models of air compressors and other "
            "stationary noise sources where technology exists."
        ),
    ),
    SubItem(
        "D",
        (
            "At all times during project grading and construction, stationary noise-‐generating "
            "equipment shall be located as far as practicable from sensitive receptors and placed "
            "so that emitted noise is directed away from residences."
        ),
    ),
    SubItem(
        "E",
        "Unnecessary idling of internal combustion engines shall be prohibited.",
    ),
    SubItem(
        "F",
        (
            "Construction staging areas shall be established at locations that will create the "
            "greatest distance between the construction-related noise sources and noise-sensitive "
            "receptors nearest the project site during all project construction."
        ),
    ),
    SubItem(
        "G",
        (
            "Neighbors located adjacent to the construction site shall be notified of the "
            "construction schedule in writing."
        ),
    ),
    SubItem(
        "H",
        (
            "The construction contractor shall designate a “noise disturbance coordinator” who "
            "will be responsible for responding to any local complaints about construction noise. "
            "The disturbance coordinator would determine the cause of the noise complaint (e.g., "
            "starting too early, bad muffler, etc.) and institute reasonable measures as warranted "
            "to correct the problem. A telephone number for the disturbance coordinator shall be "
            "conspicuously posted at the construction site."
        ),
    ),
]

TEXT_3 = (
    "Prior to issuance of a building permit, Applicant shall record a city-approved inclusionary "
    "housing agreement in compliance with CMC Chapter 17.31."
)


def spec(
    number: str,
    code: str | None,
    text: str,
    gates: list[str],
    kind: str,
    sub_items: list[SubItem] | None = None,
    department: str = "CEQA/ENVIRONMENTAL",
) -> ConditionSpec:
    return ConditionSpec(
        number=number,
        code=code,
        department=department,
        section=None,
        text=text,
        gates=gates,
        gate_source="explicit",
        kind=kind,
        sub_items=sub_items or [],
    )


PW = "PUBLIC WORKS/ENGINEERING"
COND_3 = spec("3", None, TEXT_3, ["building_permit"], "requirement", department="PLANNING")
COND_7 = spec("7", None, TEXT_7, ["grading_permit"], "requirement", department=PW)
COND_46 = spec("46", None, TEXT_46, ["improvement_plan_approval"], "requirement", department=PW)
COND_62 = spec("62", None, TEXT_62, ["during_construction"], "recurring", department=PW)
COND_63 = spec("63", None, TEXT_63, ["during_construction"], "seasonal", department=PW)
COND_105 = spec("105", "AQ-1", AQ1_INTRO, ["during_construction"], "recurring", AQ1_ITEMS)
COND_107 = spec(
    "107",
    "BIO-1",
    BIO1_INTRO,
    ["pre_construction"],
    "seasonal",
    [BIO1_A, SubItem(BIO1_B.label, BIO1_B.text, list(BIO1_B_ITEMS)), BIO1_C],
)
COND_109 = spec("109", "BIO-3", BIO3_INTRO, ["pre_construction"], "seasonal", BIO3_ITEMS)
COND_114 = spec("114", "HYD-1", HYD1_TEXT, ["building_permit"], "requirement")
COND_117 = spec("117", "NOI-2", NOI2_INTRO, ["during_construction"], "recurring", NOI2_ITEMS)

WINDOWED = [COND_7, COND_63, COND_105, COND_107, COND_109, COND_117]
UNRELATED = [COND_3, COND_46, COND_62, COND_114]
ALL = WINDOWED + UNRELATED

d = date.fromisoformat


def run(
    conditions: list[ConditionSpec],
    targets: dict[str, date] | None = None,
    evidence: dict[str, date] | None = None,
    **planned: date | None,
) -> tuple[list[DueItem], list[WindowConflict]]:
    dates = PlannedDates(**planned, milestone_targets=targets or {})
    # These are Cotati's conditions: its mitigation codes are defined for its jurisdiction.
    return schedule(conditions, dates, evidence or {}, jurisdiction="cotati")


def only(items: list[DueItem], key: str) -> DueItem:
    found = [item for item in items if item.rule_key == key]
    assert len(found) == 1, found
    return found[0]


def keyed(entries: list, key: str) -> list:
    return [entry for entry in entries if entry.rule_key == key]


def messages(conflicts: list[WindowConflict], key: str) -> list[str]:
    return [c.message for c in conflicts if c.rule_key == key]
