"""The HTML pages: one router module per group of pages (the JSON API is web/api/)."""
