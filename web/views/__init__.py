"""How the pages say things: labels, dates, pictures, offered forms, ICS. Pure."""
