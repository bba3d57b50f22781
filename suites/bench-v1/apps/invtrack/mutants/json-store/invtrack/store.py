"""Item storage (a JSON file)."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass


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
        self.path = path
        self.items: dict[str, Item] = {}
        if os.path.exists(path) and os.path.getsize(path):
            with open(path) as f:
                self.items = {d["sku"]: Item(**d) for d in json.load(f)}

    def _save(self) -> None:
        with open(self.path, "w") as f:
            json.dump([i.to_dict() for i in self.items.values()], f)

    def close(self) -> None:
        self._save()

    def add(self, sku, name, qty, price):
        if qty < 0 or price < 0:
            raise StoreError("qty and price must not be negative")
        if sku in self.items:
            raise StoreError(f"SKU {sku} already exists")
        self.items[sku] = Item(sku, name, qty, float(price))
        self._save()
        return self.items[sku]

    def get(self, sku):
        if sku not in self.items:
            raise StoreError(f"no item with SKU {sku}")
        return self.items[sku]

    def list(self):
        return [self.items[k] for k in sorted(self.items)]

    def update(self, sku, name=None, qty=None, price=None):
        item = self.get(sku)
        item.name = item.name if name is None else name
        item.qty = item.qty if qty is None else qty
        item.price = item.price if price is None else float(price)
        self._save()
        return item

    def remove(self, sku):
        self.get(sku)
        del self.items[sku]
        self._save()

    def move(self, sku, delta):
        item = self.get(sku)
        if item.qty + delta < 0:
            raise StoreError(f"not enough stock for {sku}")
        return self.update(sku, qty=item.qty + delta)

    def total_value(self):
        return float(sum(i.qty * i.price for i in self.items.values()))

    def low_stock(self, threshold):
        return [i for i in self.list() if i.qty < threshold]
