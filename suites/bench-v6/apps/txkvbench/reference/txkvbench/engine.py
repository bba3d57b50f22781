"""Nested transactions as a stack of change layers over the committed storage.

Each BEGIN pushes an empty layer; writes go to the top layer (None marks a delete).
ROLLBACK drops the top layer only.  COMMIT merges the top layer into the one below
it; committing the outermost layer writes it to storage.
"""
from __future__ import annotations

from txkvbench.storage import Storage

NO_TRANSACTION = "NO TRANSACTION"


class CommandError(Exception):
    """A statement that cannot run: unknown command, wrong arguments, bad value."""


class Engine:
    def __init__(self, storage: Storage):
        self.storage = storage
        self.layers: list[dict[str, str | None]] = []

    # --- reads ------------------------------------------------------------------------
    def get(self, key: str) -> str | None:
        for layer in reversed(self.layers):
            if key in layer:
                return layer[key]
        return self.storage.get(key)

    def keys(self) -> list[str]:
        names = self.storage.keys()
        for layer in self.layers:
            names |= set(layer)
        return sorted(k for k in names if self.get(k) is not None)

    # --- writes -----------------------------------------------------------------------
    def _write(self, key: str, value: str | None) -> None:
        if self.layers:
            self.layers[-1][key] = value
        else:
            self.storage.apply({key: value})

    def set(self, key: str, value: str) -> None:
        self._write(key, value)

    def delete(self, key: str) -> None:
        self._write(key, None)

    def incr(self, key: str, by: int = 1) -> int:
        cur = self.get(key)
        try:
            value = int(cur if cur is not None else 0) + by
        except ValueError:
            raise CommandError(f"value of {key} is not an integer") from None
        self._write(key, str(value))
        return value

    # --- transactions -----------------------------------------------------------------
    def begin(self) -> None:
        self.layers.append({})

    def rollback(self) -> bool:
        if not self.layers:
            return False
        self.layers.pop()
        return True

    def commit(self) -> bool:
        if not self.layers:
            return False
        top = self.layers.pop()
        if self.layers:
            self.layers[-1].update(top)
        else:
            self.storage.apply(top)
        return True

    def abandon(self) -> None:
        """Discard every open transaction (end of a script)."""
        self.layers.clear()
