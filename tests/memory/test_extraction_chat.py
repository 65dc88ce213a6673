"""The offline extractor on chat: what people say of themselves, their likings, and the names chat capitalises."""

from datetime import date

import pytest
from neomodel import db

from memory.extraction import Turn
from memory.ingest import message_extract
from tests.support.extraction import extract, facts, types


def test_what_the_person_says_of_themselves_in_chat():
    result = extract("Hi! My name is Sam and I would like a Mocha. That is not near me! I am in The Woodlands.")
    assert {(f.subject, f.predicate, f.object, f.cardinality) for f in result.facts} == {
        ("user", "HAS_NAME", "Sam", "single"), ("user", "LOCATED_AT", "The Woodlands", "single"),
    }
    assert facts(extract("Hello, my name is jack of diamonds, and I'd like a Macchiato.")) == {
        ("user", "HAS_NAME", "jack of diamonds"),
    }
    assert extract("Hi, my name is Ava and I am in Leeds.", role="assistant").facts == []


@pytest.mark.parametrize(("text", "topics"), [
    ("Guitar's mostly my thing. Playing it helps me.", ["guitar"]),
    ("Staying in shape is important to me too.", ["staying in shape"]),
    ("Ah, they're adorable! Pets sure do bring so much joy to us! Dance is my go-to for stress relief.", ["pets", "dance"]),
    ("Seeing this made me appreciate my love of reading even more.", ["reading"]),
    ("I'm keen on counseling or working in mental health - I'd love to help.", ["counseling or working in mental health"]),
    ("I've been into dancing since I was a kid.", ["dancing"]),
    ('I loved "Becoming Nicole" by Amy Ellis Nutt.', ["becoming nicole"]),
    ("I want to help people. I like to see a comedy movie tonight. I love it! I love that you came.", []),
])
def test_preferences_said_the_way_people_chat(text, topics):
    result = extract(text)
    assert [p.topic for p in result.preferences] == topics
    assert all(p.polarity == "positive" for p in result.preferences)


def test_preference_categories_and_a_second_clause_of_the_same_liking():
    result = extract("Cool, Gina! I love all dances, but contemporary is my top pick. I love almond milk in my latte.")
    assert [(p.category, p.topic) for p in result.preferences] == [
        ("entertainment", "all dances"), ("general", "contemporary"), ("food", "almond milk in my latte"),
    ]


@pytest.mark.parametrize(("text", "expected"), [
    ("We drove through California and Oregon.", {"California": "LOCATION", "Oregon": "LOCATION"}),
    ("I'm looking to book a table for Korean food.", {}),
    ("Hi, I would like to order a Mocha and an iced Latte.", {}),
    ('I loved "Becoming Nicole" by Amy Ellis Nutt.', {"Becoming Nicole": "OBJECT", "Amy Ellis Nutt": "PERSON"}),
    ('Yeah totally! "Brave" by Sara Bareilles means a lot to me.', {"Brave": "OBJECT", "Sara Bareilles": "PERSON"}),
    ("It's playing at Alamo Drafthouse Cinema South Lamar.", {"Alamo Drafthouse Cinema South Lamar": "LOCATION"}),
    ("It ends with a visit from Doctor Strange.", {"Doctor Strange": "PERSON"}),
    ("We got a card from Aunt Zainab.", {"Aunt Zainab": "PERSON"}),
])
def test_chat_names_are_typed_by_what_they_are(text, expected):
    assert types(extract(text)) == expected


def test_the_same_liking_said_twice_has_one_topic():
    said = ["I like curry for lunch.", "I really love curry for lunch so much!", "I've always been into curry for lunch."]
    assert {(p.topic, p.polarity) for text in said for p in extract(text).preferences} == {("curry for lunch", "positive")}
    assert [(p.topic, p.polarity) for p in extract("I don't like curry for lunch anymore.").preferences] == [
        ("curry for lunch", "negative"),
    ]


