"""HTML to PDF with WeasyPrint: real pages (Letter, numbered), the fonts embedded (as
subsets of DejaVu, installed by scripts/system-packages), vector SVG charts, searchable
text. Imported only when a PDF is asked for (WeasyPrint loads Pango)."""

from __future__ import annotations

from typing import Any

from weasyprint import HTML, URLFetcher


class _FetchNothing(URLFetcher):
    """A report is self-contained: a link or image in user text reaches neither the
    network nor the disk."""

    def fetch(self, url: str, headers: Any = None) -> Any:
        raise ValueError(f"reports fetch nothing: {url[:80]}")


def html_to_pdf(html: str, *, title: str = "") -> bytes:
    """The PDF of a report's HTML."""
    document = HTML(string=html, url_fetcher=_FetchNothing()).render()
    if title:
        document.metadata.title = title
    document.metadata.generator = "Clearance"
    return bytes(document.write_pdf() or b"")
