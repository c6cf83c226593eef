"""The shared kernel: what the shot clock, the permit clocks and the conditions all use.

- `input`: the input contract (strict JSON, ISO dates, notice items, `TimelineError`
  whose message names the field);
- `holidays` and `calendars`: holiday layers as cited data, and the business days a
  reading of them leaves (`CalendarLayers`, `BusinessCalendar`);
- `jurisdictions`: the jurisdiction loader (time zone, calendars, contacts, packs);
- `alerts`: alert primitives (`Alert`, local instants, the 08:00 send time);
- `counting`: day counting (calendar, business days, months, roll-forward).

Pure and deterministic, no I/O after import. The three domains depend on the kernel and
never on each other.
"""
