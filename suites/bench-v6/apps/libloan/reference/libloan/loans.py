"""Lending and returns (and, on the hard tier, renewals and holds)."""
import datetime

from libloan import catalog, members
from libloan.errors import LibError
from libloan.fines import fine_cents

LOAN_DAYS = 14
MAX_LOANS = 3
MAX_OWED = 500  # cents: owing this much or more blocks borrowing
MAX_RENEWALS = 2


def due_date(loan_date):
    return loan_date + datetime.timedelta(days=LOAN_DAYS)


def find(data, mid, bid):
    return next((loan for loan in data["loans"] if loan["member"] == mid and loan["book"] == bid), None)


def lend(data, mid, bid, day):
    member = members.get(data, mid)
    book = catalog.get(data, bid)
    if find(data, mid, bid) is not None:
        raise LibError(f"{mid} already has {bid} on loan")
    if members.loan_count(data, mid) >= MAX_LOANS:
        raise LibError(f"{mid} already has {MAX_LOANS} books on loan")
    if member["owes"] >= MAX_OWED:
        raise LibError(f"{mid} owes 5.00 or more and may not borrow")
    if book["holds"] and book["holds"][0] != mid:
        raise LibError(f"{bid} is on hold for {book['holds'][0]}")
    if catalog.available(data, bid) < 1:
        raise LibError(f"no copy of {bid} is available")
    if book["holds"]:
        book["holds"].pop(0)
    due = due_date(day)
    data["loans"].append({"member": mid, "book": bid, "lent": day.isoformat(), "due": due.isoformat(),
                          "renewals": 0})
    return due


def _open_loan(data, mid, bid):
    members.get(data, mid)
    catalog.get(data, bid)
    loan = find(data, mid, bid)
    if loan is None:
        raise LibError(f"{mid} has no loan of {bid}")
    return loan


def give_back(data, mid, bid, day):
    """Return the loan; the fine (cents) is added to what the member owes and returned."""
    loan = _open_loan(data, mid, bid)
    if day < datetime.date.fromisoformat(loan["lent"]):
        raise LibError(f"{bid} was lent on {loan['lent']}; it cannot come back earlier")
    late = (day - datetime.date.fromisoformat(loan["due"])).days
    fine = fine_cents(data["books"][bid]["price"], late)
    data["members"][mid]["owes"] += fine
    data["loans"].remove(loan)
    return fine


def renew(data, mid, bid, day):
    loan = _open_loan(data, mid, bid)
    due = datetime.date.fromisoformat(loan["due"])
    if day > due:
        raise LibError(f"the loan was due {loan['due']}; an overdue loan cannot be renewed")
    if loan["renewals"] >= MAX_RENEWALS:
        raise LibError(f"the loan was already renewed {MAX_RENEWALS} times")
    if data["books"][bid]["holds"]:
        raise LibError(f"{bid} has holds; it cannot be renewed")
    due = due_date(due)
    loan["due"] = due.isoformat()
    loan["renewals"] += 1
    return due


def place_hold(data, mid, bid):
    members.get(data, mid)
    book = catalog.get(data, bid)
    if find(data, mid, bid) is not None:
        raise LibError(f"{mid} has {bid} on loan")
    if mid in book["holds"]:
        raise LibError(f"{mid} is already in the queue for {bid}")
    book["holds"].append(mid)
    return len(book["holds"])
