"""`clearance payload-key new`: make a key for payload encryption (docs/operations.md)."""

from __future__ import annotations

import typer

from operations.payload_codec import new_key

app = typer.Typer(
    help="Keys for encrypting personal data in workflow payloads.", no_args_is_help=True
)


@app.command("new")
def new() -> None:
    """Print a new random AES-256 key (base64) for CLEARANCE_PAYLOAD_KEY."""
    # Only the key on standard output, so `$(clearance payload-key new)` works.
    typer.echo(new_key())
