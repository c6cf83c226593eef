"""Reports over the projects read model: milestone clearance, the CEQA mitigation
monitoring and reporting program, and the audit log export.

Each report reads the SQL tables (projects, conditions, audit_log) that the project
activities keep current, builds a plain dataclass, and renders it as HTML or CSV (or
JSON for the audit log). Nothing here writes to the database or talks to Temporal.
"""

from reports.common import ProjectNotFound

__all__ = ["ProjectNotFound"]
