import pytest

from invtrack.store import Store, StoreError


@pytest.fixture
def store(tmp_path):
    s = Store(str(tmp_path / "inv.db"))
    yield s
    s.close()


def test_total_value_is_sum_of_qty_times_price(store):
    store.add("A1", "Bolt", 10, 2)
    store.add("A2", "Nut", 5, 1)
    assert store.total_value() == 25


def test_adding_an_existing_sku_updates_it(store):
    store.add("A1", "Bolt", 10, 2)
    store.add("A1", "Other", 1, 1)
    assert store.get("A1").name == "Other"


def test_stock_out_cannot_go_negative(store):
    store.add("A1", "Bolt", 2, 2)
    with pytest.raises(StoreError):
        store.move("A1", -3)
    assert store.get("A1").qty == 2


def test_low_stock_lists_items_below_threshold(store):
    store.add("A1", "Bolt", 10, 2)
    store.add("A2", "Nut", 5, 1)
    assert [i.sku for i in store.low_stock(6)] == ["A2"]
