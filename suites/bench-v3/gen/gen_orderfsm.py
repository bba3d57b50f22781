"""Golden tables for orderfsm (spec fsm, seed 2026): lifecycle sequences on a fresh database each.

Every step is its own ``python3 -m orderfsm`` process, so persistence is exercised throughout.  Review
built in: each sequence is replayed on :class:`Model`, written here from the prompt alone (a dict of
orders with their event lists), and the reference's exit status and stdout must equal the model's for
every step.  Run from the repository root: ``python3 suites/bench-v3/gen/gen_orderfsm.py``.
"""
from __future__ import annotations

import re
import shlex
from datetime import datetime
from pathlib import Path

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
REF = SUITE / "apps" / "orderfsm" / "reference"
SEED = 2026
LIFE = {"pay": {"created": "paid"}, "ship": {"paid": "shipped", "partial": "shipped"},
        "deliver": {"shipped": "delivered"}, "cancel": {"created": "cancelled", "paid": "cancelled"},
        "refund": {"delivered": "refunded"}}
STATES = ["created", "paid", "partial", "shipped", "delivered", "cancelled", "refunded"]


class Model:
    """The prompt's order lifecycle: (exit, stdout) of one command line."""

    def __init__(self) -> None:
        self.orders: dict[str, dict] = {}

    @staticmethod
    def good_time(at: str) -> bool:
        if len(at) != 16 or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}", at):
            return False
        try:
            datetime(int(at[:4]), int(at[5:7]), int(at[8:10]), int(at[11:13]), int(at[14:16]))
        except ValueError:
            return False
        return True

    def run(self, argv: list[str]) -> tuple[int, str]:
        cmd, rest = argv[0], argv[1:]
        opt = {rest[i][2:]: rest[i + 1] for i in range(len(rest) - 1) if rest[i].startswith("--")}
        flags = {a for a in rest if a == "--json"}
        order = rest[0] if rest and not rest[0].startswith("--") else None
        o = self.orders.get(order) if order is not None else None
        if cmd == "create":
            assert order is not None
            items = int(opt.get("items", "1"))
            ok_id = re.fullmatch(r"[A-Za-z0-9_-]{1,20}", order) is not None
            if not ok_id or not self.good_time(opt["at"]) or items < 1 or o is not None:
                return 1, ""
            self.orders[order] = {"state": "created", "items": items, "shipped": 0,
                                  "events": [(opt["at"], "create", "created", 0)]}
            return 0, f"{order} created\n"
        if cmd in LIFE:
            if o is None or not self.good_time(opt["at"]) or opt["at"] < o["events"][-1][0]:
                return 1, ""
            new = LIFE[cmd].get(o["state"])
            shipped = o["shipped"]
            if new is None:
                return 1, ""
            if cmd == "ship":
                left = o["items"] - o["shipped"]
                k = int(opt.get("qty", left))
                if not 1 <= k <= left:
                    return 1, ""
                shipped += k
                new = "shipped" if shipped == o["items"] else "partial"
            o["state"], o["shipped"] = new, shipped
            o["events"].append((opt["at"], cmd, new, shipped))
            return 0, f"{order} {new}\n"
        if cmd == "undo":
            if o is None or len(o["events"]) < 2:
                return 1, ""
            o["events"].pop()
            o["state"], o["shipped"] = o["events"][-1][2], o["events"][-1][3]
            return 0, f"{order} {o['state']}\n"
        if cmd == "show":
            if o is None:
                return 1, ""
            if flags:
                return 0, f'{{"order": "{order}", "state": "{o["state"]}", "items": {o["items"]}, "shipped": {o["shipped"]}}}\n'
            return 0, f"{order} {o['state']}\n"
        if cmd == "history":
            return (1, "") if o is None else (0, "".join(f"{t} {c} {s}\n" for t, c, s, _ in o["events"]))
        if cmd == "list":
            state = opt.get("state")
            if state is not None and state not in STATES:
                return 1, ""
            return 0, "".join(f"{k} {v['state']}\n" for k, v in sorted(self.orders.items())
                              if state is None or v["state"] == state)
        if cmd == "report":
            return 0, "".join(f"{s} {sum(v['state'] == s for v in self.orders.values())}\n" for s in STATES)
        raise ValueError(f"model: unknown command {argv}")


