"""Which alerts a clock needs and when they fire: pure, so the workflow's timers and the
tests agree on the same instants.

Every alert has a key built from the date it is about. When tolling or a reset moves
the date, the keys change: the old alerts are dropped and new ones are planned, and an
alert already sent is never sent again.
"""

from __future__ import annotations

from datetime import date, time, timedelta
from typing import Any

from rules.kernel.alerts import SEND_AT, Alert, local_instant
from rules.shot_clock.outcomes import TERMINAL_STATUSES


def plan_alerts(
    clock: dict[str, Any],
    *,
    time_zone: str,
    reminder_offsets: list[int],
    window_alert_offsets: list[int],
    judicial_review_offsets: list[int],
) -> list[Alert]:
    """All alerts of a clock as computed now, in firing order."""
    alerts: list[Alert] = []
    status = clock["status"]
    conservative = clock.get("conservative_date")
    # Reminders and the escalation stop once either reading has closed the clock.
    closed = status in TERMINAL_STATUSES or clock.get("conservative_status") in TERMINAL_STATUSES
    if not closed and conservative:
        deadline = date.fromisoformat(conservative)
        for offset in sorted(set(reminder_offsets), reverse=True):
            alerts.append(
                Alert(
                    key=f"reminder:{conservative}:{offset}d",
                    kind="reminder",
                    fire_at=local_instant(deadline - timedelta(days=offset), SEND_AT, time_zone),
                    details={"offset_days": offset, "date": conservative},
                )
            )
        # The clock runs out at the end of the conservative date.
        alerts.append(
            Alert(
                key=f"expiry:{conservative}",
                kind="expiry_escalation",
                fire_at=local_instant(deadline + timedelta(days=1), time(0, 0), time_zone),
                details={"expired_on": conservative},
            )
        )
    if status not in TERMINAL_STATUSES:
        for window in clock.get("notice_windows", []):
            if window.get("state") != "open":
                continue
            closes = date.fromisoformat(window["closes"])
            for offset in sorted(set(window_alert_offsets), reverse=True):
                alerts.append(
                    Alert(
                        key=f"window:{window['kind']}:{window['closes']}:{offset}d",
                        kind="window_closing",
                        fire_at=local_instant(closes - timedelta(days=offset), SEND_AT, time_zone),
                        details={"window": dict(window), "offset_days": offset},
                    )
                )
    review = clock.get("judicial_review_deadline")
    # The countdown runs as soon as the notice is effective under the earliest reading
    # (shot-clocks.md 8.2), even while the literal reading still has the clock running.
    deemed = "deemed_approved" in (status, clock.get("conservative_status"))
    if deemed and review:
        last_day = date.fromisoformat(review)
        for offset in sorted(set(judicial_review_offsets), reverse=True):
            alerts.append(
                Alert(
                    key=f"judicial-review:{review}:{offset}d",
                    kind="judicial_review_reminder",
                    fire_at=local_instant(last_day - timedelta(days=offset), SEND_AT, time_zone),
                    details={"offset_days": offset, "deadline": review},
                )
            )
    alerts.sort(key=lambda a: (a.fire_at, a.key))
    return alerts
