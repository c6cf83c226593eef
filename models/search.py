"""The search index's shape, shared by its migration (migrations/versions/0015) and its
query (web/queries/search.py): which columns of which table are searched, per kind.

PostgreSQL searches with full-text expression indexes (GIN over to_tsvector) on the
tables themselves; SQLite keeps an FTS5 table per kind (`search_<kind>`, external content
over the table, kept current by triggers). Neither is a model: the FTS5 tables and their
shadow tables all start with SEARCH_PREFIX."""

from __future__ import annotations

from dataclasses import dataclass

SEARCH_PREFIX = "search_"
PG_INDEX_SUFFIX = "_fulltext"


def is_search_object(name: str | None) -> bool:
    """A table or index of the search index (no model describes them)."""
    return bool(name) and (
        str(name).startswith(SEARCH_PREFIX) or str(name).endswith(PG_INDEX_SUFFIX)
    )


@dataclass(frozen=True)
class Searched:
    kind: str  # "projects", "conditions", "clocks", "permits", "people"
    table: str
    rowid: str  # the integer row id SQLite's FTS5 table follows
    columns: tuple[str, ...]
    # PostgreSQL's text search configuration: "english" stems prose (condition text);
    # "simple" keeps ids, names and addresses as typed.
    config: str

    @property
    def fts_table(self) -> str:
        return f"{SEARCH_PREFIX}{self.kind}"

    @property
    def pg_index(self) -> str:
        return f"ix_{self.table}{PG_INDEX_SUFFIX}"

    def pg_document(self, alias: str = "") -> str:
        """The indexed expression; a query must repeat it exactly to use the index."""
        return f"to_tsvector('{self.config}', {self.pg_text(alias)})"

    def pg_text(self, alias: str = "") -> str:
        """The searched columns as one text, with the punctuation inside ids, emails and
        addresses made spaces: PostgreSQL's parser would read `WTF-00042` as a word and a
        negative number, `pm@city.example` as one email token; the query's words
        (letters and digits) must meet the same words."""
        prefix = f"{alias}." if alias else ""
        joined = " || ' ' || ".join(f"coalesce({prefix}{c}, '')" for c in self.columns)
        return f"translate({joined}, '-@./_#', '      ')"


SEARCHED = (
    Searched(
        "projects",
        "projects",
        "rowid",
        ("project_id", "name", "resolution_title", "applicant_name", "project_manager_email"),
        "simple",
    ),
    Searched("conditions", "conditions", "id", ("text", "department", "code"), "english"),
    Searched(
        "clocks",
        "applications",
        "rowid",
        ("application_id", "site_address", "description", "applicant_name", "planner_email"),
        "simple",
    ),
    Searched(
        "permits",
        "permit_clocks",
        "rowid",
        ("clock_id", "title", "site_address", "applicant_name", "staff_email"),
        "simple",
    ),
    Searched("people", "users", "id", ("email", "display_name", "department"), "simple"),
)