@pytest.mark.django_db
def test_through_the_write_path_an_assistants_home_never_becomes_the_persons(granted):
    subject, _, client = granted
    response = client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "I live in Lisbon. I'm a big fan of Nintendo games."},
        {"role": "assistant", "content": "Nice! I live in Porto. I love surfing."},
    ]}, format="json")
    for result in response.json()["results"]:
        assert message_extract(message_uid=result["uid"], user_id=subject.user_id) == "done"
    facts, _ = db.cypher_query("MATCH (f:Fact {user_id: $u}) RETURN f.subject, f.predicate, f.object, f.valid_until",
                               {"u": subject.user_id})
    assert facts == [["user", "RESIDES_AT", "Lisbon", None]]
    preferences, _ = db.cypher_query("MATCH (p:Preference {user_id: $u}) RETURN p.preference", {"u": subject.user_id})
    assert preferences == [["likes Nintendo games"]]


def test_going_to_an_event_is_taking_part_in_it():
    result = extract("Last Friday, I went to an LGBTQ+ counseling workshop. I went to Boka for dinner.",
                     reference_date=date(2023, 6, 27))
    assert [(f.subject, f.predicate, f.object, f.valid_from) for f in result.facts] == [
        ("user", "PARTICIPATED_IN", "LGBTQ+ counseling workshop", date(2023, 6, 23)),
    ]
    # some workshop of a kind, as "a road trip" is: the fact's object, no entity (nor an alias "LGBTQ+" it could share)
    assert "LGBTQ+ counseling workshop" not in types(result)


def test_film_titles_with_their_rating_are_things_and_abbreviations_no_organisations():
    result = extract("You can see Notting Hill (PG-13) or Bridesmaids (R) on the TV tonight.", role="assistant")
    assert types(result) == {"Notting Hill": "OBJECT", "Bridesmaids": "OBJECT"}


def test_a_chat_sentence_that_leaves_out_i_still_speaks_for_the_person():
    result = extract("Just got back from a family road trip yesterday, it was fun! Moved to Leeds last year. "
                     "Met Sarah at the conference.", reference_date=date(2026, 3, 20))
    assert {(f.subject, f.predicate, f.object, f.valid_from) for f in result.facts} == {
        ("user", "PARTICIPATED_IN", "family road trip", date(2026, 3, 19)),
        ("user", "RESIDES_AT", "Leeds", date(2025, 3, 20)),
        ("user", "KNOWS", "Sarah", None),
    }
    assert "Met Sarah" not in types(result)
    assert extract("Just got back from a family road trip yesterday.", role="assistant").facts == []


@pytest.mark.parametrize(("text", "role"), [
    ("It's paid off now that I'm an assistant manager- it's like a stepping stone.", "assistant manager"),
    ("I am now a senior software engineer.", "senior software engineer"),
    ("I'm a big fan of Nintendo games.", None),
    ("I'm not a teacher.", None),
    ("I'm a nurse at Lakeview General Hospital.", None),  # an employer, said as EMPLOYED_BY
])
def test_a_role_the_person_states(text, role):
    roles = [f.object for f in extract(text).facts if f.predicate == "HAS_ROLE"]
    assert roles == ([role] if role else [])
    assert [f for f in extract(text, role="assistant").facts if f.subject == "user"] == []


def test_a_planned_event_is_not_yet_taken_part_in():
    assert extract("I'm going to a transgender conference this month.").facts == []
    assert facts(extract("I went to a transgender conference last month.")) == {
        ("user", "PARTICIPATED_IN", "transgender conference"),
    }


def test_a_line_break_ends_a_name_and_a_glued_time_does_not_start_one():
    result = extract("Scream plays at Cinemark 17 and 9:15 PMAlamo Drafthouse Cinema Mueller",
                     context=[Turn(role="user", content="I am in Davis, California")])
    assert "Alamo Drafthouse Cinema Mueller" in types(result)
    assert not any("\n" in e.name or e.name.startswith("PM") for e in result.entities)
    assert "California\n\nScream" not in types(extract("California\n\nScream plays at nine."))


def test_unnamed_things_of_a_personal_turn_are_no_entities_but_stay_the_objects_of_facts():
    result = extract("Hi, my car just died out there. Just got back from a family road trip yesterday.")
    assert result.entities == []
    assert ("user", "PARTICIPATED_IN", "family road trip") in facts(result)
    assert [e.surface_forms for e in extract("The trust owns four minibuses.").entities] == [["minibuses", "four minibuses"]]


def test_this_and_that_take_a_singular_noun():
    result = extract("That sounds great!", context=[Turn(role="assistant", content='The band was "Summer Sounds".')])
    assert result.entities == []


