"""Reading CSV text into records and writing records as CSV text (RFC 4180, minimal quoting)."""
from __future__ import annotations

from tabconv import TabconvError

START, UNQUOTED, QUOTED, AFTER_QUOTE = range(4)


def read_records(text: str, delimiter: str = ",") -> list[tuple[int, list[str]]]:
    """Split ``text`` into records (lists of fields), each with the line it starts on.

    Records end at LF or CRLF outside quotes; an empty line is not a record.
    """
    records: list[tuple[int, list[str]]] = []
    fields: list[str] = []
    buf: list[str] = []
    state, started, line, first_line = START, False, 1, 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if state == QUOTED:
            if c == '"':
                if i + 1 < n and text[i + 1] == '"':
                    buf.append('"')
                    i += 2
                    continue
                state = AFTER_QUOTE
            else:
                buf.append(c)
                line += c == "\n"
            i += 1
            continue
        eol = 2 if text.startswith("\r\n", i) else 1 if c == "\n" else 0
        if eol:
            if started:
                fields.append("".join(buf))
                records.append((first_line, fields))
            fields, buf, state, started = [], [], START, False
            i += eol
            line += 1
            continue
        if not started:
            started, first_line = True, line
        if c == delimiter:
            fields.append("".join(buf))
            buf, state = [], START
        elif state == AFTER_QUOTE:
            raise TabconvError(f"line {line}: {c!r} after a closing quote")
        elif state == START and c == '"':
            state = QUOTED
        else:
            buf.append(c)
            state = UNQUOTED
        i += 1
    if state == QUOTED:
        raise TabconvError(f"line {first_line}: a quoted field is never closed")
    if started:
        fields.append("".join(buf))
        records.append((first_line, fields))
    return records


def quote_field(field: str, delimiter: str) -> str:
    """Wrap ``field`` in quotes (inner quotes doubled) when it holds the delimiter, a quote or a line break."""
    if delimiter in field or '"' in field or "\n" in field or "\r" in field:
        return '"' + field.replace('"', '""') + '"'
    return field


def write_records(records: list[list[str]], delimiter: str = ",") -> str:
    """CSV text: one LF-terminated line per record."""
    return "".join(delimiter.join(quote_field(f, delimiter) for f in rec) + "\n" for rec in records)
