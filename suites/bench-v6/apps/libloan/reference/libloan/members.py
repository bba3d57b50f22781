"""Members: adding, finding, listing."""
from libloan.errors import LibError
from libloan.values import free_text, ident, money


def add(data, mid, name):
    ident(mid, "member id")
    name = free_text(name, "name")
    if mid in data["members"]:
        raise LibError(f"member {mid} already exists")
    data["members"][mid] = {"name": name, "owes": 0}


def get(data, mid):
    if mid not in data["members"]:
        raise LibError(f"unknown member {mid}")
    return data["members"][mid]


def loan_count(data, mid):
    return sum(1 for loan in data["loans"] if loan["member"] == mid)


def listing(data):
    return [f"{mid} {m['name']}: {loan_count(data, mid)} on loan, owes {money(m['owes'])}"
            for mid, m in sorted(data["members"].items())]
