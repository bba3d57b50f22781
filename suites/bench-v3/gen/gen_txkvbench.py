"""Golden tables for txkvbench (bench-v3, seed 2026): bench-v2's statement scripts, merged and lean, a few
seeded random transaction scripts, and rows for every edge class a requirement declares
(suites/bench-v3/specs/txn.yaml); a row's steps run one after another on one fresh database ({db}).

Review built in: every step of every row is replayed on a model written here from the prompt (a stack
of change layers over a committed dict); its exit status must match, and on success so must every
printed line.

What a row may ask is what the prompt's words determine: "words separated by spaces" makes a run of
spaces one separator (a tab or a newline is left open: not asked), "empty statements ignored" makes an
empty or blank script print nothing and succeed, a value is the word as typed (``007`` stays ``007``,
quotes are plain characters), INCR adds integers (Python's, unbounded), and transactions nest to any
depth.  Left uncompared as in bench-v2: an empty KEYS line, natural vs lexicographic key order, stdout
before an error.

    python3 suites/bench-v3/gen/gen_txkvbench.py        # from the repository root
"""
from __future__ import annotations

import random
from pathlib import Path

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
REFERENCE = SUITE / "apps" / "txkvbench" / "reference"
SEED = 2026
BIG = 2**63 - 1  # the largest SQLite INTEGER: one more must still be an integer, not an overflow

