"""Readings of the rules: one pass runs per reading, and the results that differ from
the literal one are reported as alternatives (compute.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

# The reading of a grant past a cap on extensions that takes it as void (66452.6(e)).
VOID_OVER_CAP = "grant_over_cap_void"


@dataclass(frozen=True)
class Reading:
    """One interpretation: how the last day rolls, where an extension counts from,
    and (for a chained clock) which day the parent's completion is taken to be."""

    roll: str = "literal"  # "literal", "conservative" or "unrolled"
    # "literal", "extension_from_<base>", "extension_from_unrolled_<base>" or VOID_OVER_CAP
    ext_base: str = "literal"
    start: str = "literal"  # label of a chained start candidate
    switches: int = field(init=False, compare=False)
    label: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        parts = [v for v in (self.roll, self.ext_base, self.start) if v != "literal"]
        object.__setattr__(self, "switches", len(parts))
        object.__setattr__(self, "label", "+".join(parts) or "literal")


@dataclass(frozen=True)
class StartCandidate:
    """A day a chained clock may start from (its parent's completion under one reading)."""

    label: str
    description: str
    date: date | None
