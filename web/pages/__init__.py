"""Routers: one module per group of pages, plus the JSON API."""
