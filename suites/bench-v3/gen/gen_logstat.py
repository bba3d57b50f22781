"""Golden tables for logstat (spec logs): every row answered by the reference, reviewed by hand.

Run from the repository root: ``python3 suites/bench-v3/gen/gen_logstat.py``.  Each row writes its log(s)
to ``{dir}/*.log`` (or feeds stdin) and runs commands over them.  The review is built in: every success
step carries the output written here from the prompt (the text, or the JSON value), every error step the
exit status the prompt asks for, so a reference bug can never become a golden value.  The shuffles use
``random.Random(2026)``; everything else is a chosen edge.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
REF = SUITE / "apps" / "logstat" / "reference"
SEED = 2026
LOG, LOG2 = "{dir}/access.log", "{dir}/more.log"


def line(path: str = "/a", status: Any = 200, size: Any = 100, ms: Any = 10, t: str = "01/Mar/2026:12:00:05",
         zone: str = "+0000", host: str = "10.0.0.1", method: str = "GET", proto: str = "HTTP/1.1", sep: str = " ",
         request: str | None = None) -> str:
    req = request if request is not None else f'"{method} {path} {proto}"'
    return sep.join([host, "-", "-", f"[{t} {zone}]", req, str(status), str(size), str(ms)])


def text(*lines: str, end: str = "\n") -> str:
    return end.join(lines) + end


def is_(want: str):
    return lambda out: out == want


def is_json(want: Any):
    return lambda out: json.loads(out) == want


def run(rid: str, req: list[str], edges: list[str], log: str, *cmds: tuple[list[str], Any]) -> dict:
    """A row over {dir}/access.log holding ``log``; each cmd is (argv after FILE, want) where want is the
    text, ("json", value), or an int exit status."""
    steps = []
    for argv, want in cmds:
        full = [argv[0], LOG, *argv[1:]]
        if isinstance(want, int):
            steps.append(step(full, expect_exit=want))
        elif isinstance(want, tuple):
            steps.append(step(full, out="json", expect=is_json(want[1])))
        else:
            steps.append(step(full, expect=is_(want)))
    return row(rid, req, edges, *steps, files_in={LOG: log})


def summary(requests: int, malformed: int, size: int, mean: str) -> str:
    return f"requests: {requests}\nmalformed: {malformed}\nbytes: {size}\nmean_ms: {mean}\n"


ACCEPT = text(line("/a", 200, 100, 10, "01/Mar/2026:12:00:01"), line("/b", 404, "-", 30, "01/Mar/2026:12:00:02"),
              line("/a?q=1", 200, 50, 20, "01/Mar/2026:12:00:03"), "garbage")
ERR = ["L-ERR-FORMAT", "L-ERR-EXIT", "L-NO-TRACEBACK"]
rng = random.Random(SEED)
ONE_TO_TEN = rng.sample(range(1, 11), 10)
ONE_TO_25 = rng.sample(range(1, 26), 25)

NORMAL = [
    # --- the acceptance log, every command
    run("accept-summary", ["L-ACCEPT", "L-SUMMARY", "L-BYTES-SUM", "L-MEAN", "L-MALFORMED", "L-BYTES"], [], ACCEPT,
        (["summary"], summary(3, 1, 150, "20.00"))),
    run("accept-top", ["L-ACCEPT", "L-TOP", "L-QUERY"], [], ACCEPT, (["top"], "2 /a\n1 /b\n")),
    run("accept-latency", ["L-ACCEPT", "L-PCT"], [], ACCEPT, (["latency"], "p50: 20\np90: 30\np95: 30\np99: 30\nmax: 30\n")),
    run("accept-status", ["L-STATUS-CMD"], [], ACCEPT, (["status"], "200 2\n404 1\n")),
    run("accept-rate", ["L-RATE"], [], ACCEPT, (["rate"], "2026-03-01 12:00 3\n")),
    # --- the line format
    run("separators-tabs-and-runs", ["L-SEPARATORS"], ["whitespace"],
        text(line("/a", sep="\t"), line("/b", sep="   "), line("/c", sep=" \t ")),
        (["summary"], summary(3, 0, 300, "10.00"))),
    run("trim-and-crlf", ["L-TRIM"], ["whitespace"],
        text("  " + line("/a") + " \t", "\t" + line("/b", ms=20), end="\r\n"),
        (["summary"], summary(2, 0, 200, "15.00")), (["top"], "1 /a\n1 /b\n")),
    run("blank-lines-skipped", ["L-TRIM"], ["empty"], text("", line("/a"), "   ", "\t", "", line("/b")),
        (["summary"], summary(2, 0, 200, "10.00"))),
    run("host-forms", ["L-HOST"], ["separator", "unicode"],
        text(line(host="::1"), line(host="hôte.example"), line(host="2001:db8::7")),
        (["summary"], summary(3, 0, 300, "10.00"))),
    run("time-real-dates-only", ["L-TIME"], ["boundary"],
        text(line("/leap", t="29/Feb/2024:23:59:59"), line("/x1", t="29/Feb/2026:12:00:00"),
             line("/x2", t="31/Apr/2026:12:00:00"), line("/x3", t="01/Mar/2026:24:00:00"),
             line("/x4", t="01/mar/2026:12:00:00"), line("/x5", t="1/Mar/2026:12:00:00"),
             line("/x6", t="01/Mar/2026:12:60:00"), line("/x7", zone="0000"), line("/x8", t="01/Mar/26:12:00:00"),
             line("/midnight", t="01/Mar/2026:00:00:00")),
        (["summary"], summary(2, 8, 200, "10.00")), (["top", "--n", "20"], "1 /leap\n1 /midnight\n")),
    run("zone-ignored", ["L-ZONE"], ["negative"],
        text(line(t="01/Mar/2026:12:00:30", zone="-0700"), line(t="01/Mar/2026:12:01:40", zone="+0230")),
        (["rate"], "2026-03-01 12:00 1\n2026-03-01 12:01 1\n")),
    run("request-unclosed-quote", ["L-REQUEST"], ["quote"],
        text(line(request='"GET /a HTTP/1.1'), line(request='GET /a HTTP/1.1"'), line(request='"GET /a HTTP/1.1""'),
             line("/ok")),
        (["summary"], summary(1, 3, 100, "10.00"))),
    run("request-shape", ["L-REQUEST"], ["boundary"],
        text(line(method="get"), line(path="a"), line(proto="HTTP/2"), line(request='"GET  /a HTTP/1.1"'),
             line(request='"GET /a"'), line(method="DELETE", proto="HTTP/2.0"), line(method="PATCH", path="/")),
        (["summary"], summary(2, 5, 200, "10.00"))),
    run("query-dropped", ["L-QUERY"], ["separator"],
        text(line("/a?x=1"), line("/a?"), line("/a?x=1?y=2"), line("/b?next=/a")), (["top"], "3 /a\n1 /b\n")),
    run("status-range", ["L-STATUS"], ["boundary"],
        text(line(status=100), line(status=599), line(status="099"), line(status=600), line(status="20x"),
             line(status=2000)),
        (["status"], "100 1\n599 1\n"), (["summary"], summary(2, 4, 200, "10.00"))),
    run("bytes-dash-and-zero", ["L-BYTES"], ["zero"], text(line(size="-"), line(size=0), line(size=7)),
        (["summary"], summary(3, 0, 7, "10.00"))),
    run("bytes-negative", ["L-BYTES"], ["negative"], text(line(size=-5), line(size=5)),
        (["summary"], summary(1, 1, 5, "10.00"))),
    run("ms-zero", ["L-MS", "L-MEAN"], ["zero"], text(line(ms=0), line(ms=0)),
        (["summary"], summary(2, 0, 200, "0.00")), (["latency"], "p50: 0\np90: 0\np95: 0\np99: 0\nmax: 0\n")),
    run("ms-not-whole", ["L-MS"], ["boundary"], text(line(ms="3.5"), line(ms="-4"), line(ms=4)),
        (["summary"], summary(1, 2, 100, "4.00"))),
    run("field-extra-or-missing", ["L-MALFORMED"], ["extra"],
        text(line() + " extra", " ".join(line().split(" ")[:-1]), line()),
        (["summary"], summary(1, 2, 100, "10.00"))),
    # --- summary
    run("summary-no-requests", ["L-SUMMARY", "L-MEAN"], ["empty"], text("garbage", "", "more garbage"),
        (["summary"], summary(0, 2, 0, "-"))),
    run("summary-empty-file", ["L-SUMMARY"], ["empty"], "", (["summary"], summary(0, 0, 0, "-"))),
    run("bytes-past-a-trillion", ["L-BYTES-SUM"], ["big"], text(line(size=999999999999), line(size=1000000000001)),
        (["summary"], summary(2, 0, 2000000000000, "10.00"))),
    run("mean-half-up", ["L-MEAN"], ["rounding"], text(*[line(ms=m) for m in (1, 0, 0, 0, 0, 0, 0, 0)]),
        (["summary"], summary(8, 0, 800, "0.13"))),
    run("mean-half-up-odd", ["L-MEAN"], ["rounding"], text(*[line(ms=m) for m in (5, 0, 0, 0, 0, 0, 0, 0)]),
        (["summary"], summary(8, 0, 800, "0.63"))),
    run("mean-two-decimals", ["L-MEAN"], [], text(line(ms=1), line(ms=2), line(ms=2)),
        (["summary"], summary(3, 0, 300, "1.67"))),
    # --- status, top
    run("status-sorted", ["L-STATUS-CMD"], ["order"],
        text(line(status=500), line(status=200), line(status=404), line(status=200), line(status=301)),
        (["status"], "200 2\n301 1\n404 1\n500 1\n")),
    run("status-no-requests", ["L-STATUS-CMD"], ["empty"], text("garbage"), (["status"], "")),
    run("top-ties-by-path", ["L-TOP"], ["order"],
        text(line("/c"), line("/z"), line("/b"), line("/z"), line("/a")), (["top"], "2 /z\n1 /a\n1 /b\n1 /c\n")),
    run("top-ties-code-points", ["L-TOP"], ["unicode"],
        text(line("/é"), line("/z"), line("/Z"), line("/a"), line("/é"), line("/z"), line("/Z"), line("/a")),
        (["top"], "2 /Z\n2 /a\n2 /z\n2 /é\n")),
    run("top-counts-repeats", ["L-TOP"], ["duplicate"],
        text(*[line("/x")] * 3, line("/y?p=1"), line("/y?p=2"), line("/y"), line("/y"), line("/w")),
        (["top"], "4 /y\n3 /x\n1 /w\n")),
    run("top-default-five", ["L-TOP-N"], ["missing"], text(*[line(f"/p{i}") for i in range(7)]),
        (["top"], "".join(f"1 /p{i}\n" for i in range(5))), (["top", "--n", "2"], "1 /p0\n1 /p1\n")),
    run("top-n-fewer-paths", ["L-TOP", "L-TOP-N"], [], text(line("/a"), line("/b")), (["top", "--n", "9"], "1 /a\n1 /b\n")),
    run("top-n-zero", ["L-TOP-N", *ERR], ["zero"], text(line()), (["top", "--n", "0"], 1)),
    run("top-n-negative", ["L-TOP-N"], ["negative"], text(line()), (["top", "--n", "-1"], 1)),
    # --- latency
    run("latency-nearest-rank-10", ["L-PCT"], ["boundary", "order"], text(*[line(ms=m) for m in ONE_TO_TEN]),
        (["latency"], "p50: 5\np90: 9\np95: 10\np99: 10\nmax: 10\n")),
    run("latency-nearest-rank-25", ["L-PCT"], ["boundary", "order"], text(*[line(ms=m) for m in ONE_TO_25]),
        (["latency"], "p50: 13\np90: 23\np95: 24\np99: 25\nmax: 25\n")),
    run("latency-one-request", ["L-PCT"], [], text(line(ms=42)), (["latency"], "p50: 42\np90: 42\np95: 42\np99: 42\nmax: 42\n")),
    run("latency-no-requests", ["L-PCT-EMPTY"], ["empty"], text("garbage", ""), (["latency"], "no requests\n")),
    # --- rate
    run("rate-gaps-are-zero", ["L-RATE"], ["zero"], text(line(t="01/Mar/2026:12:00:10"), line(t="01/Mar/2026:12:03:59")),
        (["rate"], "2026-03-01 12:00 1\n2026-03-01 12:01 0\n2026-03-01 12:02 0\n2026-03-01 12:03 1\n")),
    run("rate-out-of-order-over-midnight", ["L-RATE"], ["order"],
        text(line(t="28/Feb/2026:23:59:30"), line(t="01/Mar/2026:00:00:00"), line(t="28/Feb/2026:23:58:00")),
        (["rate"], "2026-02-28 23:58 1\n2026-02-28 23:59 1\n2026-03-01 00:00 1\n")),
    run("rate-minute-boundary", ["L-RATE"], ["boundary"],
        text(line(t="01/Mar/2026:12:00:59"), line(t="01/Mar/2026:12:01:00"), line(t="01/Mar/2026:12:00:00")),
        (["rate"], "2026-03-01 12:00 2\n2026-03-01 12:01 1\n")),
    run("rate-no-requests", ["L-RATE"], ["empty"], "", (["rate"], "")),
    # --- input, errors, usage
    row("stdin-dash", ["L-STDIN"], ["unicode"],
        step(["top", "-"], stdin=text(line("/café"), line("/café?x=ü"), line("/b")), expect=is_("2 /café\n1 /b\n"))),
    row("missing-file", ["L-ERR-FILE", *ERR], [], step(["summary", "{dir}/nope.log"], expect_exit=1)),
    row("usage-missing-file", ["L-USAGE"], ["missing"], step(["summary"], usage=True), step(["top"], usage=True)),
    row("usage-unknown-option", ["L-USAGE"], ["extra"], step(["summary", LOG, "--verbose"], usage=True),
        files_in={LOG: text(line())}),
]

HARD_LOG2 = text(line("/c", 500, 10, 40, "01/Mar/2026:12:02:00"), "bad line")
RANGE_LOG = text(line("/early", t="01/Mar/2026:12:00:29"), line("/from", t="01/Mar/2026:12:00:30"),
                 line("/inside", t="01/Mar/2026:12:00:59"), line("/to", t="01/Mar/2026:12:01:00"), "garbage")


def hard_run(rid: str, req: list[str], edges: list[str], files: dict[str, str], *cmds: tuple[list[str], Any]) -> dict:
    steps = []
    for argv, want in cmds:
        if isinstance(want, int):
            steps.append(step(argv, expect_exit=want))
        elif want == "usage":
            steps.append(step(argv, usage=True))
        elif isinstance(want, tuple):
            steps.append(step(argv, out="json", expect=is_json(want[1])))
        else:
            steps.append(step(argv, expect=is_(want)))
    return row(rid, req, edges, *steps, files_in=files)


HARD = [
    hard_run("accept-hard", ["L-ACCEPT-HARD", "L-JSON-SUMMARY", "L-RANGE"], [], {LOG: ACCEPT},
             (["summary", LOG, "--json"], ("json", {"requests": 3, "malformed": 1, "bytes": 150, "mean_ms": 20.0})),
             (["summary", LOG, "--to", "2026-03-01T12:00:00"], summary(0, 1, 0, "-"))),
    hard_run("multi-file", ["L-MULTI"], [], {LOG: ACCEPT, LOG2: HARD_LOG2},
             (["summary", LOG, LOG2], summary(4, 2, 160, "25.00")),
             (["rate", LOG2, LOG], "2026-03-01 12:00 3\n2026-03-01 12:01 0\n2026-03-01 12:02 1\n")),
    hard_run("multi-file-twice", ["L-MULTI"], ["duplicate"], {LOG: ACCEPT},
             (["summary", LOG, LOG], summary(6, 2, 300, "20.00")), (["top", LOG, LOG], "4 /a\n2 /b\n")),
    row("multi-file-and-stdin", ["L-MULTI", "L-STDIN"], [],
        step(["status", LOG, "-"], stdin=HARD_LOG2, expect=is_("200 2\n404 1\n500 1\n")), files_in={LOG: ACCEPT}),
    hard_run("multi-file-unreadable", ["L-MULTI", "L-ERR-FILE"], [], {LOG: ACCEPT},
             (["summary", LOG, "{dir}/nope.log"], 1)),
    hard_run("range-bounds", ["L-RANGE"], ["boundary"], {LOG: RANGE_LOG},
             (["top", LOG, "--from", "2026-03-01T12:00:30", "--to", "2026-03-01T12:01:00"], "1 /from\n1 /inside\n"),
             (["summary", LOG, "--from", "2026-03-01T12:00:30", "--to", "2026-03-01T12:01:00"], summary(2, 1, 200, "10.00"))),
    hard_run("range-one-side", ["L-RANGE"], [], {LOG: RANGE_LOG},
             (["top", LOG, "--from", "2026-03-01T12:00:59"], "1 /inside\n1 /to\n"),
             (["top", LOG, "--to", "2026-03-01T12:00:30"], "1 /early\n"),
             (["rate", LOG, "--from", "2026-03-01T12:00:59"], "2026-03-01 12:00 1\n2026-03-01 12:01 1\n")),
    hard_run("range-bad-forms", ["L-RANGE-BAD", *ERR], ["whitespace"], {LOG: RANGE_LOG},
             (["summary", LOG, "--from", "2026-03-01 12:00:00"], 1), (["summary", LOG, "--to", " 2026-03-01T12:00:00"], 1)),
    hard_run("range-bad-values", ["L-RANGE-BAD"], ["boundary"], {LOG: RANGE_LOG},
             (["summary", LOG, "--from", "2026-03-01T12:00"], 1), (["summary", LOG, "--to", "2026-02-30T00:00:00"], 1),
             (["summary", LOG, "--from", "2026-3-1T12:00:00"], 1), (["summary", LOG, "--to", "2026-03-01T24:00:00"], 1)),
    hard_run("json-summary-empty", ["L-JSON-SUMMARY"], ["empty"], {LOG: "garbage\n"},
             (["summary", LOG, "--json"], ("json", {"requests": 0, "malformed": 1, "bytes": 0, "mean_ms": None}))),
    hard_run("json-summary-rounded", ["L-JSON-SUMMARY"], [], {LOG: text(line(ms=1), line(ms=2), line(ms=2))},
             (["summary", LOG, "--json"], ("json", {"requests": 3, "malformed": 0, "bytes": 300, "mean_ms": 1.67}))),
    hard_run("json-lists", ["L-JSON-LISTS"], [], {LOG: ACCEPT},
             (["status", LOG, "--json"], ("json", [{"status": 200, "count": 2}, {"status": 404, "count": 1}])),
             (["top", LOG, "--json"], ("json", [{"path": "/a", "count": 2}, {"path": "/b", "count": 1}])),
             (["rate", LOG, "--json"], ("json", [{"minute": "2026-03-01 12:00", "count": 3}]))),
    hard_run("json-lists-empty", ["L-JSON-LISTS"], ["empty"], {LOG: "garbage\n"},
             (["status", LOG, "--json"], ("json", [])), (["top", LOG, "--json"], ("json", [])),
             (["rate", LOG, "--json"], ("json", []))),
    hard_run("json-latency", ["L-JSON-LATENCY"], [], {LOG: ACCEPT},
             (["latency", LOG, "--json"], ("json", {"p50": 20, "p90": 30, "p95": 30, "p99": 30, "max": 30})),
             (["latency", LOG, "--json", "--percentile", "10"], ("json", {"p10": 10, "max": 30}))),
    hard_run("json-latency-empty", ["L-JSON-LATENCY"], ["empty"], {LOG: ""}, (["latency", LOG, "--json"], ("json", {}))),
    hard_run("percentile-exact-rank", ["L-PCT-OPT"], ["rounding"], {LOG: text(*[line(ms=m) for m in ONE_TO_25])},
             (["latency", LOG, "--percentile", "28"], "p28: 7\nmax: 25\n"),
             (["latency", LOG, "--percentile", "99.9", "--percentile", "0.1"], "p99.9: 25\np0.1: 1\nmax: 25\n")),
    hard_run("percentile-order-as-given", ["L-PCT-OPT"], ["order"], {LOG: text(*[line(ms=m) for m in ONE_TO_TEN])},
             (["latency", LOG, "--percentile", "90", "--percentile", "50", "--percentile", "12.5"],
              "p90: 9\np50: 5\np12.5: 2\nmax: 10\n")),
    hard_run("percentile-hundred", ["L-PCT-OPT", "L-PCT-BAD"], ["boundary"], {LOG: text(*[line(ms=m) for m in ONE_TO_TEN])},
             (["latency", LOG, "--percentile", "100"], "p100: 10\nmax: 10\n"),
             (["latency", LOG, "--percentile", "100.5"], 1)),
    hard_run("percentile-zero", ["L-PCT-BAD", *ERR], ["zero"], {LOG: text(line())},
             (["latency", LOG, "--percentile", "0"], 1), (["latency", LOG, "--percentile", "0.0"], 1),
             (["latency", LOG, "--percentile", "abc"], "usage")),
]


def main() -> None:
    which = sys.argv[1:] or ["normal", "hard"]
    if "normal" in which:
        write(SUITE, "logstat", answer(REF, "logstat", NORMAL), seed=SEED)
    if "hard" in which:
        write(SUITE, "logstat-hard", answer(REF, "logstat", HARD), seed=SEED)


if __name__ == "__main__":
    main()