def test_kinds_of_food_and_drink_written_with_a_capital_are_no_names():
    result = extract("Can I have a Cappuccino with Vanilla and Oat milk? We have Sugar Free Vanilla and Caramel Sauce.",
                     role="assistant")
    assert result.entities == []
    assert types(extract("You can see Licorice Pizza (PG) tonight.", role="assistant")) == {"Licorice Pizza": "OBJECT"}


def test_a_cinemas_screen_formats_and_its_at_sign_belong_to_its_name():
    result = extract("Scream plays at Cinemark 17 and XD, Regal Arbor @ Great Hills and Century Daly City 20 XD and IMAX.",
                     role="assistant")
    venues = {e.name: (e.type, e.aliases) for e in result.entities if e.name != "Scream"}
    assert venues == {
        "Cinemark 17 and XD": ("LOCATION", ["Cinemark 17"]),
        "Regal Arbor @ Great Hills": ("LOCATION", ["Regal Arbor"]),
        "Century Daly City 20 XD and IMAX": ("LOCATION", ["Century Daly City 20"]),
    }
    assert extract("Is it in IMAX or XD?").entities == []


@pytest.mark.parametrize(("text", "title"), [
    ("Where is No Time To Die playing?", "No Time To Die"),
    ("No Time To Die is playing at nine.", "No Time To Die"),
    ("Sorry No Time to Die is not playing.", "No Time to Die"),
    ("What is Spider-Man: No Way Home about?", "Spider-Man: No Way Home"),
    ("I wonder if Top Gun: Maverick is going to win.", "Top Gun: Maverick"),
    ("The movies are Eternals, My Hero Academia: World Heroes' Mission and Dune.", "My Hero Academia: World Heroes' Mission"),
    ("They play Before Sunrise (R), and Pretty in Pink (PG-13).", "Pretty in Pink"),
    ("They play The King's Man (R) at nine.", "The King's Man"),
    ("Regal plays Clifford the Big Red Dog and Last Night in Soho.", "Clifford the Big Red Dog"),
    ("Regal plays Clifford the Big Red Dog and Last Night in Soho.", "Last Night in Soho"),
])
def test_titles_in_title_case_are_read_whole(text, title):
    result = extract(text, role="assistant")
    assert title in types(result)
    assert not any(e.name != title and e.name in title for e in result.entities)


@pytest.mark.parametrize("text", [
    "Here's the synopsis of Moonfall: The world stands still.",
    "They are showing Scream: Alamo Drafthouse Cinema Mueller and Regal Davis.",
    "Note: Sam is late.",
    "I met Sam in London.",
    "Jackass Forever (R) is a Comedy/Pranks.",
])
def test_a_colon_a_small_word_or_a_slash_joins_no_names_outside_a_title(text):
    names = set(types(extract(text, role="assistant")))
    assert not any(":" in name or " in " in name or "Pranks" in name for name in names)


@pytest.mark.parametrize(("text", "name"), [
    ("Have you been watching Severance? It is so good.", "Severance"),
    ("Regal Davis is playing Eternals tonight.", "Eternals"),
    ("Two tickets for Spencer, please.", "Spencer"),
    ("Redeeming Love is playing at the Flix Brewhouse.", "Redeeming Love"),
    ("Sorry No Time to Die is not playing.", "No Time to Die"),
    ("Is Belfast showing now anywhere?", "Belfast"),
    ("The Varsity Theatre has Dune (coming Nov 09) and Spencer (coming Nov 09).", "Spencer"),
    ("There are no showings of Spencer today.", "Spencer"),
])
def test_what_is_watched_or_shown_is_a_thing(text, name):
    assert types(extract(text))[name] == "OBJECT"
    assert types(extract("I watched it with Sam."))["Sam"] == "PERSON"


