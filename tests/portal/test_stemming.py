"""Each thread stems with its own stemmer: the threads of one web worker stem questions side by side."""

from concurrent.futures import ThreadPoolExecutor

from portal.stemming import english_stemmer

WORDS = ["adoption", "running", "dances", "organisations", "happily", "connected"] * 50


def test_threads_stemming_side_by_side_get_each_word_s_own_stem():
    expected = english_stemmer().stemWords(WORDS)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: english_stemmer().stemWords(WORDS), range(200)))
    assert all(result == expected for result in results)
