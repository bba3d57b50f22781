"""Books and their copies."""
from libloan.errors import LibError
from libloan.values import cents, copies, free_text, ident


def add(data, bid, title, price, n_copies):
    ident(bid, "book id")
    title = free_text(title, "title")
    price_cents = cents(price, "price")
    n = copies(n_copies)
    if bid in data["books"]:
        raise LibError(f"book {bid} already exists")
    data["books"][bid] = {"title": title, "price": price_cents, "copies": n, "holds": []}


def get(data, bid):
    if bid not in data["books"]:
        raise LibError(f"unknown book {bid}")
    return data["books"][bid]


def available(data, bid):
    return data["books"][bid]["copies"] - sum(1 for loan in data["loans"] if loan["book"] == bid)


def listing(data):
    return [f"{bid} {b['title']}: {available(data, bid)} of {b['copies']} available"
            for bid, b in sorted(data["books"].items())]
