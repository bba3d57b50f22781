"""tabconv: convert between CSV and JSON (RFC 4180 reading, typed fields, minimal quoting)."""


class TabconvError(Exception):
    """Bad input or arguments: the CLI prints it as one `error:` line and exits 1."""