def seq(row_id: str, req: list[str], edges: list[str], cmds: list[str | list[str]],
        usage: tuple[int, ...] = ()) -> dict:
    """A row of commands (shell words, or an argv list for odd characters), each checked against the model.

    Steps listed in ``usage`` are usage errors the prompt leaves the form of (argparse): not run on the model.
    """
    m, steps = Model(), []
    for n, c in enumerate(cmds):
        argv = shlex.split(c) if isinstance(c, str) else list(c)
        if n in usage:
            steps.append(step(argv[1:] if argv[0] == "NO-DB" else ["--db", "{db}", *argv], usage=True))
            continue
        code, out = m.run(argv)
        mode = "json" if "--json" in argv and code == 0 else "exact"
        expect = (lambda want: lambda got: got == want)(out) if mode == "exact" else None
        steps.append(step(["--db", "{db}", *argv], out=mode, expect_exit=code, expect=expect))
    return row(row_id, req, edges, *steps)


T = ["2026-03-01T09:00", "2026-03-01T10:00", "2026-03-02T08:00", "2026-03-02T09:00", "2026-03-05T12:30",
     "2026-03-09T17:45"]
ERR = ["F-ERR-FORMAT", "F-ERR-EXIT", "F-NO-TRACEBACK"]


def life(order: str, *cmds: str, start: int = 0) -> list[str]:
    """create ORDER then the given transitions, at increasing times."""
    return [f"create {order} --at {T[start]}"] + [f"{c} {order} --at {T[start + i + 1]}" for i, c in enumerate(cmds)]


