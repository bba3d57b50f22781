"""The settle-up plan: the most negative balance pays the largest positive one, ties by name order."""


def plan(balances):
    """[(debtor, creditor, cents), ...] in the order the payments are made."""
    bal = dict(balances)
    out = []
    while any(bal.values()):
        debtor = sorted((c, name) for name, c in bal.items() if c < 0)[0][1]
        creditor = sorted((-c, name) for name, c in bal.items() if c > 0)[0][1]
        cents = min(-bal[debtor], bal[creditor])
        bal[debtor] += cents
        bal[creditor] -= cents
        out.append((debtor, creditor, cents))
    return out
