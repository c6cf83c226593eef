"""Where to look to see whether an action happened: the page (or API address) of the
object a request acted on, named in every "outcome unknown" answer."""

from __future__ import annotations

import re

API = "/api/v1"
# The objects an action acts on, most specific first; "new" and "import" are forms, not
# objects.
_OBJECTS = (
    re.compile(r"^/projects/(?!import(?:/|$))[^/]+/conditions/[^/]+"),
    re.compile(r"^/projects/(?!import(?:/|$))[^/]+"),
    re.compile(r"^/applications/(?!new(?:/|$))[^/]+"),
    re.compile(r"^/permits/(?!new(?:/|$))[^/]+"),
)
# Where a request that makes a new object (or acts on no one object) is checked.
_LISTS = {
    "/applications": "/applications",
    "/permits": "/permits",
    "/projects": "/projects",
    "/resolutions": "/projects",
    "/admin": "/admin/calendar",
}


def object_link(path: str, api: bool) -> str:
    """The object `path` acts on: its API address when `api`, else its page."""
    inner = path[len(API) :] if path.startswith(API + "/") else path
    for pattern in _OBJECTS:
        if match := pattern.match(inner):
            found = match.group(0)
            return API + found if api else found
    first = "/" + inner.strip("/").split("/")[0] if inner.strip("/") else "/"
    listed = _LISTS.get(first)
    if api:
        return API + (listed if listed in ("/applications", "/permits", "/projects") else first)
    return listed or "/"
