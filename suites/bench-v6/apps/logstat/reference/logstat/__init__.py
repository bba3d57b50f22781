"""logstat: statistics over a web access log (Common Log Format plus a response time)."""


class LogstatError(Exception):
    """A bad argument or an unreadable file: the CLI prints it as one `error:` line and exits 1."""
