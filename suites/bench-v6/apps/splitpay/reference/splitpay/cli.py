"""The command line: person, expense, balances, settle, payment, export."""
import argparse
import csv
import sys

from splitpay import ledger, settle, store
from splitpay.errors import SplitError
from splitpay.money import format_cents, parse_cents, parse_percent, tip_cents


def build_parser():
    p = argparse.ArgumentParser(prog="python3 -m splitpay", description="Share expenses in exact cents.")
    p.add_argument("--db", required=True, metavar="FILE", help="the SQLite database")
    sub = p.add_subparsers(dest="command", required=True, metavar="{person,expense,balances,settle,payment,export}")

    person = sub.add_parser("person", help="add and list people").add_subparsers(dest="action", required=True)
    person.add_parser("add", help="add a person").add_argument("name")
    person.add_parser("list", help="list people")

    expense = sub.add_parser("expense", help="add and list expenses").add_subparsers(dest="action", required=True)
    add = expense.add_parser("add", help="record an expense")
    add.add_argument("--payer", required=True)
    add.add_argument("--amount", required=True)
    add.add_argument("--desc", required=True)
    add.add_argument("--tip", default="0", metavar="PCT")
    add.add_argument("--equal", action="append", default=[], metavar="NAME")
    add.add_argument("--share", action="append", default=[], metavar="NAME=WEIGHT")
    add.add_argument("--exact", action="append", default=[], metavar="NAME=AMOUNT")
    expense.add_parser("list", help="list expenses")

    sub.add_parser("balances", help="what everyone is owed (+) or owes (-)")
    sub.add_parser("settle", help="the settle-up plan")

    payment = sub.add_parser("payment", help="record a payment").add_subparsers(dest="action", required=True)
    pay = payment.add_parser("add", help="FROM paid TO an AMOUNT")
    pay.add_argument("payer", metavar="FROM")
    pay.add_argument("payee", metavar="TO")
    pay.add_argument("amount")

    export = sub.add_parser("export", help="write a CSV file")
    export.add_argument("--csv", required=True, metavar="FILE")
    return p


def clean_name(raw):
    name = raw.strip()
    if not name:
        raise SplitError("a name must not be empty")
    return name


def known(con, raw):
    name = clean_name(raw)
    if name not in store.people(con):
        raise SplitError(f"unknown person {name!r}")
    return name


def amount(text, what="amount"):
    try:
        return parse_cents(text)
    except ValueError:
        raise SplitError(f"invalid {what} {text!r}: digits with at most two decimals") from None


def split_arg(text):
    """'NAME=VALUE' split at the last '='."""
    name, eq, value = text.rpartition("=")
    if not eq:
        raise SplitError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def parts_for(con, args, total):
    kinds = [k for k in ("equal", "share", "exact") if getattr(args, k)]
    if len(kinds) != 1:
        raise SplitError("give exactly one kind of split: --equal, --share or --exact")
    kind = kinds[0]
    if kind == "equal":
        names = [known(con, n) for n in args.equal]
        values = [None] * len(names)
    else:
        pairs = [split_arg(t) for t in getattr(args, kind)]
        names = [known(con, n) for n, _ in pairs]
        values = [v for _, v in pairs]
    if len(set(names)) != len(names):
        raise SplitError("a name is listed twice")
    if kind == "equal":
        return ledger.split_equal(total, names)
    if kind == "share":
        weights = {}
        for name, w in zip(names, values):
            if not (w.isascii() and w.isdigit()) or int(w) < 1:
                raise SplitError(f"invalid weight {w!r}: a whole number >= 1")
            weights[name] = int(w)
        return ledger.split_shares(total, weights)
    parts = {name: amount(v, "part") for name, v in zip(names, values)}
    if sum(parts.values()) != total:
        raise SplitError(f"the parts add up to {format_cents(sum(parts.values()))}, not {format_cents(total)}")
    return parts


def add_expense(con, args):
    payer = known(con, args.payer)
    cents = amount(args.amount)
    if cents == 0:
        raise SplitError("the amount must be more than 0")
    try:
        pct = parse_percent(args.tip)
    except ValueError:
        raise SplitError(f"invalid tip {args.tip!r}: a percent with at most two decimals") from None
    total = cents + tip_cents(cents, pct)
    parts = parts_for(con, args, total)
    return [f"expense {store.add_expense(con, payer, total, args.desc, parts)}"]


def current_balances(con):
    return ledger.balances(store.people(con), store.expenses(con), store.payments(con))


def add_payment(con, args):
    payer, payee = known(con, args.payer), known(con, args.payee)
    if payer == payee:
        raise SplitError("a payment needs two different people")
    cents = amount(args.amount)
    if cents == 0:
        raise SplitError("the amount must be more than 0")
    return [f"payment {store.add_payment(con, payer, payee, cents)}"]


def export_csv(con, path):
    with open(path, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(["kind", "id", "from", "to", "amount"])
        for e in store.expenses(con):
            for name in sorted(e["parts"]):
                out.writerow(["expense", e["id"], e["payer"], name, format_cents(e["parts"][name])])
        for p in store.payments(con):
            out.writerow(["payment", p["id"], p["from"], p["to"], format_cents(p["cents"])])
    return []


def run(con, args):
    cmd = (args.command, getattr(args, "action", None))
    if cmd == ("person", "add"):
        name = clean_name(args.name)
        if name in store.people(con):
            raise SplitError(f"{name!r} already exists")
        store.add_person(con, name)
        return []
    if cmd == ("person", "list"):
        return sorted(store.people(con))
    if cmd == ("expense", "add"):
        return add_expense(con, args)
    if cmd == ("expense", "list"):
        return [f"{e['id']}. {e['payer']} paid {format_cents(e['total'])} for {e['description']}: "
                + ", ".join(f"{n} {format_cents(e['parts'][n])}" for n in sorted(e["parts"]))
                for e in store.expenses(con)]
    if cmd[0] == "balances":
        bal = current_balances(con)
        return [f"{name} {format_cents(bal[name])}" for name in sorted(bal)]
    if cmd[0] == "settle":
        steps = settle.plan(current_balances(con))
        return [f"{d} pays {c} {format_cents(x)}" for d, c, x in steps] or ["all settled"]
    if cmd == ("payment", "add"):
        return add_payment(con, args)
    if cmd[0] == "export":
        return export_csv(con, args.csv)
    raise SplitError(f"unknown command {' '.join(c for c in cmd if c)}")


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        con = store.connect(args.db)
        try:
            lines = run(con, args)
        finally:
            con.close()
    except SplitError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0
