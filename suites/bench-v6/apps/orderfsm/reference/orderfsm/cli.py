"""Command line: python3 -m orderfsm --db FILE <command> ..."""
from __future__ import annotations

import argparse
import sys

from orderfsm import reports
from orderfsm.states import STATES, TransitionError, after_ship, check_order_id, check_time, next_state
from orderfsm.store import Store

TRANSITION_COMMANDS = ("pay", "ship", "deliver", "cancel", "refund")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="orderfsm", description="Order lifecycle tracker backed by SQLite.")
    p.add_argument("--db", required=True, metavar="FILE", help="SQLite database file (created on first use)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    c = sub.add_parser("create", help="create an order in state created")
    c.add_argument("order")
    c.add_argument("--at", required=True, metavar="TIME")
    c.add_argument("--items", type=int, default=1, help="number of items (default 1)")
    for name, text in (("pay", "created -> paid"), ("ship", "paid/partial -> partial or shipped"),
                       ("deliver", "shipped -> delivered"), ("cancel", "created or paid -> cancelled"),
                       ("refund", "delivered -> refunded")):
        t = sub.add_parser(name, help=text)
        t.add_argument("order")
        t.add_argument("--at", required=True, metavar="TIME")
        if name == "ship":
            t.add_argument("--qty", type=int, default=None, help="items to ship (default: all that remain)")
    s = sub.add_parser("show", help="print ORDER STATE")
    s.add_argument("order")
    s.add_argument("--json", action="store_true", help="print a JSON object")
    ls = sub.add_parser("list", help="print every order, sorted by id")
    ls.add_argument("--state", default=None)
    h = sub.add_parser("history", help="print an order's transitions, oldest first")
    h.add_argument("order")
    u = sub.add_parser("undo", help="remove an order's last transition")
    u.add_argument("order")
    sub.add_parser("report", help="count the orders in each state")
    return p


def transition(store: Store, command: str, order_id: str, at: str, qty: int | None) -> str:
    order = store.get(check_order_id(order_id))
    check_time(at)
    last = store.history(order.id)[-1].time
    if at < last:
        raise TransitionError(f"TIME {at} is earlier than the order's last transition ({last})")
    state = next_state(command, order.state)
    shipped = order.shipped
    if command == "ship":
        shipped, state = after_ship(order.items, order.shipped, qty)
    return reports.order_line(store.record(order, command, at, state, shipped))


def run(args: argparse.Namespace, store: Store) -> str:
    cmd = args.command
    if cmd == "create":
        check_order_id(args.order)
        check_time(args.at)
        if args.items < 1:
            raise TransitionError("--items must be at least 1")
        if store.exists(args.order):
            raise TransitionError(f"order {args.order} already exists")
        return reports.order_line(store.create(args.order, args.items, args.at))
    if cmd in TRANSITION_COMMANDS:
        return transition(store, cmd, args.order, args.at, getattr(args, "qty", None))
    if cmd == "show":
        order = store.get(args.order)
        return reports.order_json(order) if args.json else reports.order_line(order)
    if cmd == "list":
        if args.state is not None and args.state not in STATES:
            raise TransitionError(f"unknown state {args.state!r}; expected one of {', '.join(STATES)}")
        return reports.listing(store.orders(args.state)).rstrip("\n")
    if cmd == "history":
        return reports.history(store.history(store.get(args.order).id)).rstrip("\n")
    if cmd == "undo":
        return reports.order_line(store.undo(store.get(args.order)))
    return reports.report(store.orders()).rstrip("\n")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        store = Store(args.db)
        try:
            text = run(args, store)
        finally:
            store.close()
    except TransitionError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if text:
        print(text)
    return 0
