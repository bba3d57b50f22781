"""SQLite persistence: orders and their transitions (events)."""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from orderfsm.states import TransitionError

SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    items INTEGER NOT NULL,
    shipped INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    order_id TEXT NOT NULL REFERENCES orders(id),
    seq INTEGER NOT NULL,
    time TEXT NOT NULL,
    command TEXT NOT NULL,
    state TEXT NOT NULL,
    shipped INTEGER NOT NULL,
    PRIMARY KEY (order_id, seq)
);
"""


@dataclass
class Order:
    id: str
    state: str
    items: int
    shipped: int


@dataclass
class Event:
    seq: int
    time: str
    command: str
    state: str
    shipped: int


class Store:
    def __init__(self, path: str) -> None:
        try:
            self.con = sqlite3.connect(path)
            self.con.executescript(SCHEMA)
        except sqlite3.Error as e:
            raise TransitionError(f"cannot open database {path}: {e}") from None

    def close(self) -> None:
        self.con.close()

    def get(self, order_id: str) -> Order:
        row = self.con.execute("SELECT id, state, items, shipped FROM orders WHERE id = ?", (order_id,)).fetchone()
        if row is None:
            raise TransitionError(f"unknown order {order_id}")
        return Order(*row)

    def exists(self, order_id: str) -> bool:
        return self.con.execute("SELECT 1 FROM orders WHERE id = ?", (order_id,)).fetchone() is not None

    def orders(self, state: str | None = None) -> list[Order]:
        rows = self.con.execute("SELECT id, state, items, shipped FROM orders").fetchall()
        found = [Order(*r) for r in rows if state is None or r[1] == state]
        return sorted(found, key=lambda o: o.id)

    def history(self, order_id: str) -> list[Event]:
        rows = self.con.execute("SELECT seq, time, command, state, shipped FROM events WHERE order_id = ? "
                                "ORDER BY seq", (order_id,)).fetchall()
        return [Event(*r) for r in rows]

    def create(self, order_id: str, items: int, at: str) -> Order:
        with self.con:
            self.con.execute("INSERT INTO orders VALUES (?, 'created', ?, 0)", (order_id, items))
            self.con.execute("INSERT INTO events VALUES (?, 1, ?, 'create', 'created', 0)", (order_id, at))
        return self.get(order_id)

    def record(self, order: Order, command: str, at: str, state: str, shipped: int) -> Order:
        """Move ``order`` to ``state`` (one transaction: the order row and its new event)."""
        seq = len(self.history(order.id)) + 1
        with self.con:
            self.con.execute("UPDATE orders SET state = ?, shipped = ? WHERE id = ?", (state, shipped, order.id))
            self.con.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                             (order.id, seq, at, command, state, shipped))
        return self.get(order.id)

    def undo(self, order: Order) -> Order:
        events = self.history(order.id)
        if len(events) < 2:
            raise TransitionError(f"order {order.id} has no transition to undo (only its create)")
        last, prev = events[-1], events[-2]
        with self.con:
            self.con.execute("DELETE FROM events WHERE order_id = ? AND seq = ?", (order.id, last.seq))
            self.con.execute("UPDATE orders SET state = ?, shipped = ? WHERE id = ?",
                             (prev.state, prev.shipped, order.id))
        return self.get(order.id)
