"""The fine rule: 2.5 % of the price per day late, rounded half up to a cent, capped at the price."""
from libloan import members
from libloan.errors import LibError
from libloan.values import money


def fine_cents(price_cents, days_late):
    if days_late <= 0:
        return 0
    return min(price_cents, (days_late * price_cents + 20) // 40)


def pay(data, mid, amount):
    """Take ``amount`` cents off what member ``mid`` owes; returns what is left."""
    member = members.get(data, mid)
    if amount <= 0:
        raise LibError("the amount must be more than 0")
    if amount > member["owes"]:
        raise LibError(f"{mid} owes only {money(member['owes'])}")
    member["owes"] -= amount
    return member["owes"]
