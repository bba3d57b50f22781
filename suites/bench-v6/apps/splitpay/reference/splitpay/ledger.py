"""Splitting a total into parts (integer cents) and computing balances."""


def split_equal(total_cents, names):
    """total // n each; the total % n cents left over go one each to the first names in name order."""
    ordered = sorted(names)
    base, left = divmod(total_cents, len(ordered))
    return {name: base + (1 if i < left else 0) for i, name in enumerate(ordered)}


def split_shares(total_cents, weights):
    """total * w // W each; the cents left over go to the largest remainders, ties in name order."""
    whole = sum(weights.values())
    parts = {name: total_cents * w // whole for name, w in weights.items()}
    left = total_cents - sum(parts.values())
    by_remainder = sorted(weights, key=lambda name: (-(total_cents * weights[name] % whole), name))
    for name in by_remainder[:left]:
        parts[name] += 1
    return parts


def balances(people, expenses, payments):
    """name -> paid minus parts, plus payments made, minus payments received."""
    out = {name: 0 for name in people}
    for e in expenses:
        out[e["payer"]] += e["total"]
        for name, cents in e["parts"].items():
            out[name] -= cents
    for p in payments:
        out[p["from"]] += p["cents"]
        out[p["to"]] -= p["cents"]
    return out
