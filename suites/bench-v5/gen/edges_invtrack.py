"""bench-v5 shared edge classes for crud / invtrack (issue 30): rows appended to ``tables/invtrack.json``.

Each row asserts only what the prompt fixes:

- ``error_reach`` / ``number_form``: a QTY that is not an integer (``1.5``, ``abc``; "qty (integer >= 0)") on
  every command taking one (``item add``, ``item update``, ``stock in``, ``stock out``) is refused
  (argparse's usage error: any non-zero exit) and stores nothing.
- ``unicode_space``: a NAME is text, kept as given: a no-break space, an ideographic space and a doubled
  space inside it read back unchanged (``item add`` and ``item update``).
- ``case``: an SKU is text, unique, kept exactly: ``a1`` and ``A1`` are two items.
- ``line_end``: ``A1`` followed by a line break is not the SKU ``A1`` (an unknown SKU: exit 1, nothing
  changes).  Only a non-zero exit is asked: the reference's ``error:`` line names the SKU with its line
  break, so it spans two lines (the prompt's "one line" would fail the reference).

Left open (no row): a negative or zero QTY given to ``stock in`` / ``stock out`` ("negative qty" may mean
the item's qty: bench-v2's independent app takes ``stock in A1 -5`` as taking 5 away, and bench-v2 left it
open); Unicode digits in a QTY (``int()`` takes ``٣``; the prompt only says integer),
``--price nan/inf/1e3``, the empty ``report low``, leading zeros (``010``).
"""
from __future__ import annotations

from typing import Any

from rowkit import db, err, quiet, refused

ADD = quiet("item", "add", "A1", "--name", "Bolt", "--qty", "10", "--price", "2")
LIST = db("item", "list", "--json", out="json", stdout=None)
A1_10 = [{"sku": "A1", "name": "Bolt", "qty": 10, "price": 2.0}]

ROWS: dict[str, list[dict[str, Any]]] = {"invtrack": [
    {"id": "edge-qty-not-integer", "req": ["C-STOCK-IN", "C-STOCK-OUT", "C-UPDATE-QTY", "C-NO-TRACEBACK"],
     "edges": ["error_reach", "number_form"],
     "steps": [ADD, refused("stock", "in", "A1", "1.5"), refused("stock", "out", "A1", "0.5"),
               refused("stock", "in", "A1", "abc"), refused("item", "update", "A1", "--qty", "2.5"),
               refused("item", "add", "B1", "--name", "Nut", "--qty", "1.5", "--price", "1"),
               db("item", "list", "--json", out="json", stdout=A1_10)]},
    {"id": "edge-sku-case", "req": ["C-ADD", "C-ADD-DUP", "C-STOCK-IN", "C-REMOVE", "C-LIST-JSON"], "edges": ["case"],
     "steps": [quiet("item", "add", "a1", "--name", "bolt", "--qty", "1", "--price", "1"),
               quiet("item", "add", "A1", "--name", "Bolt", "--qty", "2", "--price", "2"),
               quiet("stock", "in", "a1", "3"), LIST, quiet("item", "remove", "A1"),
               db("item", "list", "--json", out="json", stdout=[{"sku": "a1", "name": "bolt", "qty": 4, "price": 1.0}]),
               err("stock", "in", "A1", "1")]},
    {"id": "edge-sku-trailing-newline", "req": ["C-STOCK-IN-UNKNOWN", "C-STOCK-OUT-UNKNOWN", "C-UPDATE-UNKNOWN",
                                                "C-REMOVE-UNKNOWN"], "edges": ["line_end"],
     "steps": [ADD, refused("stock", "in", "A1\n", "5"), refused("stock", "out", "A1\n", "5"),
               refused("item", "update", "A1\n", "--qty", "1"), refused("item", "remove", "A1\n"),
               db("item", "list", "--json", out="json", stdout=A1_10)]},
    {"id": "edge-name-inner-space", "req": ["C-ADD", "C-UPDATE-NAME", "C-LIST-JSON"], "edges": ["unicode_space"],
     "steps": [quiet("item", "add", "A1", "--name", "Hex\u00a0Bolt  M8", "--qty", "1", "--price", "1"),
               quiet("item", "add", "B2", "--name", "Nut\u3000x", "--qty", "2", "--price", "1"),
               quiet("item", "update", "B2", "--name", "Wing\u2003 Nut"),
               db("item", "list", "--json", out="json",
                  stdout=[{"sku": "A1", "name": "Hex\u00a0Bolt  M8", "qty": 1, "price": 1.0},
                          {"sku": "B2", "name": "Wing\u2003 Nut", "qty": 2, "price": 1.0}])]},
]}
