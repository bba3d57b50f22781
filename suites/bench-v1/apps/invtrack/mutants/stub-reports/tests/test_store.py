import pytest

from invtrack.store import Store, StoreError


@pytest.fixture
def store(tmp_path):
    s = Store(str(tmp_path / "inv.db"))
    yield s
    s.close()


def test_add_then_get(store):
    store.add("A1", "Bolt", 10, 2)
    assert store.get("A1").qty == 10


def test_duplicate_sku_is_rejected(store):
    store.add("A1", "Bolt", 10, 2)
    with pytest.raises(StoreError):
        store.add("A1", "Other", 1, 1)


def test_stock_out_cannot_go_negative(store):
    store.add("A1", "Bolt", 2, 2)
    with pytest.raises(StoreError):
        store.move("A1", -3)
    assert store.get("A1").qty == 2

