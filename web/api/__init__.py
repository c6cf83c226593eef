"""The JSON API, /api/v1/: one router module per capability in web/api/routes/, put
together in web/api/main.py; shared dependencies in web/api/deps.py."""
