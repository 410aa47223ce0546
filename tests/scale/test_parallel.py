from __future__ import annotations

from multiprocessing.pool import ThreadPool

from irforge.scale.parallel import imap_bounded


def test_imap_bounded_keeps_order_and_reads_input_lazily() -> None:
    consumed: list[int] = []

    def items():
        for number in range(50):
            consumed.append(number)
            yield number

    with ThreadPool(2) as pool:
        results = imap_bounded(pool, lambda x: x * x, items(), window=3)
        first = next(results)
        assert first == 0 and len(consumed) <= 4  # not the whole input
        assert [first, *results] == [n * n for n in range(50)]
