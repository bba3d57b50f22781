"""logstat's rows of the shared edge classes (issue #30): the prompt's example line verbatim on every command,
impossible dates (the century leap rule) on every command and rates over month and year ends, an unreadable
FILE and a bad --n, --from, --to or --percentile on every command that takes one, Unicode blanks where the
prompt says spaces and tabs, ``HTTP/`` and the month in
another case, nothing printed for an empty result, and ties cut by --n.

Unicode digits in STATUS, BYTES, MS or N are left out (the prompt says "digits" and "a positive integer",
not ASCII digits); so are --n forms such as ``03``, ``+3``, ``1.0`` or ``1e1`` (whether they write a positive
integer is open).
"""
from __future__ import annotations

from typing import Any

from edges import _step

LOG = "{dir}/access.log"
COMMANDS = ("summary", "status", "top", "latency", "rate")
EXAMPLE = '10.0.0.1 - - [01/Mar/2026:12:00:05 +0000] "GET /index.html?x=1 HTTP/1.1" 200 512 35'


def line(path: str = "/a", when: str = "01/Mar/2026:12:00:05", ms: int = 10, host: str = "10.0.0.1",
         user: str = "-") -> str:
    return f'{host} - {user} [{when} +0000] "GET {path} HTTP/1.1" 200 100 {ms}'


def _row(rid: str, req: list[str], edges: list[str], text: str | None, *steps: dict[str, Any]) -> dict[str, Any]:
    r: dict[str, Any] = {"id": f"edge-{rid}", "req": req, "edges": edges, "steps": list(steps)}
    if text is not None:
        r["files_in"] = {LOG: text}
    return r


def _ok(*argv: str, stdout: str | None = None, out: str = "exact") -> dict[str, Any]:
    return _step(list(argv), out, **({"stdout": stdout} if stdout is not None else {}))


def _err(*argv: str) -> dict[str, Any]:
    return _step(list(argv), "any", exit=1, err="error:")


def example() -> list[dict[str, Any]]:
    return [
        _row("example-line", ["L-REQUEST", "L-QUERY", "L-SUMMARY", "L-TOP", "L-PCT", "L-RATE"], ["example"],
             EXAMPLE + "\n",
             _ok("summary", LOG, stdout="requests: 1\nmalformed: 0\nbytes: 512\nmean_ms: 35.00\n"),
             _ok("status", LOG, stdout="200 1\n"), _ok("top", LOG, stdout="1 /index.html\n"),
             _ok("latency", LOG, stdout="p50: 35\np90: 35\np95: 35\np99: 35\nmax: 35\n"),
             _ok("rate", LOG, stdout="2026-03-01 12:00 1\n")),
        _row("example-mean", ["L-REQUEST", "L-MEAN"], ["example"],
             EXAMPLE + "\n" + EXAMPLE.replace(" 35", " 36") + "\n",
             _ok("summary", LOG, stdout="requests: 2\nmalformed: 0\nbytes: 1024\nmean_ms: 35.50\n"),
             _ok("top", LOG, stdout="2 /index.html\n")),
    ]


def calendar() -> list[dict[str, Any]]:
    century = "".join(line(f"/x{n}", f"{d}:12:00:00") + "\n" for n, d in enumerate(
        ["29/Feb/2100", "29/Feb/1900", "30/Feb/2028", "31/Jun/2026", "31/Sep/2026", "29/Feb/2027", "29/Feb/2000"]))
    year_end = "".join(line("/y", f"{t}") + "\n" for t in
                       ["01/Jan/2027:00:01:10", "31/Dec/2026:23:58:59", "31/Dec/2026:23:59:30", "32/Dec/2026:00:00:00"])
    feb_end = "".join(line("/f", t) + "\n" for t in ["01/Mar/2028:00:00:30", "29/Feb/2028:23:59:00"])
    feb_short = "".join(line("/f", t) + "\n" for t in ["28/Feb/2027:23:59:00", "01/Mar/2027:00:00:00"])
    return [
        _row("calendar-century-leap", ["L-TIME"], ["calendar"], century,
             *(_ok(c, LOG) for c in ("summary", "status", "latency")), _ok("top", LOG, "--n", "9", stdout="1 /x6\n")),
        _row("calendar-rate-century", ["L-TIME", "L-RATE"], ["calendar"],
             line("/x", "29/Feb/2100:12:00:00") + "\n" + line("/y", "01/Mar/2100:12:01:00") + "\n",
             _ok("rate", LOG, stdout="2100-03-01 12:01 1\n")),
        _row("calendar-rate-year-end", ["L-TIME", "L-RATE"], ["calendar"], year_end,
             _ok("rate", LOG, stdout="2026-12-31 23:58 1\n2026-12-31 23:59 1\n2027-01-01 00:00 0\n2027-01-01 00:01 1\n"),
             _ok("summary", LOG)),
        _row("calendar-rate-leap-day", ["L-TIME", "L-RATE"], ["calendar"], feb_end,
             _ok("rate", LOG, stdout="2028-02-29 23:59 1\n2028-03-01 00:00 1\n")),
        _row("calendar-rate-february-end", ["L-TIME", "L-RATE"], ["calendar"], feb_short,
             _ok("rate", LOG, stdout="2027-02-28 23:59 1\n2027-03-01 00:00 1\n")),
    ]


