"""The API's routers: one module per capability or resource."""
