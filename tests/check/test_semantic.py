from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from irforge.check import semantic


def test_warm_loads_the_model_once_and_every_thread_gets_that_model() -> None:
    semantic.warm()
    semantic.warm()  # a second call starts nothing
    assert len(semantic._WARMING) <= 1
    with ThreadPoolExecutor(4) as pool:  # asked while (or after) the background load runs
        models = list(pool.map(lambda _: semantic._model(), range(4)))
    assert all(model is models[0] for model in models)
    assert [models[0]] == semantic._LOADED
    cosine = float(semantic.vectors(["a laptop"])[0] @ semantic.vectors(["a computer"])[0])
    assert cosine > semantic.WORD_SIMILARITY  # the loaded model is the one the checks use
