"""What the pages and the API read: bounded queries on the SQL read model."""
