"""docs/deployment.md documents every setting settings.py reads, so an operator never
meets an undocumented variable."""

from __future__ import annotations

import re

from settings import PROJECT_ROOT


def test_every_setting_is_in_the_configuration_reference() -> None:
    variables = set(
        re.findall(r'"(CLEARANCE_[A-Z0-9_]+)"', (PROJECT_ROOT / "settings.py").read_text())
    )
    assert len(variables) > 10
    reference = (PROJECT_ROOT / "docs" / "deployment.md").read_text()
    rows = set(re.findall(r"^\| `(CLEARANCE_[A-Z0-9_]+)` \|", reference, re.M))
    assert sorted(variables - rows) == [], "settings missing from docs/deployment.md"
    assert sorted(rows - variables) == [], "docs/deployment.md lists settings that do not exist"
