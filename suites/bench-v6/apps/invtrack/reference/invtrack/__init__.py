"""invtrack: a small inventory store backed by SQLite."""

__version__ = "1.0.0"
