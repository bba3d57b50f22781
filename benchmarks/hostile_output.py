"""What does hostile swarm output cost the harness?  The RunReport search, before and after issue #20.

For each payload — unterminated nesting (``{"a":`` × 900, then an array that never closes), a run of
``{"`` openings, a run of ``{`` — at growing sizes, it times (process CPU) the parser of the first
isolation round (kept here verbatim as ``old_find``: ``raw_decode`` at every ``{``, restarting one
character later) against today's :func:`swarmgym.collect.report.find_json_object`, side by side in
one run, and prints the ratio.  The old parser is quadratic: it is only run up to ``--old-max-mb``.
Part 2 times ``read_traces`` over a sessions.db of N task sessions (one query for all of them).

    python benchmarks/hostile_output.py [--sizes 0.0625,0.125,0.25,1,8] [--old-max-mb 0.25] [--sessions 2000] [--json]
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

from swarmgym.collect.report import find_json_object, looks_like_report
from swarmgym.collect.traces import read_traces


def old_find(text: str):
    """The RunReport search as it was before issue #20 (swarmgym/collect/report.py)."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        data = json.loads(text)
        if isinstance(data, dict):
            return data
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    found, pos = None, 0
    while True:
        start = text.find("{", pos)
        if start < 0:
            return found
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            pos = start + 1
            continue
        if looks_like_report(obj):
            found = obj
        pos = end


def payload(kind: str, mb: float) -> str:
    n = int(mb * 1_000_000)
    if kind == "nesting":  # 900 objects deep, then an array that never closes: every "{" parses to the end
        head = '{"a":' * 900 + "["
        return head + "1," * max(0, (n - len(head)) // 2)
    if kind == "keys":
        return '{"' * (n // 2)
    return "{" * n


def cpu(fn, *args) -> tuple[float, str]:
    t = time.process_time()
    try:
        fn(*args)
        what = "ok"
    except RecursionError:
        what = "RecursionError"
    return time.process_time() - t, what


def traces_bench(sessions: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "sessions" / "sessions.db"
        db.parent.mkdir()
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content_json TEXT)")
        call = json.dumps([{"type": "toolRequest", "id": "c", "toolCall": {"value": {"name": "developer__shell"}}}])
        con.executemany("INSERT INTO messages (session_id, role, content_json) VALUES (?, 'assistant', ?)",
                        [(f"s{i}", call) for i in range(sessions) for _ in range(20)])
        con.commit()
        con.close()
        secs, _ = cpu(read_traces, db, [f"s{i}" for i in range(sessions)])
        return {"sessions": sessions, "rows": sessions * 20, "db_mb": round(db.stat().st_size / 1e6, 1),
                "cpu_s": round(secs, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="0.0625,0.125,0.25,1,8")
    ap.add_argument("--old-max-mb", type=float, default=0.25)
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = []
    for kind in ("nesting", "keys", "braces"):
        for mb in (float(x) for x in a.sizes.split(",")):
            text = payload(kind, mb)
            new, new_what = cpu(find_json_object, text)
            old, old_what = cpu(old_find, text) if mb <= a.old_max_mb else (None, "not run")
            rows.append({"payload": kind, "mb": mb, "old_cpu_s": None if old is None else round(old, 3),
                         "old": old_what, "new_cpu_s": round(new, 3), "new": new_what,
                         "ratio": round(old / new, 1) if old and new else None})
    out = {"parse": rows, "traces": traces_bench(a.sessions)}
    if a.json:
        print(json.dumps(out, indent=2))
        return
    t = Table(title="RunReport search on hostile stdout (process CPU seconds; machine shared: see docs)")
    for col in ("payload", "MB", "before #20", "after #20", "old / new"):
        t.add_column(col, justify="right")
    for r in rows:
        before = f"{r['old_cpu_s']:.3f} ({r['old']})" if r["old_cpu_s"] is not None else "not run (quadratic)"
        t.add_row(r["payload"], f"{r['mb']:g}", before, f"{r['new_cpu_s']:.3f}",
                  f"{r['ratio']:g}×" if r["ratio"] else "-")
    Console().print(t)
    tr = out["traces"]
    Console().print(f"read_traces: {tr['sessions']} task sessions, {tr['rows']} messages, {tr['db_mb']} MB: "
                    f"{tr['cpu_s']:.3f} s CPU (one query for all ids)")


if __name__ == "__main__":
    main()
