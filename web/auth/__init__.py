"""Who may come in: accounts (users, sessions, tokens, links), secrets, log-in throttling."""
