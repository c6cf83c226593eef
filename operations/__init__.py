"""Operations: structured logs, the worker's health endpoints and the payload codec."""
