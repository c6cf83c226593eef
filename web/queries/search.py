"""Search across projects, condition text, wireless clocks, permit clocks and people, one
interface over two engines: PostgreSQL full-text search (to_tsvector over the indexed
expression, ranked by ts_rank, excerpts by ts_headline) and SQLite FTS5 (bm25, snippet).
The index is migrations/versions/0015 over the columns named in models/search.py.

What was typed is read as words (letters and digits); every word must match, each as a
prefix (`drain` finds "drainage"), so no query syntax reaches either engine."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, or_, select, text
from sqlalchemy.orm import Session

from models.schema import Application, PermitClockRow, Project, User, UserJurisdiction
from models.scope import current_scope
from models.search import SEARCHED, Searched

MAX_WORDS = 8
PER_KIND = 20
# Marks around a matched word in an excerpt; the page escapes the text, then marks it.
START, END = "\x02", "\x03"
LABELS = {
    "projects": "Projects",
    "conditions": "Conditions",
    "clocks": "Wireless shot clocks",
    "permits": "Permit clocks",
    "people": "People",
}


@dataclass
class Hit:
    kind: str
    ref: str  # the id shown: a project id, "PRJ-1 #12", an application id, an email
    title: str
    url: str
    excerpt: list[tuple[str, bool]] = field(default_factory=list)  # (text, matched)


@dataclass
class Results:
    query: str
    words: list[str]
    groups: dict[str, list[Hit]]

    @property
    def total(self) -> int:
        return sum(len(hits) for hits in self.groups.values())


def words_of(query: str) -> list[str]:
    return [w.lower() for w in re.findall(r"\w+", query)][:MAX_WORDS]


def _excerpt(marked: str) -> list[tuple[str, bool]]:
    parts: list[tuple[str, bool]] = []
    for i, piece in enumerate(re.split(f"[{START}{END}]", marked or "")):
        if piece:
            parts.append((piece, i % 2 == 1))
    return parts


def _select(s: Searched) -> str:
    """The columns a hit is built from, per kind."""
    return {
        "projects": "t.project_id, t.name, t.project_id, ''",
        "conditions": "t.project_id, t.number, t.department, t.text",
        "clocks": "t.application_id, t.site_address, t.application_id, ''",
        "permits": "t.clock_id, t.title, t.clock_id, ''",
        "people": "t.email, t.display_name, t.role, t.department",
    }[s.kind]


def _hit(kind: str, row: Any, excerpt: str) -> Hit:
    a, b, c, d = row[0], row[1], row[2], row[3]
    if kind == "projects":
        return Hit(kind, a, b or a, f"/projects/{a}", _excerpt(excerpt))
    if kind == "conditions":
        return Hit(
            kind, f"{a} #{b}", f"Condition {b} ({c})", f"/projects/{a}/conditions/{b}",
            _excerpt(excerpt),
        )  # fmt: skip
    if kind == "clocks":
        return Hit(kind, a, b or a, f"/applications/{a}", _excerpt(excerpt))
    if kind == "permits":
        return Hit(kind, a, b or a, f"/permits/{a}", _excerpt(excerpt))
    role = str(c or "").replace("_", " ")
    where = f", {d}" if d else ""
    return Hit(kind, a, f"{b or a} ({role}{where})", "/admin/users", _excerpt(excerpt))


def _postgres(session: Session, s: Searched, words: list[str], limit: int) -> list[Hit]:
    query = " & ".join(f"{w}:*" for w in words)
    document = s.pg_document("t")
    sql = text(
        f"SELECT {_select(s)}, ts_headline('{s.config}', {s.pg_text('t')}, q, "
        f"'StartSel=\x02, StopSel=\x03, MaxWords=24, MinWords=8, MaxFragments=1') "
        f"FROM {s.table} t, to_tsquery('{s.config}', :query) q "
        f"WHERE {document} @@ q ORDER BY ts_rank({document}, q) DESC LIMIT :limit"
    )
    rows = session.execute(sql, {"query": query, "limit": limit})
    return [_hit(s.kind, row, row[4]) for row in rows]


def _sqlite(session: Session, s: Searched, words: list[str], limit: int) -> list[Hit]:
    # Each word quoted (no FTS5 syntax can be typed) and matched as a prefix.
    match = " ".join(f'"{w}"*' for w in words)
    sql = text(
        f"SELECT {_select(s)}, snippet({s.fts_table}, -1, '\x02', '\x03', '…', 16) "
        f"FROM {s.fts_table} JOIN {s.table} t ON t.{s.rowid} = {s.fts_table}.rowid "
        f"WHERE {s.fts_table} MATCH :match ORDER BY bm25({s.fts_table}) LIMIT :limit"
    )
    rows = session.execute(sql, {"match": match, "limit": limit})
    return [_hit(s.kind, row, row[4]) for row in rows]


def search(
    session: Session,
    query: str,
    kinds: tuple[str, ...] = (),
    limit: int = PER_KIND,
    default_city: str = "",
) -> Results:
    """The best `limit` hits of each kind (all kinds unless `kinds` names some).
    `default_city`: where a user with no city roles works (their people are found there)."""
    words = words_of(query)
    groups: dict[str, list[Hit]] = {}
    if not words:
        return Results(query, words, groups)
    engine = _postgres if session.get_bind().dialect.name == "postgresql" else _sqlite
    for s in SEARCHED:
        if kinds and s.kind not in kinds:
            continue
        scope = current_scope()
        # The full-text queries are plain SQL, which the ORM's city scope does not reach:
        # each hit's record is looked up again through the ORM, which drops another
        # city's (more are fetched first so a scoped page still fills).
        hits = engine(session, s, words, limit if scope is None else limit * 5)
        if scope is not None:
            hits = _visible(session, s.kind, hits, scope, default_city)[:limit]
        if hits:
            groups[s.kind] = hits
    return Results(query, words, groups)


_RECORD = {
    "projects": Project.project_id,
    "conditions": Project.project_id,
    "clocks": Application.application_id,
    "permits": PermitClockRow.clock_id,
}


def _visible(
    session: Session, kind: str, hits: list[Hit], scope: frozenset[str], default_city: str
) -> list[Hit]:
    """The hits whose record the request's scope may see; people: the staff who hold a
    role in one of the scope's cities (a user with none works in the default city)."""
    if not hits:
        return hits
    if kind == "people":
        held = select(UserJurisdiction.user_id).where(UserJurisdiction.jurisdiction.in_(scope))
        works_here: ColumnElement[bool] = User.id.in_(held)
        if default_city in scope:
            works_here = or_(works_here, User.id.not_in(select(UserJurisdiction.user_id)))
        emails = {hit.ref for hit in hits}
        staff = set(session.scalars(select(User.email).where(User.email.in_(emails), works_here)))
        return [hit for hit in hits if hit.ref in staff]
    column = _RECORD[kind]
    ids = {hit.url.split("/")[2] for hit in hits}
    seen = set(session.scalars(select(column).where(column.in_(ids))))
    return [hit for hit in hits if hit.url.split("/")[2] in seen]
