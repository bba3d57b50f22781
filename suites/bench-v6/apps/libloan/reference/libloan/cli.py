"""The command line: argparse groups member, book, loan, fine, report and hold."""
import argparse
import sys

from libloan import catalog, fines, loans, members, reports, store
from libloan.errors import LibError
from libloan.values import cents, date, money


def parser():
    p = argparse.ArgumentParser(prog="python3 -m libloan", description="A library loans manager.")
    p.add_argument("--data", required=True, metavar="FILE", help="the JSON data file")
    groups = p.add_subparsers(dest="group", required=True, metavar="{member,book,loan,fine,report,hold}")

    g = groups.add_parser("member", help="add and list members").add_subparsers(dest="cmd", required=True)
    c = g.add_parser("add", help="add a member")
    c.add_argument("mid")
    c.add_argument("--name", required=True)
    g.add_parser("list", help="list members")

    g = groups.add_parser("book", help="add and list books").add_subparsers(dest="cmd", required=True)
    c = g.add_parser("add", help="add a book")
    c.add_argument("bid")
    c.add_argument("--title", required=True)
    c.add_argument("--price", required=True)
    c.add_argument("--copies", default="1")
    g.add_parser("list", help="list books")

    g = groups.add_parser("loan", help="lend, return, renew").add_subparsers(dest="cmd", required=True)
    for name, text in (("out", "lend a copy"), ("return", "return a copy"), ("renew", "renew a loan")):
        c = g.add_parser(name, help=text)
        c.add_argument("mid")
        c.add_argument("bid")
        c.add_argument("--on", required=True, metavar="DATE")

    g = groups.add_parser("fine", help="pay fines").add_subparsers(dest="cmd", required=True)
    c = g.add_parser("pay", help="pay off fines")
    c.add_argument("mid")
    c.add_argument("amount")

    g = groups.add_parser("report", help="overdue loans, fines").add_subparsers(dest="cmd", required=True)
    c = g.add_parser("overdue", help="open loans due before DATE")
    c.add_argument("--on", required=True, metavar="DATE")
    c.add_argument("--csv", metavar="FILE")
    g.add_parser("fines", help="what members owe")

    g = groups.add_parser("hold", help="hold queues").add_subparsers(dest="cmd", required=True)
    c = g.add_parser("place", help="join a book's hold queue")
    c.add_argument("mid")
    c.add_argument("bid")
    c = g.add_parser("list", help="a book's hold queue")
    c.add_argument("bid")
    return p


def run(args):
    """Carry out one command; returns (lines to print, whether the data changed)."""
    data = store.load(args.data)
    cmd = (args.group, args.cmd)
    if cmd == ("member", "add"):
        members.add(data, args.mid, args.name)
        return [], data
    if cmd == ("member", "list"):
        return members.listing(data), None
    if cmd == ("book", "add"):
        catalog.add(data, args.bid, args.title, args.price, args.copies)
        return [], data
    if cmd == ("book", "list"):
        return catalog.listing(data), None
    if cmd == ("loan", "out"):
        return [f"due {loans.lend(data, args.mid, args.bid, date(args.on)).isoformat()}"], data
    if cmd == ("loan", "return"):
        return [f"fine {money(loans.give_back(data, args.mid, args.bid, date(args.on)))}"], data
    if cmd == ("loan", "renew"):
        return [f"due {loans.renew(data, args.mid, args.bid, date(args.on)).isoformat()}"], data
    if cmd == ("fine", "pay"):
        return [f"owes {money(fines.pay(data, args.mid, cents(args.amount, 'amount')))}"], data
    if cmd == ("report", "overdue"):
        if args.csv:
            reports.overdue_csv(data, date(args.on), args.csv)
            return [], None
        return reports.overdue(data, date(args.on)), None
    if cmd == ("report", "fines"):
        return reports.fines(data), None
    if cmd == ("hold", "place"):
        return [f"position {loans.place_hold(data, args.mid, args.bid)}"], data
    if cmd == ("hold", "list"):
        return list(catalog.get(data, args.bid)["holds"]), None
    raise LibError(f"unknown command {' '.join(cmd)}")


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        lines, changed = run(args)
        if changed is not None:
            store.save(args.data, changed)
    except LibError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0
