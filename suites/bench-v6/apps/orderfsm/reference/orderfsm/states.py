"""The states of an order and the transition table (pure data and rules, no I/O)."""
from __future__ import annotations

import re
from datetime import datetime

STATES = ("created", "paid", "partial", "shipped", "delivered", "cancelled", "refunded")

# command -> the states it may start from (``ship`` goes to partial or shipped, see :func:`after_ship`)
TRANSITIONS: dict[str, dict[str, str]] = {
    "pay": {"created": "paid"},
    "ship": {"paid": "shipped", "partial": "shipped"},
    "deliver": {"shipped": "delivered"},
    "cancel": {"created": "cancelled", "paid": "cancelled"},
    "refund": {"delivered": "refunded"},
}

ORDER_RE = re.compile(r"[A-Za-z0-9_-]{1,20}")
TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


class TransitionError(Exception):
    """A command the lifecycle does not allow; the message is shown after ``error:``."""


def check_order_id(order: str) -> str:
    if not ORDER_RE.fullmatch(order) or not order.isascii():
        raise TransitionError(f"bad ORDER {order!r}: 1 to 20 ASCII letters, digits, '-' or '_'")
    return order


def check_time(at: str) -> str:
    if not TIME_RE.fullmatch(at) or not at.isascii():
        raise TransitionError(f"bad TIME {at!r}: expected YYYY-MM-DDTHH:MM")
    try:
        datetime.strptime(at, "%Y-%m-%dT%H:%M")
    except ValueError:
        raise TransitionError(f"bad TIME {at!r}: not a real date and time") from None
    return at


def next_state(command: str, state: str) -> str:
    """The state ``command`` leads to from ``state`` (ship: when every item ships)."""
    target = TRANSITIONS[command].get(state)
    if target is None:
        raise TransitionError(f"cannot {command} an order in state {state}")
    return target


def after_ship(items: int, shipped: int, qty: int | None) -> tuple[int, str]:
    """(shipped count, state) after shipping ``qty`` more items (None: all that remain)."""
    remaining = items - shipped
    qty = remaining if qty is None else qty
    if qty < 1 or qty > remaining:
        raise TransitionError(f"--qty must be between 1 and {remaining} (items not yet shipped)")
    shipped += qty
    return shipped, "shipped" if shipped == items else "partial"