@pytest.mark.parametrize(("text", "fact"), [
    ("I volunteer at the Leeds Food Bank on Sundays.", ("user", "VOLUNTEERS_AT", "Leeds Food Bank")),
    ("Woah, that pic's from when my dance crew took home first.", ("user", "MEMBER_OF", "dance crew")),
    ("Our one-year-old is so cute, his name is Kyle!", ("user", "PARENT_OF", "Kyle")),
    ("My son Kyle started school.", ("user", "PARENT_OF", "Kyle")),
    ("A gift from my grandma in my home country, Sweden.", ("user", "FROM", "Sweden")),
    ("I'm originally from Portugal.", ("user", "FROM", "Portugal")),
    ("Oh, I've been to Paris yesterday!", ("user", "VISITED", "Paris")),
    ("I started playing acoustic guitar about five years ago.", ("user", "PLAYS", "acoustic guitar")),
    ("I went to a LGBTQ support group yesterday.", ("user", "PARTICIPATED_IN", "LGBTQ support group")),
])
def test_what_the_person_says_of_their_life_in_chat(text, fact):
    assert fact in facts(extract(text))
    assert [f for f in extract(text, role="assistant").facts if f.subject == "user"] == []


@pytest.mark.parametrize("text", [
    "My favourite band is playing tonight.",
    "I'm not from Sweden.",
    "I might volunteer at the Leeds Food Bank.",
    "Have you been to Paris?",
    "I want to play guitar.",
])
def test_no_fact_of_the_person_from_a_liking_a_denial_a_hedge_a_question_or_a_wish(text):
    assert [f for f in extract(text).facts if f.subject == "user"] == []


def test_a_short_answer_with_a_place_to_where_the_person_is_says_where_they_are():
    asked = [Turn(role="user", content="Where is Eternals playing?"), Turn(role="assistant", content="In what city?")]
    result = extract("Austin, Texas", context=asked)
    assert facts(result) == {("user", "LOCATED_AT", "Austin")}
    assert types(result) == {"Austin": "LOCATION", "Texas": "LOCATION"}
    theater = [Turn(role="assistant", content="OK. What city and state is that theater in?")]
    assert extract("Round Rock, Texas", context=theater).facts == []
    assert extract("Austin, Texas", context=asked, role="assistant").facts == []


def test_names_in_a_list_or_paired_are_names_and_praise_before_a_name_addresses_it():
    result = extract("The movies are Eternals, Red Notice, Annaatthe, Dune and Batman Returns.", role="assistant")
    assert "Annaatthe" in types(result)
    assert set(types(extract("Luna and Oliver! They are so sweet.", role="assistant"))) == {"Luna", "Oliver"}
    assert set(types(extract("You went to Paris? That is really great Jon! Sorry, Mel.", role="assistant"))) == {"Paris"}


@pytest.mark.parametrize(("text", "expected"), [
    ("I like to see Scream at Cinemark 17 tonight or later.", []),
    ("I like to see that with my brother.", []),
    ("I don't want Eternals. I want No Time To Die", []),
    ("I don't want future generations to go through that.", []),
    ("I don't want mushrooms on my pizza.", [("negative", "mushrooms on my pizza")]),
    ("I like to watch old movies.", [("positive", "watch old movies")]),
    ("I feel drawn to serving my country.", [("positive", "serving my country")]),
])
def test_a_request_for_a_particular_thing_or_a_wish_for_others_is_no_preference(text, expected):
    assert [(p.polarity, p.topic) for p in extract(text).preferences] == expected


def test_the_names_of_a_list_take_the_type_its_typed_members_agree_on():
    result = extract("The movies are Eternals, No Time to Die, Red Notice, Last Night in Soho and Dune.", role="assistant")
    assert set(types(result).values()) == {"OBJECT"}
    assert types(extract("I met Sam, Tom and Ana at Acme Corp."))["Sam"] == "PERSON"
    # A person and a company: the list agrees on nothing, and nothing else says what Priya is.
    assert types(extract("It was signed by Priya, Marcus and Kestrel Robotics."))["Priya"] == "UNTYPED"


def test_a_quoted_nickname_between_a_first_and_a_last_name_is_part_of_the_name():
    result = extract('With weeks left, NASA executive Jocinda "Jo" Fowler teams up with a man.', role="assistant")
    assert types(result) == {"NASA": "ORGANIZATION", 'Jocinda "Jo" Fowler': "PERSON"}
    assert types(extract('I loved "Brave" by Sara Bareilles.'))["Brave"] == "OBJECT"


