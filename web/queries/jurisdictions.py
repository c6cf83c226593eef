"""Which jurisdictions a form offers: every city, shipped or set up by an administrator,
as in effect today, by name (the federal placeholder last, as it is not a city)."""

from __future__ import annotations

from actions.layer import Actions


def jurisdiction_options(actions: Actions, *, cities_only: bool = False) -> list[tuple[str, str]]:
    found = actions.cities.all()
    options = [(key, city.name) for key, city in found.items() if key != "federal"]
    if not cities_only or not options:
        options += [(key, city.name) for key, city in found.items() if key == "federal"]
    return options
