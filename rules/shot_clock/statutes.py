"""The fixed periods and citations the shot clock names outright.

Everything a jurisdiction may set (each category's period, its notice rules, whether the
date rolls forward) is in the rule packs; these are the federal and California rules
the engine applies whatever the pack.
"""

from __future__ import annotations

# 47 CFR 1.6003(d)(2): the "all other applications" tolling window, used for the
# alternative reading of a small-wireless notice sent on days 11-30.
GENERAL_TOLL_WINDOW_DAYS = 30
GENERAL_TOLL_RULE = "47 CFR 1.6003(d)(2)"
DEEMED_GRANTED_RULE = "47 CFR 1.6100(c)(4)"
CA_DEEMED_APPROVED_RULE = "Cal. Gov. Code 65964.1"
JUDICIAL_REVIEW_DAYS = 30
SECTION_332_REMEDY_RULE = "47 U.S.C. 332(c)(7)(B)(v)"
