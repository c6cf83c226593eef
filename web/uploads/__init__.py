"""Files users send: evidence stored by sha256, type sniffing, resolutions read in a thread."""