NORMAL = [
    seq("accept", ["F-ACCEPT", "F-CREATE", "F-PAY", "F-SHIP", "F-SHOW", "F-HISTORY", "F-TRANSITION-OUT", *ERR], [],
        [*life("A1", "pay", "ship"), "show A1", f"cancel A1 --at {T[3]}", "history A1"]),
    seq("full-path", ["F-DELIVER", "F-REFUND", "F-HISTORY", "F-TRANSITION-OUT", "F-PERSIST"], [],
        [*life("R-7", "pay", "ship", "deliver", "refund"), "show R-7", "history R-7", "list"]),
    seq("deliver", ["F-DELIVER", "F-SHOW"], [], [*life("D1", "pay", "ship", "deliver"), "show D1"]),
    seq("cancel-created", ["F-CANCEL", "F-HISTORY"], [], [*life("C1", "cancel"), "show C1", "history C1"]),
    seq("cancel-paid", ["F-CANCEL"], ["boundary"], [*life("C2", "pay", "cancel"), "show C2", "history C2"]),
    seq("cancel-shipped", ["F-INVALID", "F-NOCHANGE", *ERR], ["boundary"],
        [*life("C3", "pay", "ship"), f"cancel C3 --at {T[4]}", "show C3", "history C3"]),
    seq("cancel-delivered", ["F-INVALID", "F-NOCHANGE"], ["boundary"],
        [*life("C4", "pay", "ship", "deliver"), f"cancel C4 --at {T[5]}", "show C4"]),
    seq("pay-twice", ["F-INVALID", "F-NOCHANGE", *ERR], ["duplicate"],
        [*life("P1", "pay"), f"pay P1 --at {T[2]}", "history P1", "show P1"]),
    seq("ship-twice", ["F-INVALID", "F-NOCHANGE"], ["duplicate"],
        [*life("P2", "pay", "ship"), f"ship P2 --at {T[3]}", "history P2"]),
    seq("ship-unpaid", ["F-INVALID", "F-NOCHANGE"], [], [*life("S1"), f"ship S1 --at {T[1]}", "show S1", "history S1"]),
    seq("deliver-paid", ["F-INVALID", "F-NOCHANGE"], [], [*life("S2", "pay"), f"deliver S2 --at {T[2]}", "show S2"]),
    seq("refund-shipped", ["F-INVALID", "F-NOCHANGE"], [],
        [*life("S3", "pay", "ship"), f"refund S3 --at {T[3]}", "show S3", "history S3"]),
    seq("from-cancelled", ["F-INVALID", "F-NOCHANGE"], [],
        [*life("X1", "cancel"), f"pay X1 --at {T[2]}", f"cancel X1 --at {T[2]}", f"ship X1 --at {T[2]}",
         "history X1"]),
    seq("from-refunded", ["F-INVALID", "F-NOCHANGE"], [],
        [*life("X2", "pay", "ship", "deliver", "refund"), f"refund X2 --at {T[5]}", f"deliver X2 --at {T[5]}",
         f"cancel X2 --at {T[5]}", "show X2"]),
    seq("unknown", ["F-UNKNOWN", *ERR], [],
        ["show NOPE", f"pay NOPE --at {T[0]}", "history NOPE", *life("A1"), "show a1", f"cancel B1 --at {T[1]}",
         "list"]),
    seq("list-empty", ["F-LIST"], ["empty"], ["list", "list --state paid"]),
    seq("list-order", ["F-LIST"], ["order"],
        [f"create {o} --at {T[0]}" for o in ("b1", "B1", "A9", "a1", "A10", "A_1", "A-1", "9z", "A1")]
        + [f"pay A9 --at {T[1]}", "list"]),
    seq("list-state", ["F-LIST-STATE"], [],
        [*life("K3", "pay"), *life("K1"), *life("K2", "pay", "ship"), *life("K0", "pay"), "list --state paid",
         "list --state created", "list --state shipped"]),
    seq("list-state-none", ["F-LIST-STATE"], ["empty"], [*life("K1", "pay"), "list --state refunded",
                                                         "list --state cancelled"]),
    seq("list-state-unknown", ["F-LIST-STATE-UNKNOWN", *ERR], [], [*life("K1"), "list --state lost",
                                                                    "list --state Created", "list --state paid"]),
    seq("id-20", ["F-CREATE"], ["boundary"], [f"create {'Z' * 20} --at {T[0]}", f"pay {'Z' * 20} --at {T[1]}",
                                              "list"]),
    seq("id-21", ["F-ID", *ERR], ["boundary"], [f"create {'Z' * 21} --at {T[0]}", "list"]),
    seq("id-empty", ["F-ID"], ["empty"], [["create", "", "--at", T[0]], "list"]),
    seq("id-space", ["F-ID"], ["whitespace"], [["create", "A 1", "--at", T[0]], ["create", "\tA1", "--at", T[0]],
                                               ["create", "A1 ", "--at", T[0]], "list"]),
    seq("id-unicode", ["F-ID"], ["unicode"], [["create", "É1", "--at", T[0]], ["create", "订单1", "--at", T[0]],
                                              ["create", "A٣", "--at", T[0]], "list"]),
    seq("id-quote", ["F-ID"], ["quote"], [["create", "a'b", "--at", T[0]], ["create", 'a"b', "--at", T[0]], "list"]),
    seq("id-punct", ["F-ID"], [], [["create", "A.1", "--at", T[0]], ["create", "A/1", "--at", T[0]], "list"]),
    seq("id-case", ["F-ID-CASE"], ["duplicate"], [*life("A1", "pay"), f"create a1 --at {T[0]}", "list", "show a1",
                                                  "history a1"]),
    seq("dup", ["F-DUP", "F-NOCHANGE", *ERR], ["duplicate"],
        [*life("A1", "pay"), f"create A1 --at {T[3]}", "show A1", "history A1"]),
    seq("time-calendar", ["F-TIME-FORMAT"], ["boundary"],
        ["create A1 --at 2026-02-29T10:00", "create A2 --at 2026-03-01T24:00", "create A3 --at 2026-04-31T10:00",
         "create A4 --at 2026-13-01T10:00", "create A5 --at 2028-02-29T23:59", "list"]),
    seq("time-space", ["F-TIME-FORMAT"], ["whitespace"],
        [["create", "A1", "--at", "2026-03-01 09:00"], ["create", "A2", "--at", " 2026-03-01T09:00"],
         ["create", "A3", "--at", "2026-03-01T09:00\t"], "list"]),
    seq("time-extra", ["F-TIME-FORMAT"], ["extra"],
        ["create A1 --at 2026-03-01T09:00:00", "create A2 --at 2026-03-01T09:00Z", "create A3 --at 20260301T0900",
         "list"]),
    seq("time-unpadded", ["F-TIME-FORMAT"], [],
        ["create A1 --at 2026-3-01T09:00", "create A2 --at 2026-03-01T9:00", "create A3 --at yesterday", "list"]),
    seq("time-bad-transition", ["F-TIME-FORMAT", "F-NOCHANGE"], [],
        [*life("A1"), "pay A1 --at 2026-03-01T25:00", "history A1"]),
    seq("at-missing", ["F-AT-REQUIRED"], ["missing"], ["create A1", *life("A2"), "pay A2", "history A2"],
        usage=(0, 2)),
    seq("db-missing", ["F-DB-OPT"], ["missing"], [["NO-DB", "create", "A1", "--at", T[0]], ["NO-DB", "list"]],
        usage=(0, 1)),
    seq("time-same-minute", ["F-TIME-ORDER"], ["boundary"],
        [f"create A1 --at {T[0]}", f"pay A1 --at {T[0]}", f"ship A1 --at {T[0]}", "history A1"]),
    seq("time-backwards", ["F-TIME-ORDER", "F-NOCHANGE"], ["order"],
        [*life("A1", "pay"), "ship A1 --at 2026-03-01T09:30", "ship A1 --at 2026-03-01T09:59", "history A1",
         f"ship A1 --at {T[1]}", "history A1"]),
    seq("time-backwards-year", ["F-TIME-ORDER"], ["order"],
        ["create A1 --at 2026-01-01T00:00", "pay A1 --at 2025-12-31T23:59", "show A1"]),
    seq("time-per-order", ["F-TIME-ORDER", "F-PERSIST"], ["order"],
        [*life("A1", "pay", "ship", "deliver"), f"create B1 --at {T[0]}", f"pay B1 --at {T[1]}", "list",
         "history B1"]),
]

