"""The storm's baseline: a minimal workflow that sleeps to an instant, then runs one
activity (which sends one SMTP message, as a reminder does).

Imports nothing but temporalio, so the sandbox re-imports nothing heavy for it; the
activity (smtplib) lives in bench/storm.py and is called by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from temporalio import workflow

MINIMAL_SEND = "bench_storm_send"


@dataclass
class MinimalStormInput:
    letter_key: str
    fire_at: str  # ISO 8601, UTC (a datetime field does not decode in the sandbox)


@dataclass
class MinimalLetter:
    letter_key: str


@workflow.defn
class MinimalStormWorkflow:
    @workflow.run
    async def run(self, input: MinimalStormInput) -> None:
        delay = datetime.fromisoformat(input.fire_at) - workflow.now()
        if delay > timedelta(0):
            await workflow.sleep(delay)
        await workflow.execute_activity(
            MINIMAL_SEND,
            MinimalLetter(input.letter_key),
            start_to_close_timeout=timedelta(seconds=60),
        )
