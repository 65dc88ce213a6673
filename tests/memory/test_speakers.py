import pytest

from memory.extraction.speakers import Said, labels_strip, speaker_split


@pytest.mark.parametrize(("text", "speaker", "rest"), [
    ("Caroline: Hey Mel! How's it going?", "Caroline", "Hey Mel! How's it going?"),
    ("Mel Smith: I went to Boston.\nIt was great.", "Mel Smith", "I went to Boston.\nIt was great."),
    ("Dr. Who: hi", "Dr. Who", "hi"),
])
def test_a_name_before_a_colon_is_the_speaker(text, speaker, rest):
    assert speaker_split(text) == (speaker, rest)


@pytest.mark.parametrize("text", [
    "Note: buy milk", "Monday: gym, Tuesday: swim", "Hello: is anyone there?", "Caroline:no blank after the colon",
    "I think: maybe", "Caroline: ", "at 10:30 I left", "P.S: one more thing", "User: what did I say?",
])
def test_a_heading_or_a_time_is_no_speaker(text):
    assert speaker_split(text) == (None, text)


def test_labels_are_read_only_in_a_conversation_that_uses_them():
    said, earlier = labels_strip("Caroline: I went to Boston.", ["Melanie: Hi!", "no label here"])
    assert said == Said("Caroline", "I went to Boston.", len("Caroline: "))
    assert [e.text for e in earlier] == ["Hi!", "no label here"]
    title = "Spider-Man: No Way Home is playing at Regal."
    assert labels_strip(title, ["Which film?"]) == (Said(None, title, 0), [Said(None, "Which film?", 0)])
    assert labels_strip("Caroline: hi", [])[0].speaker == "Caroline"
