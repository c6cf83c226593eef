"""The one action layer: every staff or applicant action, whoever asks and however.

The web pages (web/pages/*), the JSON API (web/api/routes/*) and, through the API, the
CLI's staff commands all act through `actions.layer.Actions`, which holds one object per
capability: `shot_clocks`, `permit_clocks`, `condition_clocks`, `projects`, `conditions`.
Nothing else starts a workflow or sends it an update on a user's behalf (the demo loader
and the operator tools, `clearance worker` / `run`, talk to Temporal directly;
docs/deployment.md).

The shape of an action (follow it to add one, e.g. a permit clock's):

1. **A request dataclass** in the capability's requests module (`actions/<capability>_
   requests.py`, e.g. `actions/shot_clock_requests.py`; `@dataclass(frozen=True,
   kw_only=True)`): the target's id and the user's input as typed, plus `permission:
   ClassVar[str]` (a key of `rules/access.ACTIONS`) and, for an update, `update:
   ClassVar[str]` (the workflow's update name). `__post_init__` validates and normalises,
   raising `bad(...)` (ActionFailed 400) naming the field, so a request that exists is well
   formed. A `payload(...)` method builds the workflow's input dataclass (models/).
2. **The permission** in `rules/access.py`: `ACTIONS["family.verb"] = (roles...)` and its
   wording in `_DESCRIPTIONS`. Roles come from the account in the database (a session
   cookie or a personal access token), never from what the caller claims.
3. **A method** on the capability's class (`ShotClockActions` in `actions/shot_clocks.py`,
   `ProjectActions`, `ConditionActions`, `PermitClockActions`, `ConditionClockActions`, or
   a new `actions/<capability>.py` whose object `Actions` holds), taking `(who: Principal,
   ...)`: `require(who, request.permission)` first, then Temporal through `self.gateway`
   (`update` with the request's `update`, `query`, or `client()` to start a workflow),
   then `wait_for` the read model so the next page shows the change. Each capability
   object holds only what it needs (the gateway, the database sessions, the `Cities`).
   Failures are `ActionFailed(message, status)`: 400 bad input, 404 unknown, 409 refused
   on the facts (the validator's words), 503 Temporal unreachable; `NotPermitted` (403)
   comes from `require`. An update or start that got no answer is `OutcomeUnknown` (504
   or 503), never a refusal. Send updates and starts through the gateway (`update`,
   `start`): it makes their ids from the request's idempotency key
   (actions/idempotency.py), so a retried request never acts twice.
4. **Entry points** call the method, e.g.
   `ctx.actions.shot_clocks.record_from_fields(who, RecordNotice, ...)`: a page
   route in `web/pages/` (render the refusal in the form's words), an API route in the
   capability's `web/api/routes/<capability>.py` under /api/v1 (errors as {"error":
   ...}), and, for the CLI, a command in `cli/` that calls that API route with the user's
   token (`cli/api.py`).
   tests/web/test_matrix.py enumerates the app's routes: a new route must say which
   permission guards it, or the test fails.

No HTTP, templates or CLI code here; no I/O beyond Temporal and the app database.
"""
