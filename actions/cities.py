"""The jurisdictions (cities) actions name: by key, or the deployment's default."""

from __future__ import annotations

from dataclasses import dataclass

from actions.errors import bad
from rules.kernel.jurisdictions import Jurisdiction, default_jurisdiction, jurisdiction


@dataclass(frozen=True)
class Cities:
    default_key: str  # settings.default_jurisdiction

    def get(self, key: str = "") -> Jurisdiction:
        """A jurisdiction by key; empty: the deployment's default (a setting)."""
        try:
            if key:
                return jurisdiction(key)
            return default_jurisdiction(self.default_key)
        except ValueError as err:
            raise bad(f"jurisdiction: {err}") from None