@pytest.mark.parametrize("first", ["user", "assistant"])
def test_a_speaker_label_is_the_speaker_never_an_entity_nor_read_by_a_rule(first):
    second = "assistant" if first == "user" else "user"
    context = [Turn(role=first, content="Caroline: Hey Mel! Thanks Mel, it was great."),
               Turn(role=second, content="Melanie: Did you like the Boston trip?")]
    text = "Caroline: Thanks Melanie! I went to Boston with my friend Jon Snow."
    labelled = extract(text, role=first, context=context)
    plain = extract(text.split(": ", 1)[1], role=first, context=[Turn(t.role, t.content.split(": ", 1)[1]) for t in context])
    assert types(labelled) == types(plain) == {"Boston": "LOCATION", "Jon Snow": "PERSON"}
    assert facts(labelled) == facts(plain)
    assert all(text[m.start:m.end] == m.text for e in labelled.entities for m in e.mentions)


def test_lowercase_speaker_labels_are_the_people_talking_as_capitalised_ones_are():
    def said(elise, marc):
        context = [Turn(role="user", content=f"{elise}: hey Marc, the trip was great."),
                   Turn(role="assistant", content=f"{marc}: did you like Boston, Elise?")]
        return extract(f"{elise}: Marc, I moved to Lyon with Elise's sister Anna last spring.", context=context)

    lowercase, capitalised = said("elise", "marc"), said("Elise", "Marc")
    assert types(lowercase) == types(capitalised) == {"Lyon": "LOCATION", "Anna": "PERSON"}  # not the two talking
    assert facts(lowercase) == facts(capitalised)


def test_titles_in_quotes_are_names_never_relations():
    result = extract('I loved "The Lord of the Rings" and \'Embracing Identity\'. "Charlotte\'s Web" too!')
    assert types(result) == {"The Lord of the Rings": "OBJECT", "Embracing Identity": "OBJECT", "Charlotte's Web": "OBJECT"}
    assert result.facts == [] and result.relations == []


@pytest.mark.parametrize("text", [
    "I'll let you know when I'm in Boston!", "When I'm in Boston I'll call you.", "I will move to Lisbon next year.",
    "I'd join Fjord Systems in a heartbeat.", "Can't wait to visit Japan someday.",
])
def test_future_hypothetical_and_conditional_statements_are_no_facts(text):
    assert extract(text).facts == []


def test_a_pronoun_in_the_subjects_form_is_no_object():
    result = extract("I love DIYs, and I know she does too.")
    assert result.facts == [] and result.entities == []


@pytest.mark.parametrize(("text", "context"), [
    ("I'd rather show you a photo of it.", ""), ("I love your commitment!", ""), ("I like to say thanks for that.", ""),
    ("I love all the yellow leaves, it looks so cozy.", ""), ("Wow, I love the colors!", "Here's a pic of my garden."),
])
def test_compliments_and_remarks_to_the_listener_are_no_preferences(text, context):
    earlier = [Turn(role="assistant", content=context)] if context else []
    assert extract(text, context=earlier).preferences == []


def test_a_liking_of_a_kind_stays_a_preference_beside_a_photo():
    earlier = [Turn(role="assistant", content="Here's a pic from the show.")]
    assert [p.topic for p in extract("I love all dances, but contemporary is my top pick.", context=earlier).preferences] \
        == ["all dances", "contemporary"]


@pytest.mark.parametrize(("text", "name", "type_"), [
    ("I posted the video on Facebook last night.", "Facebook", "ORGANIZATION"),
    ("We took the Prius for a long drive.", "Prius", "OBJECT"),
    ("I've been playing Civilization a lot.", "Civilization", "OBJECT"),
    ("Last month we flew to Nuuk for a week.", "Nuuk", "LOCATION"),
    ("We had to say goodbye to Max.", "Max", "PERSON"),
])
def test_a_names_type_comes_from_its_context(text, name, type_):
    assert types(extract(text))[name] == type_


def test_a_participant_named_in_a_labelled_conversation_is_no_entity():
    context = [Turn(role="user", content="Jon: I lost my job."), Turn(role="assistant", content="Gina: Oh no!")]
    result = extract("Jon: Thanks Gin. Sorry about your shop Gina, and say hi to Rob.", context=context)
    assert types(result) == {"Rob": "PERSON"}


