"""The wireless shot clock (47 CFR 1.6003, 1.6100; Cal. Gov. Code 65964.1).

- `timeline`: the compute contract's input (a JSON timeline, parsed and checked);
- `packs`: rule packs (each category's period, notice rules, roll-forward), as data;
- `engine`: every date with its reason, from one pass per reading of the rules
  (`compute`, `compute_json`);
- `readings`: the interpretations of the rules a pass can apply, and when each matters;
- `clock_pass`: one pass over the events under one reading, on the state of
  `clock_state` and the rules of `notices` (notices of incompleteness, resubmissions),
  `tolling` (tolling agreements) and `outcomes` (decisions, withdrawals, deemed
  granted / deemed approved, `TERMINAL_STATUSES`, `expiry_remedy`);
- `statutes`: the fixed periods and citations the engine names outright;
- `checks`: whether a planner's next event would hold up (`check_new_event`);
- `alerts`: which reminders, notice-window alerts and escalations a clock needs.

Pure, deterministic, no I/O: built on `rules.kernel`, never on the permit clocks or
the conditions.
"""
