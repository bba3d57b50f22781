"""Amounts: AMOUNT strings to integer cents and back. No floats anywhere."""

DIGITS = "0123456789"


def _digits(s):
    return s != "" and all(ch in DIGITS for ch in s)


def parse_cents(text):
    """'12.5' -> 1250. Digits with at most two decimals; anything else raises ValueError."""
    whole, dot, frac = text.partition(".")
    if not _digits(whole) or (dot and not (_digits(frac) and len(frac) <= 2)):
        raise ValueError(f"invalid amount {text!r}: digits with at most two decimals")
    return int(whole) * 100 + (int(frac.ljust(2, "0")) if dot else 0)


def format_cents(cents):
    """1050 -> '10.50', -5 -> '-0.05'."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def parse_percent(text):
    """A percent with at most two decimals, in hundredths of a percent: '12.5' -> 1250."""
    return parse_cents(text)


def tip_cents(amount_cents, pct_hundredths):
    """amount * pct / 100 rounded half up: pct is in hundredths of a percent, so divide by 10000."""
    return (amount_cents * pct_hundredths * 2 + 10000) // 20000