HARD = [
    seq("accept-hard", ["F-ACCEPT-HARD", "F-PARTIAL", "F-UNDO", "F-SHOW-JSON", "F-REPORT"], [],
        [f"create A1 --at {T[0]} --items 3", f"pay A1 --at {T[1]}", f"ship A1 --at {T[2]} --qty 1",
         f"ship A1 --at {T[3]}", "undo A1", "show A1 --json", "report"]),
    seq("items-default", ["F-ITEMS", "F-SHOW-JSON"], ["missing"], [*life("A1"), "show A1 --json"]),
    seq("items-zero", ["F-ITEMS"], ["zero"], [f"create A1 --items 0 --at {T[0]}", "list"]),
    seq("items-negative", ["F-ITEMS"], ["negative"], [f"create A1 --items -2 --at {T[0]}", "list"]),
    seq("items-one-ship", ["F-ITEMS", "F-PARTIAL"], [], [f"create A1 --items 1 --at {T[0]}", f"pay A1 --at {T[1]}",
                                                        f"ship A1 --qty 1 --at {T[2]}", "show A1 --json"]),
    seq("items-bad", ["F-ITEMS"], [], [f"create A1 --items two --at {T[0]}", "list"], usage=(0,)),
    seq("qty-default", ["F-PARTIAL", "F-SHOW-JSON"], ["missing"],
        [f"create A1 --items 5 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty 2 --at {T[2]}", "show A1 --json",
         f"ship A1 --at {T[3]}", "show A1 --json", "history A1"]),
    seq("qty-exact", ["F-PARTIAL"], ["boundary"],
        [f"create A1 --items 4 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty 1 --at {T[2]}",
         f"ship A1 --qty 3 --at {T[3]}", "show A1 --json"]),
    seq("qty-over", ["F-QTY-RANGE"], ["boundary"],
        [f"create A1 --items 3 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty 2 --at {T[2]}",
         f"ship A1 --qty 2 --at {T[3]}", "show A1 --json", f"ship A1 --qty 4 --at {T[3]}", "history A1"]),
    seq("qty-over-first", ["F-QTY-RANGE"], ["boundary"],
        [f"create A1 --items 2 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty 3 --at {T[2]}", "show A1 --json"]),
    seq("qty-zero", ["F-QTY-RANGE"], ["zero"],
        [f"create A1 --items 2 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty 0 --at {T[2]}", "show A1 --json",
         "history A1"]),
    seq("qty-negative", ["F-QTY-RANGE"], ["negative"],
        [f"create A1 --items 2 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty -1 --at {T[2]}", "show A1 --json"]),
    seq("partial-rules", ["F-PARTIAL-RULES", "F-PARTIAL"], [],
        [f"create A1 --items 2 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty 1 --at {T[2]}",
         f"cancel A1 --at {T[3]}", f"deliver A1 --at {T[3]}", f"refund A1 --at {T[3]}", f"ship A1 --at {T[4]}",
         f"deliver A1 --at {T[5]}", "history A1"]),
    seq("report-empty", ["F-REPORT"], ["empty"], ["report"]),
    seq("report-mix", ["F-REPORT"], ["zero"],
        [*life("A1", "pay"), *life("A2", "pay", "ship", "deliver"), *life("A3", "cancel"), *life("A4", "pay"),
         f"create A5 --items 2 --at {T[0]}", f"pay A5 --at {T[1]}", f"ship A5 --qty 1 --at {T[2]}", "report"]),
    seq("undo-shipped-count", ["F-UNDO", "F-SHOW-JSON"], [],
        [f"create A1 --items 4 --at {T[0]}", f"pay A1 --at {T[1]}", f"ship A1 --qty 1 --at {T[2]}",
         f"ship A1 --qty 2 --at {T[3]}", "undo A1", "show A1 --json", "history A1", "undo A1", "show A1 --json"]),
    seq("undo-time", ["F-UNDO"], ["boundary"],
        [f"create A1 --at {T[0]}", f"pay A1 --at {T[4]}", "undo A1", f"pay A1 --at {T[1]}", "history A1"]),
    seq("undo-cancel-refund", ["F-UNDO"], [],
        [*life("A1", "cancel"), "undo A1", "show A1", f"pay A1 --at {T[2]}",
         *life("B1", "pay", "ship", "deliver", "refund"), "undo B1", "show B1", "history B1"]),
    seq("undo-create", ["F-UNDO-CREATE"], ["boundary"],
        [*life("A1", "pay"), "undo A1", "undo A1", "show A1", "history A1", "list"]),
    seq("undo-unknown", ["F-UNDO-CREATE", "F-UNDO"], [], ["undo NOPE", *life("A1"), "undo a1", "show A1"]),
]


def main() -> None:
    write(SUITE, "orderfsm", answer(REF, "orderfsm", NORMAL), seed=SEED, generator="gen/gen_orderfsm.py")
    write(SUITE, "orderfsm-hard", answer(REF, "orderfsm", HARD), seed=SEED, generator="gen/gen_orderfsm.py")


if __name__ == "__main__":
    main()
