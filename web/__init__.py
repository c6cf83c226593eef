"""The Clearance web app: server-rendered pages for staff and applicants, and a JSON API."""
