"""The SQLite database: the only module that runs SQL."""
import sqlite3

from splitpay.errors import SplitError

SCHEMA = """
CREATE TABLE IF NOT EXISTS people (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS expenses (id INTEGER PRIMARY KEY AUTOINCREMENT, payer TEXT NOT NULL,
                                     total INTEGER NOT NULL, description TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parts (expense INTEGER NOT NULL REFERENCES expenses(id), name TEXT NOT NULL,
                                  cents INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS payments (id INTEGER PRIMARY KEY AUTOINCREMENT, payer TEXT NOT NULL,
                                     payee TEXT NOT NULL, cents INTEGER NOT NULL);
"""


def connect(path):
    try:
        con = sqlite3.connect(path)
        con.executescript(SCHEMA)
    except sqlite3.Error as e:
        raise SplitError(f"cannot open database {path}: {e}") from None
    return con


def people(con):
    return [name for (name,) in con.execute("SELECT name FROM people")]


def add_person(con, name):
    with con:
        con.execute("INSERT INTO people (name) VALUES (?)", (name,))


def add_expense(con, payer, total, description, parts):
    """Store an expense and its parts in one transaction; returns its number."""
    with con:
        cur = con.execute("INSERT INTO expenses (payer, total, description) VALUES (?, ?, ?)",
                          (payer, total, description))
        con.executemany("INSERT INTO parts (expense, name, cents) VALUES (?, ?, ?)",
                        [(cur.lastrowid, name, cents) for name, cents in parts.items()])
    return cur.lastrowid


def expenses(con):
    rows = con.execute("SELECT id, payer, total, description FROM expenses ORDER BY id").fetchall()
    parts: dict = {}
    for eid, name, cents in con.execute("SELECT expense, name, cents FROM parts"):
        parts.setdefault(eid, {})[name] = cents
    return [{"id": eid, "payer": payer, "total": total, "description": desc, "parts": parts.get(eid, {})}
            for eid, payer, total, desc in rows]


def add_payment(con, payer, payee, cents):
    with con:
        cur = con.execute("INSERT INTO payments (payer, payee, cents) VALUES (?, ?, ?)", (payer, payee, cents))
    return cur.lastrowid


def payments(con):
    return [{"id": pid, "from": a, "to": b, "cents": c}
            for pid, a, b, c in con.execute("SELECT id, payer, payee, cents FROM payments ORDER BY id")]
