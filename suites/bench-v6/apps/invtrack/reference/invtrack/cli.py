"""Command line: python3 -m invtrack --db FILE <command> ..."""
from __future__ import annotations

import argparse
import csv
import json
import sys

from invtrack.store import Store, StoreError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="invtrack", description="Inventory store backed by SQLite.")
    p.add_argument("--db", default="invtrack.db", help="SQLite database file (default: invtrack.db)")
    sub = p.add_subparsers(dest="group", required=True)

    item = sub.add_parser("item", help="add, list, update and remove items").add_subparsers(dest="cmd", required=True)
    add = item.add_parser("add", help="add a new item")
    add.add_argument("sku")
    add.add_argument("--name", required=True)
    add.add_argument("--qty", type=int, required=True)
    add.add_argument("--price", type=float, required=True)
    ls = item.add_parser("list", help="list items sorted by SKU")
    ls.add_argument("--json", action="store_true", help="print a JSON array of items")
    up = item.add_parser("update", help="change an item's fields")
    up.add_argument("sku")
    up.add_argument("--name")
    up.add_argument("--qty", type=int)
    up.add_argument("--price", type=float)
    rm = item.add_parser("remove", help="delete an item")
    rm.add_argument("sku")

    stock = sub.add_parser("stock", help="move stock in or out").add_subparsers(dest="cmd", required=True)
    for name in ("in", "out"):
        s = stock.add_parser(name, help=f"stock {name}")
        s.add_argument("sku")
        s.add_argument("qty", type=int)

    report = sub.add_parser("report", help="inventory reports").add_subparsers(dest="cmd", required=True)
    report.add_parser("value", help="total value: sum of qty * price")
    low = report.add_parser("low", help="items with qty below a threshold")
    low.add_argument("--threshold", type=int, required=True)

    exp = sub.add_parser("export", help="export items")
    exp.add_argument("--csv", required=True, metavar="FILE", help="write sku,name,qty,price rows")
    return p


def _fmt_price(x: float) -> str:
    return f"{x:.2f}"


def run(args: argparse.Namespace, store: Store) -> int:
    key = (args.group, getattr(args, "cmd", None))
    if key == ("item", "add"):
        item = store.add(args.sku, args.name, args.qty, args.price)
        print(f"added {item.sku}")
    elif key == ("item", "list"):
        items = store.list()
        if args.json:
            print(json.dumps([i.to_dict() for i in items]))
        else:
            print(f"{'SKU':<10} {'NAME':<20} {'QTY':>6} {'PRICE':>10}")
            for i in items:
                print(f"{i.sku:<10} {i.name:<20} {i.qty:>6} {_fmt_price(i.price):>10}")
    elif key == ("item", "update"):
        item = store.update(args.sku, args.name, args.qty, args.price)
        print(f"updated {item.sku}")
    elif key == ("item", "remove"):
        store.remove(args.sku)
        print(f"removed {args.sku}")
    elif args.group == "stock":
        if args.qty <= 0:
            raise StoreError("qty must be positive")
        item = store.move(args.sku, args.qty if args.cmd == "in" else -args.qty)
        print(f"{item.sku} qty {item.qty}")
    elif key == ("report", "value"):
        print(f"Total value: {_fmt_price(store.total_value())}")
    elif key == ("report", "low"):
        for i in store.low_stock(args.threshold):
            print(f"{i.sku} {i.name} {i.qty}")
    elif args.group == "export":
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["sku", "name", "qty", "price"])
            for i in store.list():
                w.writerow([i.sku, i.name, i.qty, _fmt_price(i.price)])
        print(f"exported to {args.csv}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    store = Store(args.db)
    try:
        return run(args, store)
    except StoreError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
