"""Golden tables for txkvbench (seed 2026): statement scripts from the prompt's rules plus seeded
random transaction scripts, each on a fresh database; persistence rows run several ``exec`` calls.

Review built in: every random script is replayed on a tiny model written here from the prompt
(a stack of dict layers) and must print what the reference printed.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import answer, write

SEED = 2026


def ex(*scripts: str) -> list[dict]:
    return [{"argv": ["--db", "{db}", "exec", s]} for s in scripts]


FIXED = [  # (scripts run one after another on one database, requirement ids)
    (["SET x 1; BEGIN; SET x 2; GET x; ROLLBACK; GET x; COUNT"], ["T-ACCEPT", "T-ROLLBACK-INNER", "T-OUTPUT-LINES"]),
    (["SET x 1; BEGIN; SET x 2; BEGIN; SET x 3; ROLLBACK; GET x"], ["T-ACCEPT", "T-BEGIN-NEST", "T-ROLLBACK-INNER"]),
    (["SET a 1; GET a; GET b"], ["T-SET", "T-GET"]), (["GET nothing"], ["T-GET"]),
    (["SET a 1; SET a 2; GET a; COUNT"], ["T-SET", "T-COUNT"]), (["COUNT"], ["T-COUNT"]),
    (["SET a 1; SET b 2; DELETE a; GET a; COUNT"], ["T-DELETE", "T-COUNT"]), (["DELETE ghost; COUNT"], ["T-DELETE"]),
    (["SET a 1;; GET a;"], ["T-SPLIT"]), ([";;SET a 1 ;GET a ; "], ["T-SPLIT"]), (["SET a 1;GET a"], ["T-SPLIT"]),
    (["SET k hello-world; GET k"], ["T-SET", "T-GET"]),
    (["SET x 1; BEGIN; SET x 2; BEGIN; SET x 3; ROLLBACK; GET x; ROLLBACK; GET x"], ["T-ROLLBACK-INNER", "T-BEGIN-NEST"]),
    (["BEGIN; SET x 2; BEGIN; SET x 3; COMMIT; GET x; ROLLBACK; GET x"], ["T-COMMIT-MERGE"]),
    (["BEGIN; SET x 1; BEGIN; SET y 2; COMMIT; COMMIT; GET x; GET y"], ["T-COMMIT-MERGE", "T-COMMIT-OUTER-WRITES"]),
    (["BEGIN; BEGIN; BEGIN; SET d 3; COMMIT; COMMIT; GET d; ROLLBACK; GET d"], ["T-BEGIN-NEST", "T-COMMIT-MERGE"]),
    (["SET a 1; BEGIN; DELETE a; GET a; COUNT; ROLLBACK; GET a; COUNT"], ["T-ROLLBACK-INNER", "T-DELETE"]),
    (["BEGIN; SET a 1; COUNT; ROLLBACK; COUNT"], ["T-COUNT", "T-ROLLBACK-INNER"]),
    (["ROLLBACK; COMMIT; SET k v; GET k"], ["T-NO-TX"]), (["BEGIN; COMMIT; COMMIT"], ["T-NO-TX"]),
    (["BEGIN; ROLLBACK; ROLLBACK; GET z"], ["T-NO-TX"]),
    (["BEGIN; SET a 5; COMMIT; SET c 9; BEGIN; SET b 7", "GET a; GET b; GET c; COUNT"],
     ["T-PERSIST", "T-COMMIT-OUTER-WRITES", "T-DISCARD-OPEN", "T-AUTOCOMMIT"]),
    (["SET p 1", "GET p; SET p 2", "GET p; COUNT"], ["T-PERSIST", "T-AUTOCOMMIT"]),
    (["SET p 1; DELETE p", "GET p; COUNT"], ["T-PERSIST", "T-AUTOCOMMIT", "T-DELETE"]),
    (["BEGIN; SET q 1; BEGIN; SET r 2; COMMIT", "GET q; GET r; COUNT"], ["T-DISCARD-OPEN", "T-COMMIT-MERGE"]),
    (["SET s 1; BEGIN; DELETE s; COMMIT", "GET s; COUNT"], ["T-COMMIT-OUTER-WRITES", "T-PERSIST"]),
    (["SET u 1; BEGIN; SET u 2", "GET u"], ["T-DISCARD-OPEN", "T-AUTOCOMMIT"]),
    (["SET x 1; FROB y"], ["T-ERR-UNKNOWN"]), (["PUT a 1"], ["T-ERR-UNKNOWN"]), (["GET a; HELLO"], ["T-ERR-UNKNOWN"]),
    (["SET x"], ["T-ERR-ARGC"]), (["SET x 1 2"], ["T-ERR-ARGC"]), (["GET"], ["T-ERR-ARGC"]), (["GET a b"], ["T-ERR-ARGC"]),
    (["DELETE"], ["T-ERR-ARGC"]), (["DELETE a b"], ["T-ERR-ARGC"]), (["COUNT 1"], ["T-ERR-ARGC"]),
    (["BEGIN now"], ["T-ERR-ARGC"]), (["ROLLBACK all"], ["T-ERR-ARGC"]), (["COMMIT 1"], ["T-ERR-ARGC"]),
]

HARD = [
    (["INCR n; INCR n 5; KEYS"], ["T-ACCEPT-HARD", "T-INCR", "T-KEYS"]),
    (["SET b 1; SET a 2; SET c 3; KEYS"], ["T-KEYS"]), (["SET z 1; KEYS"], ["T-KEYS"]),
    (["SET b 1; SET a 2; BEGIN; SET c 3; DELETE a; KEYS; ROLLBACK; KEYS"], ["T-KEYS", "T-TX-WRITES"]),
    (["SET bb 1; SET b 1; SET a 1; KEYS"], ["T-KEYS"]),
    (["INCR c; INCR c; GET c"], ["T-INCR"]), (["SET c 10; INCR c -3; INCR c 0"], ["T-INCR"]),
    (["INCR n; INCR n 5; BEGIN; INCR n; ROLLBACK; GET n"], ["T-INCR", "T-TX-WRITES"]),
    (["BEGIN; INCR m 4; COMMIT; GET m"], ["T-INCR", "T-TX-WRITES"]),
    (["BEGIN; INCR t", "GET t; COUNT"], ["T-TX-WRITES", "T-INCR"]),
    (["SET d 1; SET e 2; BEGIN; DELETE d; KEYS; ROLLBACK; KEYS"], ["T-TX-WRITES", "T-KEYS"]),
    (["SET s abc; INCR s"], ["T-INCR-NONINT"]), (["SET s 1.5; INCR s"], ["T-INCR-NONINT"]), (["INCR n x"], ["T-INCR-NONINT"]),
    (["INCR"], ["T-ERR-ARGC"]), (["INCR a 1 2"], ["T-ERR-ARGC"]), (["KEYS a"], ["T-ERR-ARGC"]),
]


def model(script: str, db: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The prompt's semantics, restated: layers over the committed dict."""
    layers: list[dict[str, str | None]] = []
    out: list[str] = []

    def get(k: str) -> str | None:
        for layer in reversed(layers):
            if k in layer:
                return layer[k]
        return db.get(k)

    def write(k: str, v: str | None) -> None:
        if layers:
            layers[-1][k] = v
        elif v is None:
            db.pop(k, None)
        else:
            db[k] = v

    for stmt in (s.split() for s in script.split(";") if s.strip()):
        cmd, a = stmt[0], stmt[1:]
        if cmd == "SET":
            write(a[0], a[1])
        elif cmd == "GET":
            out.append(get(a[0]) or "NULL")
        elif cmd == "DELETE":
            write(a[0], None)
        elif cmd == "COUNT":
            keys = set(db) | {k for layer in layers for k in layer}
            out.append(str(sum(1 for k in keys if get(k) is not None)))
        elif cmd == "BEGIN":
            layers.append({})
        elif cmd == "ROLLBACK":
            if layers:
                layers.pop()
            else:
                out.append("NO TRANSACTION")
        elif cmd == "COMMIT":
            if not layers:
                out.append("NO TRANSACTION")
            else:
                top = layers.pop()
                for k, v in top.items():
                    write(k, v)
    return out, db


