"""The wireless shot clock (47 CFR 1.6003, 1.6100; Cal. Gov. Code 65964.1).

- `timeline`: the compute contract's input (a JSON timeline, parsed and checked);
- `packs`: rule packs (each category's period, notice rules, roll-forward), as data;
- `engine`: one pass per reading of the rules, every date with its reason
  (`compute`, `compute_json`);
- `checks`: whether a planner's next event would hold up (`check_new_event`);
- `alerts`: which reminders, notice-window alerts and escalations a clock needs.

Pure, deterministic, no I/O: built on `rules.kernel`, never on the permit clocks or
the conditions.
"""