FIXED = [  # (row id, requirement ids, edge classes, scripts run one after another on one database)
    ("accept", ["T-ACCEPT", "T-ROLLBACK-INNER", "T-BEGIN-NEST", "T-OUTPUT-LINES"], [],
     ["SET x 1; BEGIN; SET x 2; GET x; ROLLBACK; GET x; COUNT", "SET x 1; BEGIN; SET x 2; BEGIN; SET x 3; ROLLBACK; GET x"]),
    ("set-get", ["T-SET", "T-GET", "T-COUNT"], [],
     ["SET a 1; GET a; GET b; SET a 2; GET a; COUNT", "SET k hello-world; GET k; GET nothing"]),
    ("count-empty", ["T-COUNT", "T-GET"], [], ["COUNT; GET a"]),
    ("delete", ["T-DELETE", "T-COUNT"], [], ["SET a 1; SET b 2; DELETE a; GET a; COUNT; DELETE ghost; COUNT"]),
    ("split", ["T-SPLIT"], [], ["SET a 1;; GET a;", ";;SET b 2 ;GET b ; ", "SET c 3;GET c"]),
    ("split-empty", ["T-SPLIT"], ["empty"], ["", " ; ;  ", ";"]),
    ("split-spaces", ["T-SPLIT", "T-SET"], ["whitespace"], ["SET  a   1;   GET   a  ;COUNT", "  GET a"]),
    ("value-quotes", ["T-SET", "T-GET"], ["quote"], ["SET q it's; SET d \"x\"; GET q; GET d", "GET q"]),
    ("value-zeros", ["T-SET", "T-GET", "T-PERSIST"], ["zero"], ["SET z 007; SET y 0; SET w 1.50; GET z; GET y; GET w",
                                                                "GET z; GET w"]),
    ("rollback-nested", ["T-ROLLBACK-INNER", "T-BEGIN-NEST"], [],
     ["SET x 1; BEGIN; SET x 2; BEGIN; SET x 3; ROLLBACK; GET x; ROLLBACK; GET x"]),
    ("rollback-same-key", ["T-ROLLBACK-INNER"], ["duplicate"],
     ["SET a 1; BEGIN; SET a 2; SET a 3; DELETE a; SET a 4; ROLLBACK; GET a; BEGIN; SET b 1; SET b 2; ROLLBACK; GET b"]),
    ("rollback-delete", ["T-ROLLBACK-INNER", "T-DELETE"], [], ["SET a 1; BEGIN; DELETE a; GET a; COUNT; ROLLBACK; GET a; COUNT"]),
    ("commit-merge", ["T-COMMIT-MERGE"], [], ["BEGIN; SET x 2; BEGIN; SET x 3; COMMIT; GET x; ROLLBACK; GET x"]),
    ("commit-outer", ["T-COMMIT-MERGE", "T-COMMIT-OUTER-WRITES"], [],
     ["BEGIN; SET x 1; BEGIN; SET y 2; COMMIT; COMMIT; GET x; GET y"]),
    ("commit-deep", ["T-COMMIT-MERGE", "T-BEGIN-NEST"], ["nesting"],
     ["BEGIN; BEGIN; BEGIN; SET d 3; COMMIT; COMMIT; GET d; ROLLBACK; GET d",
      "BEGIN; BEGIN; BEGIN; SET d 3; COMMIT; ROLLBACK; GET d; COMMIT; GET d",
      "BEGIN; SET a 1; BEGIN; SET a 2; BEGIN; SET a 3; BEGIN; SET a 4; COMMIT; GET a; ROLLBACK; GET a; COMMIT; GET a; "
      "ROLLBACK; GET a"]),
    ("count-tx", ["T-COUNT"], ["duplicate"],
     ["BEGIN; SET a 1; COUNT; ROLLBACK; COUNT", "SET a 1; BEGIN; SET a 2; SET b 3; COUNT; BEGIN; SET a 4; COUNT"]),
    ("no-tx", ["T-NO-TX"], [], ["ROLLBACK; COMMIT; SET k v; GET k", "BEGIN; COMMIT; COMMIT", "BEGIN; ROLLBACK; ROLLBACK; GET z"]),
    ("persist-mixed", ["T-PERSIST", "T-COMMIT-OUTER-WRITES", "T-DISCARD-OPEN", "T-AUTOCOMMIT"], [],
     ["BEGIN; SET a 5; COMMIT; SET c 9; BEGIN; SET b 7", "GET a; GET b; GET c; COUNT"]),
    ("persist-auto", ["T-PERSIST", "T-AUTOCOMMIT", "T-DELETE"], [],
     ["SET p 1", "GET p; SET p 2", "GET p; COUNT; DELETE p", "GET p; COUNT"]),
    ("persist-discard", ["T-DISCARD-OPEN", "T-COMMIT-MERGE", "T-AUTOCOMMIT"], [],
     ["BEGIN; SET q 1; BEGIN; SET r 2; COMMIT", "GET q; GET r; COUNT", "SET u 1; BEGIN; SET u 2", "GET u"]),
    ("persist-delete", ["T-COMMIT-OUTER-WRITES", "T-PERSIST"], [], ["SET s 1; BEGIN; DELETE s; COMMIT", "GET s; COUNT"]),
    ("err-unknown", ["T-ERR-UNKNOWN", "T-ERR-FORMAT", "T-ERR-EXIT"], [], ["SET x 1; FROB y", "PUT a 1", "GET a; HELLO"]),
    ("err-missing-arg", ["T-ERR-ARGC", "T-NO-TRACEBACK", "T-ERR-FORMAT"], ["missing"], ["SET x", "GET", "DELETE", "SET"]),
    ("err-extra-arg", ["T-ERR-ARGC", "T-ERR-EXIT"], ["extra"],
     ["SET x 1 2", "GET a b", "DELETE a b", "COUNT 1", "BEGIN now", "ROLLBACK all", "COMMIT 1"]),
]

HARD = [
    ("accept-hard", ["T-ACCEPT-HARD", "T-INCR", "T-KEYS"], [], ["INCR n; INCR n 5; KEYS"]),
    ("keys-order", ["T-KEYS"], ["order"], ["SET b 1; SET a 2; SET c 3; KEYS", "SET bb 1; KEYS", "SET z 1; DELETE a; KEYS"]),
    ("keys-tx", ["T-KEYS", "T-TX-WRITES"], [],
     ["SET b 1; SET a 2; BEGIN; SET c 3; DELETE a; KEYS; ROLLBACK; KEYS", "SET d 1; BEGIN; DELETE d; KEYS; ROLLBACK; KEYS"]),
    ("incr", ["T-INCR"], [], ["INCR c; INCR c; GET c", "SET c 10; INCR c -3; INCR c 0"]),
    ("incr-negative", ["T-INCR"], ["negative"], ["SET x -5; INCR x; INCR x 10; GET x"]),
    ("incr-big", ["T-INCR", "T-NO-TRACEBACK"], ["big"], [f"SET n {BIG}; INCR n; INCR n 1000000000000", "GET n"]),
    ("incr-tx", ["T-TX-WRITES", "T-INCR"], [],
     ["INCR n; INCR n 5; BEGIN; INCR n; ROLLBACK; GET n", "BEGIN; INCR m 4; COMMIT; GET m", "BEGIN; INCR t",
      "GET t; COUNT"]),
    ("incr-nonint", ["T-INCR-NONINT"], [], ["SET s abc; INCR s", "SET s 1.5; INCR s", "INCR n x"]),
    ("err-argc-hard", ["T-ERR-ARGC"], ["missing", "extra"], ["INCR", "INCR a 1 2", "KEYS a"]),
]

