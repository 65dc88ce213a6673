import pytest

from memory.extraction.speakers import Said, labels_strip, speaker_split


@pytest.mark.parametrize(("text", "speaker", "rest"), [
    ("Caroline: Hey Mel! How's it going?", "Caroline", "Hey Mel! How's it going?"),
    ("Mel Smith: I went to Boston.\nIt was great.", "Mel Smith", "I went to Boston.\nIt was great."),
    ("Dr. Who: hi", "Dr. Who", "hi"),
])
def test_a_name_before_a_colon_is_the_speaker(text, speaker, rest):
    assert speaker_split(text) == (speaker, rest)


@pytest.mark.parametrize(("text", "speaker", "rest"), [
    ("elise: I moved to Lyon last spring.", "Elise", "I moved to Lyon last spring."),
    ("marc: did you ever finish the thesis?", "Marc", "did you ever finish the thesis?"),
])
def test_a_lowercase_label_is_the_speaker_when_it_is_a_given_name(text, speaker, rest):
    # As chat exports write people's handles; the name is given as a name is written.
    assert speaker_split(text) == (speaker, rest)


@pytest.mark.parametrize("text", [
    "note: call the dentist before 5", "re: the lease, I signed it yesterday", "ps: bring the charger",
    "update: the flight moved to 9:40", "lunch: pizza with the team", "will: it's done, just need to send it",
    "paris: rainy again", "so: what do we do now?", "edit: typo", "todo: renew passport", "fyi: office closed",
])
def test_a_lowercase_heading_or_word_is_no_speaker(text):
    assert speaker_split(text) == (None, text)


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


def test_a_conversation_of_lowercase_handles_reads_each_turn_as_its_speakers():
    said, earlier = labels_strip("elise: I adopted a puppy named Max.", ["marc: how was your weekend?",
                                                                         "elise: long! I was at the shelter."])
    assert said == Said("Elise", "I adopted a puppy named Max.", len("elise: "))
    assert [(e.speaker, e.text) for e in earlier] == [("Marc", "how was your weekend?"),
                                                      ("Elise", "long! I was at the shelter.")]
