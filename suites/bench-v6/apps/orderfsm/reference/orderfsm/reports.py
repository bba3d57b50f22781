"""The text the queries print: show, list, history, report."""
from __future__ import annotations

import json

from orderfsm.states import STATES
from orderfsm.store import Event, Order


def order_line(order: Order) -> str:
    return f"{order.id} {order.state}"


def order_json(order: Order) -> str:
    return json.dumps({"order": order.id, "state": order.state, "items": order.items, "shipped": order.shipped})


def listing(orders: list[Order]) -> str:
    return "".join(order_line(o) + "\n" for o in orders)


def history(events: list[Event]) -> str:
    return "".join(f"{e.time} {e.command} {e.state}\n" for e in events)


def report(orders: list[Order]) -> str:
    counts = {s: 0 for s in STATES}
    for o in orders:
        counts[o.state] += 1
    return "".join(f"{s} {counts[s]}\n" for s in STATES)
