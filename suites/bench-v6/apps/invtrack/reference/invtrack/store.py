"""SQLite storage for inventory items."""
from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    sku   TEXT PRIMARY KEY,
    name  TEXT NOT NULL,
    qty   INTEGER NOT NULL CHECK (qty >= 0),
    price REAL NOT NULL CHECK (price >= 0)
)
"""


class StoreError(Exception):
    """A request the store refuses (unknown SKU, duplicate, not enough stock)."""


@dataclass
class Item:
    sku: str
    name: str
    qty: int
    price: float

    def to_dict(self) -> dict:
        return asdict(self)


class Store:
    def __init__(self, path: str):
        self.conn = sqlite3.connect(path)
        self.conn.execute(SCHEMA)
        self.conn.commit()

    def close(self) -> None:
        self.conn.close()

    def add(self, sku: str, name: str, qty: int, price: float) -> Item:
        if qty < 0 or price < 0:
            raise StoreError("qty and price must not be negative")
        try:
            with self.conn:
                self.conn.execute("INSERT INTO items VALUES (?, ?, ?, ?)", (sku, name, qty, price))
        except sqlite3.IntegrityError:
            raise StoreError(f"SKU {sku} already exists") from None
        return Item(sku, name, qty, price)

    def get(self, sku: str) -> Item:
        row = self.conn.execute("SELECT sku, name, qty, price FROM items WHERE sku = ?", (sku,)).fetchone()
        if row is None:
            raise StoreError(f"no item with SKU {sku}")
        return Item(*row)

    def list(self) -> list[Item]:
        rows = self.conn.execute("SELECT sku, name, qty, price FROM items ORDER BY sku").fetchall()
        return [Item(*r) for r in rows]

    def update(self, sku: str, name: str | None = None, qty: int | None = None,
               price: float | None = None) -> Item:
        item = self.get(sku)
        item.name = item.name if name is None else name
        item.qty = item.qty if qty is None else qty
        item.price = item.price if price is None else price
        if item.qty < 0 or item.price < 0:
            raise StoreError("qty and price must not be negative")
        with self.conn:
            self.conn.execute("UPDATE items SET name = ?, qty = ?, price = ? WHERE sku = ?",
                              (item.name, item.qty, item.price, sku))
        return item

    def remove(self, sku: str) -> None:
        self.get(sku)
        with self.conn:
            self.conn.execute("DELETE FROM items WHERE sku = ?", (sku,))

    def move(self, sku: str, delta: int) -> Item:
        item = self.get(sku)
        if item.qty + delta < 0:
            raise StoreError(f"not enough stock for {sku}: have {item.qty}, need {-delta}")
        return self.update(sku, qty=item.qty + delta)

    def total_value(self) -> float:
        (total,) = self.conn.execute("SELECT COALESCE(SUM(qty * price), 0) FROM items").fetchone()
        return float(total)

    def low_stock(self, threshold: int) -> list[Item]:
        return [i for i in self.list() if i.qty < threshold]
