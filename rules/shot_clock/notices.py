"""Notices of incompleteness and resubmissions: what each does to the shot clock.

A first notice inside its window tolls the clock or, for small wireless facilities,
resets it; a later notice may toll it again (or show that a reset's resubmission was
incomplete) if it cites only items of the first notice and comes soon enough after the
resubmission. A resubmission answers the notice outstanding: it ends the tolling, or
restarts the clock at zero.
"""

from __future__ import annotations

from datetime import date, timedelta

from rules.shot_clock.clock_state import ClockState, days_text
from rules.shot_clock.statutes import GENERAL_TOLL_RULE, GENERAL_TOLL_WINDOW_DAYS
from rules.shot_clock.timeline import Event


class NoticeRules(ClockState):
    """The pass's rules for `incomplete_notice` and `resubmitted` events."""

    def _on_incomplete_notice(self, e: Event) -> None:
        assert self.start is not None
        unruled = [i.id for i in e.items if not i.rule]
        if unruled:
            self.ambiguities.add("defective_notice")
            if not self.reading.defective_notice_counts:
                self._no_effect(
                    e,
                    f"the notice of {e.date} is defective: it cites no rule for item(s) "
                    f"{', '.join(unruled)}, and 47 CFR 1.6003(d) requires the specific rule "
                    "for each missing item (the reading in which it still tolls or resets "
                    "is listed under alternatives)",
                    "47 CFR 1.6003(d)",
                )
                return
        if self.first_notice is None:
            self._first_notice(e)
        else:
            self._later_notice(e)

    # -- the first notice -------------------------------------------------------------

    def _first_notice(self, e: Event) -> None:
        assert self.start is not None
        self.first_notice = e
        day = (e.date - self.start).days
        fn = self.cat.first_notice
        if day <= fn.within_days:
            self._first_notice_in_window(e, day)
        elif fn.effect == "reset" and day <= GENERAL_TOLL_WINDOW_DAYS:
            self._late_small_wireless_notice(e, day)
        else:
            self._late_first_notice(e, day)

    def _first_notice_in_window(self, e: Event, day: int) -> None:
        """A timely first notice resets the clock (small wireless) or tolls it."""
        fn = self.cat.first_notice
        self.first_effect = fn.effect
        if fn.effect == "reset":
            self._log(
                e.date,
                e.type,
                f"resets the clock: first notice on day {day} (within {fn.within_days} "
                "days); the clock restarts at zero when the applicant submits "
                "everything identified",
                None,
                fn.rule,
            )
        else:
            self._log(
                e.date,
                e.type,
                f"tolls the clock: first notice on day {day} (within {fn.within_days} "
                "days); paused from the day after the notice until the applicant resubmits",
                None,
                fn.rule,
            )
        self._pend(fn.effect, e, fn.rule)

    def _late_small_wireless_notice(self, e: Event, day: int) -> None:
        """A small-wireless first notice on days 11-30: no reset literally; the (d)(2)
        reading lets it toll."""
        fn = self.cat.first_notice
        self.ambiguities.add("swf_late_notice")
        if self.reading.swf_late_notice_tolls:
            self.first_effect = "toll"
            self._log(
                e.date,
                e.type,
                f"tolls the clock: first notice on day {day}, read under (d)(2)",
                None,
                GENERAL_TOLL_RULE,
            )
            self._pend("toll", e, GENERAL_TOLL_RULE)
            return
        self.first_effect = "none"
        self.warnings.append(
            f"the first notice of {e.date} came on day {day}, after the "
            f"{fn.within_days}-day reset window for small wireless facilities: it does "
            "not reset the clock (the (d)(2) tolling reading is listed under alternatives)"
        )
        self._log(
            e.date,
            e.type,
            f"no effect on the clock: first notice on day {day}, after the "
            f"{fn.within_days}-day reset window; (d)(2) covers only other applications",
            0,
            self.pack.late_first_notice_rule,
        )

    def _late_first_notice(self, e: Event, day: int) -> None:
        fn = self.cat.first_notice
        self.first_effect = "none"
        self.warnings.append(
            f"the first notice of {e.date} came on day {day}, after the {fn.within_days}-day "
            f"window: it was late and does not {'reset' if fn.effect == 'reset' else 'toll'} "
            "the clock"
        )
        self._log(
            e.date,
            e.type,
            f"no effect on the clock: late first notice (day {day}, window {fn.within_days} days)",
            0,
            self.pack.late_first_notice_rule,
        )

    # -- later notices ------------------------------------------------------------------

    def _later_notice(self, e: Event) -> None:
        rule = self.cat.later_notice_rule
        why_not = self._later_notice_defect(e)
        if why_not is not None:
            self._no_effect(e, why_not, rule)
            return
        assert self.last_resubmission is not None
        since = (e.date - self.last_resubmission).days
        if self.first_effect == "reset":
            self.ambiguities.add("reset_incomplete_resubmission")
            if not self.reading.reset_at_first_resubmission and self.pre_reset is not None:
                self._undo_reset(e, since, rule)
                return
        self._log(
            e.date,
            e.type,
            f"tolls the clock: later notice {days_text(since)} after the resubmission of "
            f"{self.last_resubmission}, citing only items from the first notice; paused "
            "from the day after the notice until the next resubmission",
            None,
            rule,
        )
        self._pend("toll", e, rule)

    def _later_notice_defect(self, e: Event) -> str | None:
        """Why a later notice cannot toll the clock, or None if it can."""
        assert self.first_notice is not None
        if self.pending is not None:
            return (
                f"the notice of {e.date} came while the notice of {self.pending[1]} was "
                "still outstanding (no resubmission in between)"
            )
        if self.first_effect == "none" or self.last_resubmission is None:
            return f"the notice of {e.date} follows a first notice that did not affect the clock"
        first_ids = [i.id for i in self.first_notice.items]
        new = [i.id for i in e.items if i.id not in first_ids]
        if new:
            return (
                f"the notice of {e.date} cites item(s) not in the first notice of "
                f"{self.first_notice.date} ({', '.join(new)}); a later notice may cite only "
                "items from the first notice"
            )
        since = (e.date - self.last_resubmission).days
        within = self.cat.later_notice_within_days
        if since > within:
            return (
                f"the notice of {e.date} came {days_text(since)} after the resubmission of "
                f"{self.last_resubmission}, later than {days_text(within)}"
            )
        return None

    def _undo_reset(self, e: Event, since: int, rule: str) -> None:
        """Literal reading: the resubmission was not complete, so it did not restart the
        clock; the reset waits for the complete one."""
        assert self.pre_reset is not None
        self.base, self.notice_tolled, self.reset_on = self.pre_reset
        self.pre_reset = None
        if self.reset_entry is not None:
            self.reset_entry["effect"] += (
                f"; undone by the notice of {e.date}, which showed the resubmission "
                "was incomplete (literal reading)"
            )
        self._log(
            e.date,
            e.type,
            f"resets the clock: later notice {days_text(since)} after the resubmission "
            f"of {self.last_resubmission}, which was therefore incomplete; the clock "
            "restarts only when the applicant submits everything identified "
            "(literal reading)",
            None,
            f"{rule}; {self.cat.first_notice.rule}",
        )
        self._pend("reset", e, rule)

    def _pend(self, kind: str, e: Event, rule: str) -> None:
        """Hold the clock for the notice just logged; its ledger line gets the days later."""
        self.pending = (kind, e.date, rule)
        self.pending_entry = self.ledger[-1]
        if self.windows and self.windows[-1]["closes"] >= e.date.isoformat():
            self.windows[-1]["state"] = "used"

    # -- resubmissions ------------------------------------------------------------------

    def _on_resubmitted(self, e: Event) -> None:
        if self.pending is None:
            self._no_effect(
                e, f"the resubmission of {e.date} answers no outstanding notice of incompleteness"
            )
            return
        kind, notice_date, rule = self.pending
        if kind == "toll":
            self._end_tolling(e, notice_date, rule)
        else:
            self._restart_clock(e, notice_date, rule)
        self.pending = None
        self.pending_entry = None
        self.last_resubmission = e.date
        self._open_window(
            "later_notice",
            e.date + timedelta(days=self.cat.later_notice_within_days),
            self.cat.later_notice_rule,
        )

    def _end_tolling(self, e: Event, notice_date: date, rule: str) -> None:
        """The clock runs again: the days from the notice through this resubmission are
        tolled (8.5: an agreed date absorbs those before the agreement)."""
        absorbed = 0
        days = (e.date - notice_date).days
        self.notice_tolled += days
        if self.agreed_date is not None and self.agreed_on is not None:
            # 8.5: the agreed date absorbs the days tolled before the agreement;
            # only the tolling after it extends the agreed date.
            after = (e.date - max(notice_date, self.agreed_on)).days
            self.tolled_after_agreement += after
            absorbed = days - after
        # The notice is what moved the date: its ledger line carries the days.
        assert self.pending_entry is not None
        self.pending_entry["days"] = days
        self.pending_entry["effect"] += f"; {days_text(days)} tolled through {e.date}"
        if self.agreed_date is not None and absorbed:
            tail = (
                f"; {days_text(absorbed)} before the agreement of {self.agreed_on} are "
                f"absorbed by the agreed date, {days_text(days - absorbed)} after it extend it"
            )
        else:
            tail = ""
        self._log(
            e.date,
            e.type,
            f"the clock runs again: ends the tolling that began with the notice of "
            f"{notice_date} ({days_text(days)}, from the day after the notice through "
            f"this resubmission){tail}",
            None,
            rule,
        )

    def _restart_clock(self, e: Event, notice_date: date, rule: str) -> None:
        """The reset takes effect: the clock restarts at zero from this resubmission."""
        self.pre_reset = (self.base, self.notice_tolled, self.reset_on)
        self.base = e.date
        self.notice_tolled = 0
        self.reset_on = e.date
        self._log(
            e.date,
            e.type,
            f"the applicant supplied what the notice of {notice_date} identified: the "
            f"clock restarts at zero and runs {days_text(self.period)} from {e.date}",
            self.period,
            rule,
        )
        self.reset_entry = self.ledger[-1]
