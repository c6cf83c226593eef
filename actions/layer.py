"""`Actions`: the action layer's object. It holds one object per capability, each holding
only the Temporal gateway, the database sessions and the jurisdictions it needs:

- `actions.shot_clocks` (actions/shot_clocks.py): a wireless application's shot clock;
- `actions.permit_clocks` (actions/permit_clocks.py): permit clocks;
- `actions.condition_clocks` (actions/condition_clocks.py): the clocks of a project's
  conditions' time limits (permit clocks opened for them);
- `actions.projects` (actions/projects.py): a project as a whole (import, plan, sign-off);
- `actions.conditions` (actions/conditions.py): one condition of a project;
- `actions.caseload` (actions/caseload.py): importing the existing caseload from a file.
- `actions.jurisdictions` (actions/jurisdictions.py): an administrator's versioned edits
  to a city (calendar, departments, contacts, local facts), export and import.
- `actions.bulk` (actions/bulk.py): one action over a selection of conditions.

A route calls e.g. `actions.shot_clocks.record_from_fields(who, RecordNotice, application_id,
fields)`: that method checks the role, builds the request (RecordNotice, in
actions/shot_clock_requests.py, names the workflow update) and sends the update."""

from __future__ import annotations

from sqlalchemy import Engine

from actions.bulk import BulkActions
from actions.caseload import CaseloadActions
from actions.cities import Cities
from actions.condition_clocks import ConditionClockActions
from actions.conditions import ConditionActions
from actions.jurisdictions import JurisdictionActions
from actions.permit_clocks import PermitClockActions
from actions.projects import ProjectActions
from actions.shot_clocks import ShotClockActions
from actions.temporal import Gateway
from models.database import session_factory
from rules.kernel.jurisdictions import Jurisdiction, add_jurisdictions
from settings import Settings


class Actions:
    def __init__(self, settings: Settings, engine: Engine, gateway: Gateway) -> None:
        self.settings = settings
        self.gateway = gateway
        self.sessions = session_factory(engine)
        # A city's own jurisdiction files, beside the shipped ones.
        add_jurisdictions(settings.jurisdictions_dir)
        self.cities = Cities(settings.default_jurisdiction, self.sessions)
        self.shot_clocks = ShotClockActions(gateway, self.sessions, self.cities)
        self.permit_clocks = PermitClockActions(gateway, self.sessions, self.cities)
        self.condition_clocks = ConditionClockActions(self.sessions, self.permit_clocks)
        self.projects = ProjectActions(gateway, self.sessions, self.cities, self.condition_clocks)
        self.conditions = ConditionActions(gateway, self.sessions, self.cities)
        self.caseload = CaseloadActions(gateway, self.sessions, self.cities)
        self.jurisdictions = JurisdictionActions(self.sessions, self.cities, self.shot_clocks)
        self.bulk = BulkActions(self.conditions, self.projects)

    def city(self, key: str = "") -> Jurisdiction:
        """A jurisdiction by key; empty: the deployment's default (a setting)."""
        return self.cities.get(key)