def random_script(rng: random.Random) -> str:
    keys, stmts, depth = "abc", [], 0
    for _ in range(rng.randint(4, 12)):
        r = rng.random()
        k = rng.choice(keys)
        if r < 0.3:
            stmts.append(f"SET {k} {rng.randint(0, 99)}")
        elif r < 0.45:
            stmts.append(f"GET {k}")
        elif r < 0.55:
            stmts.append(f"DELETE {k}")
        elif r < 0.62:
            stmts.append("COUNT")
        elif r < 0.77:
            stmts.append("BEGIN")
            depth += 1
        elif r < 0.88:
            stmts.append("ROLLBACK")
            depth = max(0, depth - 1)
        else:
            stmts.append("COMMIT")
            depth = max(0, depth - 1)
    stmts.append(f"GET {rng.choice(keys)}")
    return "; ".join(stmts)


def main() -> None:
    rng = random.Random(SEED)
    rows = [{"id": f"fix{i:02d}", "req": req, "steps": ex(*s)} for i, (s, req) in enumerate(FIXED)]
    randoms = []
    for n in range(30):
        first, second = random_script(rng), "GET a; GET b; GET c; COUNT"
        randoms.append((first, second))
        rows.append({"id": f"rnd{n:02d}", "req": ["T-BEGIN-NEST", "T-ROLLBACK-INNER", "T-COMMIT-MERGE", "T-PERSIST"],
                     "steps": ex(first, second)})
    table = answer("txkvbench", rows, "ERR")
    for row, (first, second) in zip(table[len(FIXED):], randoms):
        out1, db = model(first, {})
        out2, _ = model(second, db)
        got = [row["steps"][0]["stdout"].split("\n")[:-1], row["steps"][1]["stdout"].split("\n")[:-1]]
        assert got == [out1, out2], (first, got, out1, out2)
    write("txkvbench", table, SEED)
    hard = [{"id": f"hard{i:02d}", "req": req, "steps": ex(*s)} for i, (s, req) in enumerate(HARD)]
    write("txkvbench-hard", answer("txkvbench", hard, "ERR"), SEED)


if __name__ == "__main__":
    main()
