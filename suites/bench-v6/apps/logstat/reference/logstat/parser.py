"""One log line -> a Request, or the verdict that it is blank or malformed.

    HOST IDENT USER [DD/Mon/YYYY:HH:MM:SS ZONE] "METHOD PATH PROTOCOL" STATUS BYTES MS

A cursor walks the line: runs of spaces/tabs separate the fields; the time and the request have an
exact inner layout.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass

BLANKS = " \t"
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
BLANK = "blank"
MALFORMED = "malformed"


@dataclass(frozen=True)
class Request:
    time: datetime.datetime
    method: str
    path: str
    status: int
    size: int
    ms: int


def _digits(s: str, n: int | None = None) -> bool:
    return bool(s) and all("0" <= c <= "9" for c in s) and (n is None or len(s) == n)


class _Cursor:
    def __init__(self, text: str):
        self.text, self.i = text, 0

    def token(self) -> str:
        """The next run of non-blank characters ('' at the end)."""
        start = self.i
        while self.i < len(self.text) and self.text[self.i] not in BLANKS:
            self.i += 1
        return self.text[start:self.i]

    def blanks(self) -> bool:
        """Skip a run of spaces/tabs; False when there is none."""
        start = self.i
        while self.i < len(self.text) and self.text[self.i] in BLANKS:
            self.i += 1
        return self.i > start

    def rest(self) -> list[str]:
        """The remaining fields."""
        out = []
        while self.i < len(self.text):
            out.append(self.token())
            self.blanks()
        return out

    def until(self, opener: str, closer: str) -> str | None:
        """The text between ``opener`` here and the next ``closer``, or None."""
        if not self.text.startswith(opener, self.i):
            return None
        end = self.text.find(closer, self.i + 1)
        if end < 0:
            return None
        inner, self.i = self.text[self.i + 1:end], end + 1
        return inner


def parse_time(stamp: str) -> datetime.datetime | None:
    """``DD/Mon/YYYY:HH:MM:SS +hhmm`` -> the time as written (zone ignored), or None."""
    if len(stamp) != 26 or stamp[2] != "/" or stamp[6] != "/" or stamp[11] != ":" or stamp[14] != ":" \
            or stamp[17] != ":" or stamp[20] != " " or stamp[21] not in "+-" or not _digits(stamp[22:], 4):
        return None
    day, mon, year, hh, mm, ss = stamp[0:2], stamp[3:6], stamp[7:11], stamp[12:14], stamp[15:17], stamp[18:20]
    if mon not in MONTHS or not all(_digits(x) for x in (day, year, hh, mm, ss)):
        return None
    try:
        return datetime.datetime(int(year), MONTHS.index(mon) + 1, int(day), int(hh), int(mm), int(ss))
    except ValueError:  # 30/Feb, hour 24, ...
        return None


def parse_request(inner: str) -> tuple[str, str] | None:
    """``METHOD PATH PROTOCOL`` -> (method, path without query), or None."""
    parts = inner.split(" ")
    if len(parts) != 3:
        return None
    method, target, proto = parts
    if not method or not all("A" <= c <= "Z" for c in method) or not target.startswith("/") or "\t" in target:
        return None
    version = proto.removeprefix("HTTP/").split(".")
    if not proto.startswith("HTTP/") or len(version) != 2 or not all(_digits(v) for v in version):
        return None
    return method, target.split("?", 1)[0]


def parse_line(line: str) -> Request | str:
    """A Request, BLANK (skip it) or MALFORMED."""
    text = line.strip(" \t\r\n")
    if not text:
        return BLANK
    cur = _Cursor(text)
    for _ in range(3):  # HOST IDENT USER
        if not cur.token() or not cur.blanks():
            return MALFORMED
    stamp = cur.until("[", "]")
    time = parse_time(stamp) if stamp is not None else None
    if time is None or not cur.blanks():
        return MALFORMED
    inner = cur.until('"', '"')
    request = parse_request(inner) if inner is not None else None
    if request is None or not cur.blanks():
        return MALFORMED
    rest = cur.rest()
    if len(rest) != 3:
        return MALFORMED
    status, size, ms = rest
    if not _digits(status, 3) or not 100 <= int(status) <= 599:
        return MALFORMED
    if not (size == "-" or _digits(size)) or not _digits(ms):
        return MALFORMED
    return Request(time, request[0], request[1], int(status), 0 if size == "-" else int(size), int(ms))
