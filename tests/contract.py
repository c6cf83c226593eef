"""The compute contract's output keys, in order (reference shot-clocks.md §5), written
out here rather than taken from the engine so the tests check the engine against the
reference. `days_remaining` and `conservative_days_remaining` appear only when the input
has `as_of`. Revision 2 (shot-clocks.md 8.1, 8.9) appends the conservative fields, the
reading that decided them and the rules the clock was counted under."""

CONTRACT_KEYS = [
    "category",
    "period_days",
    "start_date",
    "shot_clock_date",
    "conservative_date",
    "tolled_days",
    "reset_on",
    "status",
    "days_remaining",
    "judicial_review_deadline",
    "notice_windows",
    "ledger",
    "alternatives",
    "warnings",
    "conservative_status",
    "conservative_days_remaining",
    "conservative_reading",
    "rules",
]
