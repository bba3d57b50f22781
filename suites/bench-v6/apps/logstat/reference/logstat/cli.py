"""The command line: summary, status, top, latency, rate over one or more log files."""
from __future__ import annotations

import argparse
import sys
from decimal import Decimal

from logstat import LogstatError, report
from logstat.filters import load, range_time
from logstat.stats import DEFAULT_PERCENTILES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="logstat", description="Statistics over a web access log.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{summary,status,top,latency,rate}")
    helps = {"summary": "requests, malformed lines, bytes, mean response time",
             "status": "requests per status code", "top": "the most requested paths",
             "latency": "nearest-rank response-time percentiles", "rate": "requests per minute"}
    for name, text in helps.items():
        p = sub.add_parser(name, help=text)
        p.add_argument("files", nargs="+", metavar="FILE", help="log files, - for standard input")
        p.add_argument("--from", dest="start", metavar="T", help="only requests at or after T (YYYY-MM-DDTHH:MM:SS)")
        p.add_argument("--to", dest="stop", metavar="T", help="only requests before T")
        p.add_argument("--json", action="store_true", help="print JSON instead of text")
        if name == "top":
            p.add_argument("--n", default="5", metavar="N", help="how many paths (default 5)")
        if name == "latency":
            p.add_argument("--percentile", action="append", default=[], metavar="P", help="0 < P <= 100, repeatable")
    return parser


def positive_int(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise LogstatError(f"--n: expected a positive integer, got {value!r}")
    return int(value)


def percent(value: str) -> str:
    whole, dot, frac = value.partition(".")
    ok = whole.isascii() and whole.isdigit() and (not dot or (frac.isascii() and frac.isdigit()))
    if not ok or not 0 < Decimal(value) <= 100:
        raise LogstatError(f"--percentile: expected a number with 0 < P <= 100, got {value!r}")
    return value


def run(args: argparse.Namespace) -> str:
    n = positive_int(args.n) if args.command == "top" else 0
    wanted = [percent(p) for p in args.percentile] if args.command == "latency" else []
    log = load(args.files, range_time(args.start, "--from"), range_time(args.stop, "--to"))
    result = {"summary": lambda: report.summary(log), "status": lambda: report.status(log),
              "top": lambda: report.top(log, n), "rate": lambda: report.rate(log),
              "latency": lambda: report.latency(log, wanted or list(DEFAULT_PERCENTILES))}[args.command]()
    return report.render(result, args.json)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        sys.stdout.write(run(args))
    except LogstatError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0
