"""The words a question shares with an item: its stems, each found once, in whole words of any case."""

import pytest

from memory.relevance import question_read


@pytest.mark.parametrize(("question", "text", "share"), [
    # "painted" is stemmed to "paint", which finds "painting" (up to four letters more), not "paintbrushes".
    ("When was the house painted?", "I finished painting the house.", 1.0),
    ("When was the house painted?", "New paintbrushes for the shed.", 0.0),
    # Whole words only, in any case; an underscore parts two words.
    ("Which service was slow?", "SERVICE_Checkout was slow", 1.0),
    ("Which service was slow?", "the microservice was quick", 0.0),
    # A stem is counted once however often the text holds it; the words every question is made of count for nothing.
    ("Did Caroline adopt a dog?", "adopted, adopting, adoption", 1 / 3),
    ("What is it?", "It is what it is.", 0.0),
])
def test_the_share_of_the_questions_words_an_item_holds(question, text, share):
    assert question_read(question).words_share(text) == pytest.approx(share)


def test_a_word_counts_for_the_shortest_stem_it_goes_on_from_by_four_letters_at_most():
    question = question_read("run runner")
    assert question.stems == {"run", "runner"}
    assert question.words_share("runners") == 0.5  # "run" and four letters: the shorter stem only
    assert question.words_share("run runners") == 0.5
    assert question.words_share("runnerless") == 0.5  # seven letters past "run", four past "runner"
    assert question.words_share("run runnerless") == 1.0
