"""A random source whose next draw is known, to reach every index of the simulator's uniform picks."""
from __future__ import annotations

import random


class Fixed(random.Random):
    """``random()`` always returns ``u``: ``Fixed((k + 0.5) / n)`` picks index ``k`` of ``n``."""

    def __init__(self, u: float):
        super().__init__(0)
        self.u = u

    def random(self) -> float:
        return self.u
