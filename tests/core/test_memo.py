"""``core.memo.remember``: the one bounded insert every text memo uses."""

from verified.core.memo import remember


def test_remember_stores_and_returns_the_value():
    memo: dict = {}
    assert remember(memo, b"a", 1, 3) == 1
    assert remember(memo, b"b", False, 3) is False
    assert memo == {b"a": 1, b"b": False}


def test_a_full_memo_is_emptied_before_the_next_insert():
    memo: dict = {}
    for i in range(3):
        remember(memo, i, i, 3)
    assert memo == {0: 0, 1: 1, 2: 2}  # full, not yet emptied
    remember(memo, 3, "x", 3)
    assert memo == {3: "x"}  # never more than 3 entries, the new one kept


def test_the_memo_never_holds_more_than_its_size():
    memo: dict = {}
    sizes = set()
    for i in range(100):
        remember(memo, i, i, 7)
        sizes.add(len(memo))
        assert memo[i] == i
    assert sizes == set(range(1, 8))
