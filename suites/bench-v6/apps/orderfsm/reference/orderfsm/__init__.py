"""orderfsm: an order-lifecycle tracker, a state machine persisted in SQLite."""
