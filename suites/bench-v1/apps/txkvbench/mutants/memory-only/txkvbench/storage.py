"""Committed state."""
from __future__ import annotations


class Storage:
    def __init__(self, path: str):
        self.path = path
        self.data: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.data.get(key)

    def keys(self) -> set[str]:
        return set(self.data)

    def apply(self, changes: dict[str, str | None]) -> None:
        for key, value in changes.items():
            if value is None:
                self.data.pop(key, None)
            else:
                self.data[key] = value

    def close(self) -> None:
        pass
