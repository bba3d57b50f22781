"""splitpay: an expense-sharing ledger in exact cents."""