ARITY = {"SET": (2, 2), "GET": (1, 1), "DELETE": (1, 1), "COUNT": (0, 0), "BEGIN": (0, 0), "ROLLBACK": (0, 0),
         "COMMIT": (0, 0), "KEYS": (0, 0), "INCR": (1, 2)}


def model(script: str, db: dict[str, str]) -> tuple[int, list[str]]:
    """The prompt's semantics, restated: (exit status, printed lines); ``db`` is the committed state."""
    layers: list[dict[str, str | None]] = []
    out: list[str] = []

    def get(k: str) -> str | None:
        for layer in reversed(layers):
            if k in layer:
                return layer[k]
        return db.get(k)

    def put(k: str, v: str | None) -> None:
        if layers:
            layers[-1][k] = v
        elif v is None:
            db.pop(k, None)
        else:
            db[k] = v

    def keys() -> list[str]:
        return sorted(k for k in set(db) | {k for layer in layers for k in layer} if get(k) is not None)

    for words in (s.split(" ") for s in script.split(";")):
        words = [w for w in words if w]
        if not words:
            continue
        cmd, a = words[0], words[1:]
        if cmd not in ARITY or not ARITY[cmd][0] <= len(a) <= ARITY[cmd][1]:
            return 1, out
        if cmd == "SET":
            put(a[0], a[1])
        elif cmd == "GET":
            out.append(get(a[0]) or "NULL")
        elif cmd == "DELETE":
            put(a[0], None)
        elif cmd == "COUNT":
            out.append(str(len(keys())))
        elif cmd == "KEYS":
            out.append(" ".join(keys()))
        elif cmd == "INCR":
            cur, by = get(a[0]) or "0", a[1] if len(a) > 1 else "1"
            if not all(x.lstrip("-").isdigit() for x in (cur, by)):
                return 1, out
            put(a[0], str(int(cur) + int(by)))
            out.append(get(a[0]) or "")
        elif cmd == "BEGIN":
            layers.append({})
        elif not layers:
            out.append("NO TRANSACTION")
        elif cmd == "ROLLBACK":
            layers.pop()
        else:
            for k, v in layers.pop().items():
                put(k, v)
    return 0, out


def steps_for(scripts: list[str]) -> list[dict]:
    db: dict[str, str] = {}
    steps = []
    for script in scripts:
        code, lines = model(script, db)
        argv = ["--db", "{db}", "exec", script]
        if code:
            steps.append(step(argv, expect_exit=1))
        else:
            steps.append(step(argv, expect_exit=0, expect=lambda out, w=lines: out.split("\n")[:-1] == w))
    return steps


def random_script(rng: random.Random) -> str:
    keys, stmts = "abc", []
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
        elif r < 0.88:
            stmts.append("ROLLBACK")
        else:
            stmts.append("COMMIT")
    stmts.append(f"GET {rng.choice(keys)}")
    return "; ".join(stmts)


def main() -> None:
    rng = random.Random(SEED)
    randoms = [(f"rnd{n}", ["T-BEGIN-NEST", "T-ROLLBACK-INNER", "T-COMMIT-MERGE", "T-PERSIST"], [],
                [random_script(rng), "GET a; GET b; GET c; COUNT"]) for n in range(8)]
    rows = [row(rid, req, edges, *steps_for(scripts)) for rid, req, edges, scripts in FIXED + randoms]
    write(SUITE, "txkvbench", answer(REFERENCE, "txkvbench", rows, err_prefix="ERR"), seed=SEED)
    hard = [row(rid, req, edges, *steps_for(scripts)) for rid, req, edges, scripts in HARD]
    write(SUITE, "txkvbench-hard", answer(REFERENCE, "txkvbench", hard, err_prefix="ERR"), seed=SEED)


if __name__ == "__main__":
    main()
