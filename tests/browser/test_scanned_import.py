"""Journey: a project manager uploads a city's resolution as its archive publishes it, a
scanned, skewed, image-only PDF; watches its pages being recognised; and reviews the
conditions with the ones Clearance is unsure of listed first, each with its page and the
words that set it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import expect

from operations.documents import tesseract_available
from tests.browser.harness import Journey
from tests.real_parts import missing
from tests.rules.conditions.test_published_corpus import CORPUS
from tests.scanned_pdf import scan, text_pdf

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        tesseract_available() is None,
        reason=missing("Tesseract", "tesseract-ocr is not installed (scripts/system-packages)"),
    ),
]

RECITALS = "\n".join(
    f"WHEREAS, finding {n} of the City Council on the microbrewery application is recorded "
    "in the staff report and in the minutes of the public hearing held on March 11, 2025; and"
    for n in range(1, 9)
)


def _scanned_resolution(path: Path) -> Path:
    """Santa Orilla's resolution with three pages of recitals before its conditions (as
    councils adopt them), printed, scanned at a skew with noise: five image-only pages."""
    text = (CORPUS / "scan_council_paren.txt").read_text("utf-8")
    head, rest = text.split("NOW, THEREFORE", 1)
    body = head + "\f".join([RECITALS] * 3) + "\f" + "NOW, THEREFORE" + rest
    path.write_bytes(scan(text_pdf(body, "Resolution No. 2025-34"), skew=1.3, noise=0.002, seed=5))
    return path


async def test_a_scanned_pdf_shows_its_progress_and_flagged_conditions_first(
    journey: Journey, tmp_path: Path
) -> None:
    pdf = _scanned_resolution(tmp_path / "santa-orilla-2025-34-scan.pdf")
    page = await journey.login("pm@cotati.example")
    await page.get_by_test_id("nav-import").click()
    await page.get_by_test_id("import-file").set_input_files(str(pdf))
    await page.get_by_test_id("import-read").click()

    # Five scanned pages take Tesseract several seconds: the progress page comes first.
    progress = page.get_by_test_id("import-progress")
    await expect(progress).to_contain_text("recognised by OCR", timeout=60_000)
    await journey.shot("scanned pages being recognised")

    rows = page.get_by_test_id("import-row")
    await expect(rows).to_have_count(9, timeout=180_000)
    await expect(page.get_by_test_id("import-general-warnings")).to_contain_text(
        "Read by OCR: pages 1-5"
    )
    flagged = await rows.evaluate_all("rows => rows.map(r => r.dataset.flagged)")
    assert flagged[0] == "yes" and "no" in flagged
    assert flagged == sorted(flagged, reverse=True)  # every flagged row before the others
    first = rows.first
    await expect(first.get_by_test_id("import-confidence")).to_have_text("low")
    await expect(first.get_by_test_id("import-warning").first).to_contain_text("no milestone")
    # The review says where each condition was printed, and why it was read as it was.
    city_permits = page.locator('[data-testid=import-row][data-number="2"]')
    await expect(city_permits.get_by_test_id("import-page")).to_have_text("page 4")
    await expect(city_permits.get_by_test_id("import-gates")).to_have_value(
        "encroachment_permit,demolition_permit,grading_permit,building_permit"
    )
    review = page.locator('[data-testid=import-row][data-number="7"]')
    await expect(review.get_by_test_id("import-page")).to_have_text("page 5")
    await expect(review.get_by_test_id("import-time-limit")).to_have_text(
        "reviews at 6, 12 months after approval, then every 12 months"
    )
    await journey.shot("review with the flagged conditions first")
