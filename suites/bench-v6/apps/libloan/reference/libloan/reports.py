"""Reports: overdue loans (text or CSV) and fines owed."""
import csv
import datetime

from libloan.fines import fine_cents
from libloan.values import money

CSV_HEADER = ["member", "name", "book", "title", "due", "days_late", "fine"]


def overdue_rows(data, day):
    """(due, mid, bid, days late, fine) of every open loan due before ``day``, in report order."""
    rows = []
    for loan in data["loans"]:
        due = datetime.date.fromisoformat(loan["due"])
        if due < day:
            late = (day - due).days
            rows.append((loan["due"], loan["member"], loan["book"], late,
                         fine_cents(data["books"][loan["book"]]["price"], late)))
    return sorted(rows)


def overdue(data, day):
    rows = overdue_rows(data, day)
    if not rows:
        return ["no overdue loans"]
    return [f"{mid} {bid} due {due}, {late} days late, fine {money(fine)}" for due, mid, bid, late, fine in rows]


def overdue_csv(data, day, path):
    with open(path, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(CSV_HEADER)
        for due, mid, bid, late, fine in overdue_rows(data, day):
            out.writerow([mid, data["members"][mid]["name"], bid, data["books"][bid]["title"], due, late,
                          money(fine)])


def fines(data):
    owing = [(mid, m) for mid, m in sorted(data["members"].items()) if m["owes"] > 0]
    lines = [f"{mid} {m['name']} {money(m['owes'])}" for mid, m in owing]
    return lines + [f"total {money(sum(m['owes'] for _, m in owing))}"]
