"""Parsing and printing the values of the command line: ids, text, money, copies, dates."""
import datetime

from libloan.errors import LibError

ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def ident(text, what):
    if not text or not set(text) <= ID_CHARS:
        raise LibError(f"invalid {what} {text!r}: use ASCII letters, digits and '-'")
    return text


def free_text(text, what):
    value = text.strip()
    if not value:
        raise LibError(f"{what} must not be empty")
    return value


def cents(text, what):
    """'12.5' -> 1250; digits with at most two decimals, nothing else."""
    whole, dot, frac = text.partition(".")
    ok = whole.isascii() and whole.isdigit() and (not dot or (frac.isascii() and frac.isdigit() and len(frac) <= 2))
    if not ok:
        raise LibError(f"invalid {what} {text!r}: digits with at most two decimals")
    return int(whole) * 100 + int(frac.ljust(2, "0"))


def money(value):
    return f"{value // 100}.{value % 100:02d}"


def copies(text):
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise LibError(f"invalid number of copies {text!r}: a whole number, at least 1")
    return int(text)


def date(text):
    try:
        if len(text) != 10 or text[4] != "-" or text[7] != "-":
            raise ValueError
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise LibError(f"invalid date {text!r}: use YYYY-MM-DD") from None