def test_taking_part_in_something_unnamed_is_not_taking_part_in_the_last_event():
    context = [Turn(role="assistant", content="I joined a beginner class last week.")]
    assert extract("I participated in a 5K charity run for a shelter.", context=context).facts == []


@pytest.mark.parametrize(("text", "fact"), [
    ("Just yesterday I joined a nearby church.", ("user", "MEMBER_OF", "nearby church")),
    ("I just joined a new LGBTQ activist group last Tues.", ("user", "MEMBER_OF", "LGBTQ activist group")),
    ("My family and I went on a road trip to Oregon.", ("user", "VISITED", "Oregon")),
    ("Last week I went on a mountaineering trip with workmates.", ("user", "PARTICIPATED_IN", "mountaineering trip")),
])
def test_what_the_person_joined_and_where_they_went(text, fact):
    assert fact in facts(extract(text))


@pytest.mark.parametrize(("text", "topic"), [
    ("Friendship means a lot to me.", "friendship"), ("Dancing makes me so happy.", "dancing"),
    ('"Brave" has a lot of significance for me.', "brave"), ("Volunteering is an important part of my life.", "volunteering"),
    ("My family is my motivation and they keep me going.", None),
])
def test_what_means_a_lot_or_keeps_the_person_going_is_a_liking(text, topic):
    assert [p.topic for p in extract(text).preferences] == ([topic] if topic else [])


@pytest.mark.parametrize("text", [
    "I love making him happy.", "I enjoy the taste of these.", "I love their work.", "Love sure does bring us joy, huh?",
    "I'm passionate about sharing that with others.", "Remembering those we love is important.",
])
def test_a_liking_of_a_reference_or_asked_is_no_preference(text):
    assert extract(text).preferences == []


def test_a_reference_inside_a_longer_topic_keeps_it():
    assert [p.topic for p in extract("I love helping the community and making it a better place.").preferences] == [
        "helping the community and making it a better place"]


@pytest.mark.parametrize(("text", "names"), [
    ('I watched "The Lord of the Rings" Trilogy last night!', {"The Lord of the Rings": "OBJECT"}),
    ("See ya Nate! Anytime Jo!", {}), ("Recently started learning an instrument.", {}),
    ("German Shepherds are loyal.", {}), ("I really should start one, shouldn't I. That seems valuable!", {}),
    ("Wow, Congrats on those deals!", {}),
])
def test_what_chat_capitalises_is_no_name(text, names):
    result = extract(text)
    assert types(result) == names and result.facts == []


def test_a_person_of_a_thing_is_no_employee():
    assert extract("It's a map of Middle-earth from LOTR.").facts == []


def test_joining_a_group_is_membership_and_an_opinion_is_no_attribute():
    assert facts(extract("I just joined a writers group.")) == {("user", "MEMBER_OF", "writers group")}
    assert extract("Hey, Boston's music scene is awesome!").facts == []


def test_a_fact_names_a_particular_subject_and_says_which_group():
    assert facts(extract("I heard some cool stories from an elderly veteran named Samuel.")) == set()
    assert facts(extract("I joined a gym last week! My team is great too.")) == set()
    assert facts(extract("I just joined a new LGBTQ activist group last Tues.")) == {
        ("user", "MEMBER_OF", "LGBTQ activist group")}


def test_an_alias_needs_words_that_say_two_names_are_one():
    result = extract("I went to an LGBTQ support group, and later to an LGBTQ conference.")
    assert all(e.aliases == [] for e in result.entities)
    assert not [f for f in extract("Toby is German Shepherd through and through.").facts if f.predicate == "ALIAS_OF"]
    assert facts(extract("Giulia Marchetti, also known as Jules Marchetti, writes the column.")) >= {
        ("Giulia Marchetti", "ALIAS_OF", "Jules Marchetti")}


@pytest.mark.parametrize(("text", "topics"), [
    ("I've always been passionate about serving my country in this way.", ["serving my country"]),
    ("I love the freedom and connection it brings.", []),
    ("I love taking walks on this nearby trail.", []),
    ("I love helping the community and making it a better place.",
     ["helping the community and making it a better place"]),
    ("I'm passionate about dance and fashion so combining them lets me show my creativity.", ["dance and fashion"]),
])
def test_a_preference_reads_on_its_own(text, topics):
    assert [p.topic for p in extract(text).preferences] == topics
