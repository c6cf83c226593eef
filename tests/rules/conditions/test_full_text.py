"""Sub-items are kept wherever a condition's text is listed, reported or written."""

from __future__ import annotations

from models.conditions import SubItem
from rules.conditions.full_text import full_text


def test_the_text_goes_on_past_the_colon_through_every_sub_item() -> None:
    items = [
        SubItem("a.", "Street trees;", [SubItem("(1)", "24-inch box")]),
        {"label": "b.", "text": "Fencing along  the creek.", "sub_items": []},
    ]
    assert full_text("Submit a landscape plan showing:", items) == (
        "Submit a landscape plan showing: a. Street trees; (1) 24-inch box; "
        "b. Fencing along the creek."
    )
    assert full_text("Pay the fees.", []) == "Pay the fees."
