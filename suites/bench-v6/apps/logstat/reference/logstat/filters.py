"""Reading several files as one log, and the --from / --to time range."""
from __future__ import annotations

import datetime
import sys
from dataclasses import dataclass, field

from logstat import LogstatError
from logstat.parser import MALFORMED, Request, parse_line

RANGE_FORMAT = "%Y-%m-%dT%H:%M:%S"
SHAPE = "dddd-dd-ddTdd:dd:dd"  # d: an ASCII digit; every other character literally


@dataclass
class Log:
    requests: list[Request] = field(default_factory=list)
    malformed: int = 0


def range_time(value: str | None, option: str) -> datetime.datetime | None:
    """``YYYY-MM-DDTHH:MM:SS`` exactly (two digits each, no blanks), or an error naming the option."""
    if value is None:
        return None
    if len(value) != len(SHAPE) or not all(("0" <= c <= "9") if s == "d" else c == s for c, s in zip(value, SHAPE)):
        raise LogstatError(f"{option}: expected YYYY-MM-DDTHH:MM:SS, got {value!r}")
    try:
        return datetime.datetime.strptime(value, RANGE_FORMAT)
    except ValueError:
        raise LogstatError(f"{option}: not a real time: {value!r}") from None


def read_texts(paths: list[str]) -> list[str]:
    """Every file's text, in order (all read before anything is counted)."""
    texts = []
    for path in paths:
        if path == "-":
            texts.append(sys.stdin.read())
            continue
        try:
            with open(path, encoding="utf-8") as f:
                texts.append(f.read())
        except OSError as e:
            raise LogstatError(f"cannot read {path}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise LogstatError(f"{path}: not UTF-8") from None
    return texts


def load(paths: list[str], start: datetime.datetime | None = None, stop: datetime.datetime | None = None) -> Log:
    """Parse every line; keep the requests with start <= time < stop; count every malformed line."""
    log = Log()
    for text in read_texts(paths):
        for line in text.split("\n"):
            got = parse_line(line)
            if got == MALFORMED:
                log.malformed += 1
            elif isinstance(got, Request) and (start is None or got.time >= start) and (stop is None or got.time < stop):
                log.requests.append(got)
    return log

