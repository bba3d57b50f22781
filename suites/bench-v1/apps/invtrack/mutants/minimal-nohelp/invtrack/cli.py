"""Command line for invtrack."""
import sys

from invtrack.store import Store, StoreError


def opt(args, name, default=None):
    return args[args.index(name) + 1] if name in args else default


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    db = opt(args, "--db", "invtrack.db")
    if "--db" in args:
        i = args.index("--db")
        del args[i:i + 2]
    if len(args) < 2:
        print("unknown command " + " ".join(args))
        return 2
    store = Store(db)
    group, cmd, rest = args[0], args[1], args[2:]
    try:
        if (group, cmd) == ("item", "add"):
            store.add(rest[0], opt(rest, "--name"), int(opt(rest, "--qty")), float(opt(rest, "--price")))
        elif (group, cmd) == ("item", "list"):
            for i in store.list():
                print(i.sku, i.name, i.qty, i.price)
        elif (group, cmd) == ("item", "update"):
            q, p = opt(rest, "--qty"), opt(rest, "--price")
            store.update(rest[0], opt(rest, "--name"), None if q is None else int(q),
                         None if p is None else float(p))
        elif (group, cmd) == ("item", "remove"):
            store.conn.execute("DELETE FROM items WHERE sku = ?", (rest[0],))
            store.conn.commit()
        elif group == "stock":
            store.move(rest[0], int(rest[1]) if cmd == "in" else -int(rest[1]))
        elif (group, cmd) == ("report", "value"):
            print(f"Total value: {store.total_value():.2f}")
        else:
            print("unknown command " + " ".join(args))
            return 2
    except StoreError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0