def error_reach() -> list[dict[str, Any]]:
    return [
        _row("reach-unreadable", ["L-ERR-FILE", "L-NO-TRACEBACK"], ["error_reach"], line() + "\n",
             *(_err(c, path) for c in COMMANDS for path in ("{dir}", "{dir}/nope.log")), _ok("summary", LOG)),
        _row("reach-bad-n", ["L-TOP-N", "L-NO-TRACEBACK"], ["error_reach", "number_form"], line() + "\n",
             *(_err("top", LOG, "--n", n) for n in ("x", "", "1.5", "2.5", "three")), _ok("top", LOG, "--n", "1")),
    ]


def blanks_and_breaks() -> list[dict[str, Any]]:
    """U+00A0, U+2003, U+3000 are not the spaces and tabs the prompt names.  (Whether \\f, \\x1c, \\x85 or U+2028
    inside a field end a line the prompt leaves open: ``str.splitlines()`` says so, and an app written from the
    prompt alone uses it; no row asks.)"""
    blanks = "".join(s + "\n" for s in [
        "\u3000", line("/b") + "\u2003", "\u00a0" + line("/c"), line("/d", host="10.0.0.1\u00a0x"),
        line("/e").replace(" 200 ", " 200\u00a0"), line("/f").replace('] "GET', ']\u3000"GET'), line("/a")])
    return [
        _row("unicode-blanks", ["L-TRIM", "L-SEPARATORS", "L-HOST"], ["unicode_space"], blanks,
             _ok("summary", LOG, stdout="requests: 3\nmalformed: 4\nbytes: 300\nmean_ms: 10.00\n"),
             _ok("top", LOG, stdout="1 /a\n1 /c\n1 /d\n")),
        _row("unicode-blanks-stdin", ["L-TRIM", "L-STDIN"], ["unicode_space"], None,
             _step(["summary", "-"], "exact", stdin=blanks,
                   stdout="requests: 3\nmalformed: 4\nbytes: 300\nmean_ms: 10.00\n")),
    ]


def case() -> list[dict[str, Any]]:
    """``HTTP/`` and the month are written in exactly this case."""
    lines = [line("/a"), line("/b").replace("HTTP/1.1", "http/1.1"), line("/c").replace("HTTP/1.1", "Http/1.1"),
             line("/d", "01/MAR/2026:12:00:05"), line("/e", "01/mAR/2026:12:00:05"), line("/f", "01/Mar/2026:12:00:06")]
    text = "".join(s + "\n" for s in lines)
    return [_row("case-protocol-and-month", ["L-REQUEST", "L-TIME"], ["case"], text,
                 _ok("summary", LOG, stdout="requests: 2\nmalformed: 4\nbytes: 200\nmean_ms: 10.00\n"),
                 _ok("top", LOG, stdout="1 /a\n1 /f\n"))]


def empty_and_ties() -> list[dict[str, Any]]:
    ties = "".join(line(p) + "\n" for p in ["/c", "/b", "/d", "/a", "/d", "/B"])
    return [
        _row("empty-status", ["L-STATUS-CMD"], ["empty_output"], "garbage\n",
             _ok("status", LOG, stdout=""), _step(["status", "-"], "exact", stdin="", stdout="")),
        _row("empty-top-rate", ["L-TOP", "L-RATE"], ["empty_output"], "garbage\n\n",
             _ok("top", LOG, stdout=""), _ok("rate", LOG, stdout=""), _ok("top", LOG, "--n", "1", stdout="")),
        _row("ties-cut-by-n", ["L-TOP"], ["ties"], ties,
             _ok("top", LOG, "--n", "1", stdout="2 /d\n"), _ok("top", LOG, "--n", "2", stdout="2 /d\n1 /B\n"),
             _ok("top", LOG, "--n", "3", stdout="2 /d\n1 /B\n1 /a\n"),
             _ok("top", LOG, stdout="2 /d\n1 /B\n1 /a\n1 /b\n1 /c\n")),
    ]


def hard() -> list[dict[str, Any]]:
    """A bad --from or --to on every command (an impossible date too, as bench-v3's range-bad-values has it);
    --percentile forms the prompt refuses."""
    bad_t = ["2026-03-01 12:00:00", "2026-03-01T12:00", "2026-02-30T00:00:00", "2026-13-01T00:00:00"]
    pct = ["+50", "5e1", ".5", "50.", " 50", "50 ", "1_0", "100.0001"]
    return [
        _row("reach-range", ["L-RANGE-BAD"], ["error_reach", "calendar"], line() + "\n",
             *(_err(c, LOG, opt, t) for c in COMMANDS for opt in ("--from", "--to") for t in bad_t),
             _ok("summary", LOG, "--from", "2026-03-01T12:00:05", "--to", "2026-03-01T12:00:06")),
        _row("range-leap-day", ["L-RANGE-BAD", "L-RANGE"], ["calendar"],
             line("/a", "29/Feb/2028:23:59:59") + "\n" + line("/b", "01/Mar/2028:00:00:00") + "\n",
             _ok("top", LOG, "--from", "2028-02-29T23:59:59", "--to", "2028-03-01T00:00:00", stdout="1 /a\n"),
             _ok("top", LOG, "--from", "2028-03-01T00:00:00", stdout="1 /b\n"),
             _err("top", LOG, "--from", "2027-02-29T00:00:00")),
        _row("percentile-forms", ["L-PCT-BAD"], ["number_form"], line() + "\n" + line(ms=20) + "\n",
             *(_err("latency", LOG, "--percentile", p) for p in pct),
             _ok("latency", LOG, "--percentile", "0.0001", "--percentile", "100", stdout="p0.0001: 10\np100: 20\nmax: 20\n")),
    ]


ROWS: dict[str, list[dict[str, Any]]] = {
    "logstat": [*example(), *calendar(), *error_reach(), *blanks_and_breaks(), *case(), *empty_and_ties()],
    "logstat-hard": hard(),
}
