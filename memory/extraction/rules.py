"""Relation patterns of general English, matched on the text between two mentions of one clause.

Each rule names the relation, the entity types it joins, and a pattern that must match the whole
(lower-cased) text between the subject mention and the object mention. `before` further requires
the clause text before the subject to end with a pattern (a recipient after a verb of giving).
Then the ways of stating a preference, each with its polarity. Last, the rules every extractor
shares: which predicates hold one value at a time, and the normal form of a preference's topic.
"""

import re
from dataclasses import dataclass

from django.conf import settings

from memory.extraction.results import ENTITY_TYPES
from portal.stemming import english_stem

P, O, L, E, T = ENTITY_TYPES
SPEAKER = "SPEAKER"

AUX = (r"(?:(?:has|have|had|was|were|is|are|am|will|would|recently|just|also|then|later|finally|already|still|now|"
       r"first|eventually|has been|had been|both|currently)\s+)*")
DET = r"(?:(?:the|a|an|its|their|his|her|our|my|your|this|that|same)\s+)*"
NUM = r"(?:(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|several|many|some|a few|new)\s+)?"
# Words that make "a big fan of X" or "a regular customer of X" something other than a job at X.
NOT_ROLES = r"fans?|lovers?|admirers?|supporters?|enthusiasts?|followers?|customers?|clients?|users?|subscribers?|part"
ROLE = rf"(?!(?:[a-z-]+ )*?(?:{NOT_ROLES})\b)[a-z][a-z -]{{0,40}}?"


@dataclass(frozen=True)
class RelationRule:
    relation: str | None
    subjects: tuple
    objects: tuple
    between: re.Pattern
    before: re.Pattern | None = None
    inverse: bool = False
    retypes: bool = True


def rule(relation, subjects, objects, between, *, before=None, inverse=False, retypes=True):
    """Return a rule; the first type listed is the one a weakly typed name takes when the rule fits it.

    A rule that `retypes=False` only joins names already of its types ("went to X" says X is an event
    only when X is one already).
    """
    return RelationRule(
        relation, tuple(subjects), tuple(objects), re.compile(between),
        re.compile(before) if before else None, inverse, retypes,
    )


PEOPLE = (P, SPEAKER)
PEOPLE_OR_ORGS = (P, O, SPEAKER)
THINGS = (T, O, L, E, P)

RULES = [
    rule("MEMBER_OF", PEOPLE, {O},
         rf"\s+{AUX}(?:sits|sit|sat|serves|serve|served|is|was|am) on the (?:board|council|committee|panel) of\s+{DET}|"
         rf"\s+{AUX}(?:joined the board of|belongs to|(?:is|was|am|became) (?:a |an )?(?:member|trustee|director|fellow|board member) of)\s+{DET}"),
    rule("EMPLOYED_BY", PEOPLE, {O},
         rf"\s+{AUX}(?:joined|joins|join|signed with|signs with|signed on with|works (?:at|for)|work (?:at|for)|"
         rf"worked (?:at|for)|working (?:at|for)|employed (?:at|by)|hired by|started at|starts at|start at|starting at|"
         rf"(?:is|was|am|became) (?:a|an|the) {ROLE} (?:at|for|of|with)|"
         rf"(?:became|becomes|was named|was appointed|is now) {ROLE} (?:at|for|of|with))\s+{DET}"),
    rule(None, PEOPLE, {O}, rf"\s+{AUX}(?:left|leaves|leave|quit|quits|resigned from|was fired by|was laid off by)\s+{DET}"),
    rule("EMPLOYED_BY", {P}, {O}, rf"\s+(?:of|from)\s+{DET}", retypes=False),
    rule("EMPLOYED_BY", {P}, {O}, rf"\s*,\s+(?:the|a|an|our|their)\s+{ROLE}\s+(?:at|of|for|with)\s+{DET}"),
    rule("SUBSIDIARY_OF", {O}, {O},
         rf"\s+{AUX}(?:is|was|became|remains) (?:a|an|the) (?:wholly[- ]owned )?(?:subsidiary|division|unit|arm|part|affiliate) of\s+{DET}|"
         rf"\s+{AUX}(?:is |was )?(?:owned|acquired|bought) by\s+{DET}|"
         rf"(?:['’]s)?\s+parent(?: company| firm| group| organi[sz]ation)?\s*(?:,|is|was)?\s*{DET}"),
    rule("SUBSIDIARY_OF", {O}, {O}, rf"\s+{AUX}(?:acquired|bought|took over)\s+{DET}", inverse=True),
    rule("HEADQUARTERS_AT", {O}, {L},
         rf"\s+{AUX}(?:keeps|keep|kept|has|have|had|maintains|maintained|moved|opened|set up)\s+(?:its|their) "
         rf"(?:head office|head offices|headquarters|main office|hq) (?:in|at|to)\s+{DET}|"
         rf"\s+{AUX}(?:is |was |are )?headquartered (?:in|at)\s+{DET}|"
         rf"(?:['’]s)?\s+(?:head office|headquarters|hq) (?:is|are|was) (?:in|at)\s+{DET}"),
    rule("LOCATED_AT", PEOPLE_OR_ORGS, {L},
         rf"\s+{AUX}(?:work|works|worked|working|operate|operates|operated) out of\s+{DET}"),
    rule("LOCATED_AT", (O, P, T, L, E, SPEAKER), {L},
         rf"\s+{AUX}(?:is |are |was |were |am )?(?:based|located|stationed|situated|hosted|deployed) (?:in|at)\s+{DET}"),
    rule("LOCATED_AT", {O}, {L},
         rf"\s+{AUX}(?:runs|run|ran|operates|operate|operated|has|have|had|opened|maintains) (?:a|an|its|their) "
         rf"(?:[a-z]+ ){{1,3}}?(?:in|outside|near|at|outside of)\s+{DET}"),
    rule("LOCATED_AT", {SPEAKER}, {L}, rf"\s+(?:am|['’]m)\s+(?:currently\s+|now\s+|still\s+)?(?:in|at)\s+{DET}"),
    rule("LOCATED_AT", {P, SPEAKER}, {L},
         rf"\s+{AUX}(?:work|works|worked|working) (?:in|at|from)\s+{DET}|"
         rf"\s*,\s+(?:the|a|an|our|their)\s+{ROLE}\s+(?:at|in)\s+{DET}"),
    rule("RESIDES_AT", PEOPLE, {L},
         rf"\s+{AUX}(?:lives|live|lived|living|resides|reside|resided|residing|moved|relocated|settled) (?:at|in|to)\s+{DET}|"
         rf"(?:['’]s)?\s+home (?:is|was) (?:at|in)\s+{DET}"),
    rule("DEPENDS_ON", (T, O), THINGS,
         rf"\s+{AUX}(?:depends|depend|depended|relies|rely|relied|is dependent|are dependent) on\s+{DET}"),
    rule("USES", (P, O, T, SPEAKER), {T},
         rf"\s+{AUX}(?:uses|use|used|using|relies on|relied on|drives|drove|drive|works with|operates|operated)\s+{NUM}{DET}"),
    rule("USES", PEOPLE, {T}, rf"\s+{DET}{NUM}",
         before=r"\b(?:issued|issues|gave|gives|give|handed|hands|lent|lends|loaned|assigned|provided)\s*$"),
    rule("OWNS", PEOPLE_OR_ORGS, (T, O, L),
         rf"\s+{AUX}(?:owns|own|owned|bought|buys|buy|purchased|purchases)\s+{NUM}{DET}"),
    rule("OWNED_BY", (T, L, O), (O, P, T),
         rf"\s+{AUX}(?:is |are |was |were )?(?:owned|maintained|managed|run) by\s+{DET}|\s+{AUX}(?:belongs|belong|belonged) to\s+{DET}"),
    rule("ASSIGNED_TO", (T, E), (P, O, T),
         rf"\s+{AUX}(?:is |are |was |were |been )?(?:assigned|reassigned|handed|handed over|given|delegated) to\s+{DET}"),
    rule("ASSIGNED_TO", (T, E), (P, O, T), r"\s+to\s+",
         before=r"\b(?:assigned|assigns|assign|reassigned|handed|hands|delegated|gave|gives)\s+(?:the\s+|a\s+|an\s+|this\s+|that\s+)?$"),
    rule("PART_OF", THINGS, THINGS,
         rf"\s+{AUX}(?:is |are |was |were )?(?:(?:a |an )?part|(?:a|an) (?:component|module|piece|section|subsystem)) of\s+{DET}"),
    rule("PARTNER_WITH", {O}, {O},
         rf"\s+{AUX}(?:partners|partner|partnered|partnering|collaborates|collaborated|collaborating|"
         rf"teamed up|cooperates|cooperated|works together|worked together) with\s+{DET}|"
         rf"\s+{AUX}(?:runs|run|ran|has|had|launched|started|operates|signed|formed|announced) (?:a|an) "
         rf"(?:joint|shared|partnership|alliance)(?: [a-z]+){{0,3}}? with\s+{DET}"),
    rule("OCCURRED_AT", {E}, {L},
         rf"\s+{AUX}(?:(?:was|is|will be) )?(?:held|opened|opens|took place|takes place|began|begins|started|starts|"
         rf"happened|happens|ran|runs|closed)?\s*(?:on [^,;]{{1,25}}? )?(?:in|at)\s+{DET}"),
    rule("PARTICIPATED_IN", PEOPLE_OR_ORGS, {E},
         rf"\s+{AUX}(?:attended|attends|attend|spoke at|speaks at|presented at|chaired|chairs|hosted|hosts|held|holds|"
         rf"organi[sz]ed|organi[sz]es|joined|led|leads|took part in|takes part in|participated in|participates in|"
         rf"competed in|exhibited at|sponsored|sponsors|won|ran)\s+{DET}"),
    rule("PARTICIPATED_IN", PEOPLE, {E},
         rf"\s+{AUX}(?:went to|go to|goes to|been to|got back from|came back from|returned from|went on|been on)\s+{DET}",
         retypes=False),
    rule("VISITED", {SPEAKER}, {L},
         rf"\s+{AUX}(?:visited|been to|traveled to|travelled to|flew to|toured)\s+{DET}", retypes=False),
    rule("VOLUNTEERS_AT", {SPEAKER}, (O, L, E),
         rf"\s+{AUX}(?:volunteer|volunteers|volunteered|volunteering)\s+(?:at|for|with)\s+{DET}"),
    rule("FROM", {SPEAKER}, {L},
         rf"\s+{AUX}(?:am|come|came|is|are|was)\s+(?:originally\s+)?from\s+{DET}|"
         r"\s+(?:home (?:country|town|city|state)|hometown|country of origin)\s*(?:,|is|was)?\s*", retypes=False),
    rule("PARENT_OF", {SPEAKER}, {P},
         r"\s+(?:son|daughter|kid|child|baby|boy|girl|stepson|stepdaughter|[a-z]+-year-old)\s*,?\s*"),
    rule("KNOWS", {P}, {P},
         r"\s+(?:neighbour|neighbor|friend|colleague|coworker|co-worker|brother|sister|wife|husband|partner|boss|"
         r"manager|mentor|cousin|father|mother|son|daughter|flatmate|roommate|classmate)\s*,?\s*"),
    rule("KNOWS", PEOPLE, {P},
         rf"\s+{AUX}(?:knows|know|knew|met|meets|befriended|married|is friends with|are friends with)\s+"),
    # Only words that say two names are one ("Toby is German Shepherd" names a breed, no other name of Toby): an
    # alias phrase, or "is" after a name one signs or writes as ("who signs as J. Marchetti is Giulia Marchetti").
    rule("ALIAS_OF", {P}, {P},
         r"\s*,?\s+(?:also known as|aka|a\.k\.a\.|known as|who writes as|who signs as|writing as)\s+"),
    rule("ALIAS_OF", {P}, {P}, r"\s+(?:is|was)\s+",
         before=r"\b(?:signs?|signed|signing|writes?|wrote|writing|goes|went|known|performs?|posts?)\s+(?:by|as|under)\s+$"),
]

# A verb with no object mention in its clause: the latest event before it is what it refers to.
IMPLICIT_EVENT = re.compile(
    rf"\s+{AUX}(?:spoke|speaks|presented|presents|gave (?:a|the) (?:talk|keynote|speech)|attended|"
    rf"sent (?:a|an) (?:delegation|team)|exhibited|performed|competed|took part|participated)\b"
)
# A plural subject whose members know each other: "the two met", "both are friends".
MUTUAL_ACQUAINTANCE = re.compile(rf"\s+{AUX}(?:met|meet|know each other|are friends|became friends|have known)\b")


@dataclass(frozen=True)
class PreferenceForm:
    """A way of stating a preference: what opens it, its polarity, and how the stored statement reads.

    The topic is the pattern's own `topic` group ("Guitar's my thing") or else the text after the
    opening, up to the end of its clause; `statement` may also use the pattern's other groups
    ("favourite {about}: {topic}").
    """

    pattern: re.Pattern
    polarity: str
    statement: str


def preference_form(pattern: str, polarity: str, statement: str) -> PreferenceForm:
    return PreferenceForm(re.compile(pattern, re.IGNORECASE), polarity, statement)


FIRST_PERSON = r"\b(?:i|we)(?:\s+(?:really|strongly|much|always|usually|absolutely|totally|just|also|still|truly|so))*\s+"
FIRST_PERSON_IS = r"\b(?:i['’]m|i\s+am|we['’]re|we\s+are)\s+(?:(?:really|so|very|such|a|an|big|huge|great|massive|real|true|longtime|long-time)\s+)*"
# "Wanting" is left out: "I want to help people" is a plan, not a preference.
PREFERENCE_FORMS = [
    preference_form(rf"{FIRST_PERSON}prefer\s+|\b(?:i|we)(?:['’]d|\s+would)\s+(?:much\s+)?rather\s+", "positive", "prefers {topic}"),
    preference_form(rf"{FIRST_PERSON}(?:like|love|enjoy|adore|loved|enjoyed|adored)\s+|\bmy\s+love\s+(?:of|for)\s+",
                    "positive", "likes {topic}"),
    preference_form(rf"{FIRST_PERSON}(?:hate|dislike|detest|avoid|can['’]t stand|cannot stand)\s+", "negative", "dislikes {topic}"),
    preference_form(rf"{FIRST_PERSON}(?:do\s+not|don['’]t|never)\s+(?:like|enjoy|eat|drink)\s+", "negative", "dislikes {topic}"),
    # Not wanting a kind of thing; not wanting a particular one ("I don't want Eternals") is a choice, and not
    # wanting others to do something ("I don't want them to suffer") a wish.
    preference_form(rf"{FIRST_PERSON}(?:do\s+not|don['’]t|never)\s+want\s+(?=(?-i:[a-z]))(?!to\b|[^.!?,;]*?\bto\s)", "negative",
                    "dislikes {topic}"),
    preference_form(rf"(?:{FIRST_PERSON_IS}|\b(?:i|we)(?:['’]ve|\s+have)\s+(?:always\s+)?been\s+(?:really\s+)?)"
                    r"(?:fans?\s+of|into|keen on|passionate about|obsessed with|crazy about)\s+", "positive", "likes {topic}"),
    preference_form(rf"(?:{FIRST_PERSON}(?:feel|felt)\s+|{FIRST_PERSON_IS})drawn\s+to\s+", "positive", "likes {topic}"),
    preference_form(r"\bmy\s+favou?rite\s+(?P<about>[a-z ]+?)\s+(?:is|are)\s+", "positive", "favourite {about}: {topic}"),
    preference_form(r"(?:^|(?<=[.!?;,])\s*|\b(?:but|and)\s+)(?P<topic>(?!(?:but|and|so|it|that|this)\b)[a-z][\w'’ -]{1,40}?)(?:['’]s|\s+is|\s+are|\s+has been)\s+"
                    r"(?:(?:really|so|very|mostly|always|truly|just)\s+)?"
                    r"(?:important to me|my (?:passion|thing|jam|top pick|go-to|happy place|favou?rite(?: thing)?))\b",
                    "positive", "likes {topic}"),
    preference_form(r"(?:^|(?<=[.!?;,])\s*|\b(?:but|and)\s+)(?P<topic>(?!(?:but|and|so|it|that|this|they|he|she|you)\b)"
                    r"[a-z][\w'’ -]{1,40}?)\s+(?:(?:sure|really|always|do|does)\s+)*brings?\s+(?:me\s+|us\s+)?"
                    r"(?:so\s+much\s+|a\s+lot\s+of\s+|such\s+|great\s+)?joy\b", "positive", "likes {topic}"),
    preference_form(r"(?:^|(?<=[.!?;,])\s*|\b(?:but|and)\s+)(?P<topic>[\"“]?(?!(?:but|and|so|it|that|this|they|he|she|you)\b)"
                    r"[a-z][\w'’ -]{1,40}?[\"”]?)\s+(?:(?:really|always|truly|sure|still|just|has|have)\s+)*"
                    r"(?:means?\s+(?:so\s+much|a\s+lot|the\s+world|everything)\s+to\s+me|"
                    r"ha(?:s|ve)\s+(?:a\s+lot\s+of|so\s+much|great|special)\s+(?:significance|meaning)\s+(?:for|to)\s+me|"
                    r"(?:is|are)\s+(?:a|an)\s+(?:important|big|huge|special)\s+part\s+of\s+my\s+life|"
                    r"makes?\s+me\s+(?:so\s+|really\s+|very\s+)?happy|(?:keeps?|kept)\s+me\s+going)\b",
                    "positive", "likes {topic}"),
    preference_form(r"\bplease\s+(?P<lead>always)\s+", "positive", "{lead} {topic}"),
    preference_form(r"\bplease\s+(?P<lead>never|don['’]t|do not)\s+", "negative", "{lead} {topic}"),
]
# Where a preference's topic ends: the sentence, a dash, "but", a comma or "and" before a new clause, or a
# trailing "so much", "too", "since I was a kid", so that the same liking said twice has one topic.
TOPIC_END = re.compile(r"[.!?;]|(?<=\w)[\"”]|\s*[-–—]\s+|\s+but\s+|,\s+(?=(?:it|that|which|so|and i|i|we|they|you|this|there)\b)"
                       # "serving my country in this way", "dance and fashion so combining them lets me ...": the liking
                       # ends before the words that point back at the turn or start a new clause
                       r"|\s+(?:in\s+)?(?:this|that)\s+way\b|\s+like\s+(?:this|that)\b"
                       r"|\s+so\s+(?=(?:\w+ing|it|i|we|they|that|this|my|the)\b)"
                       r"|\s+and\s+(?=(?:it|i|that|this|we|how|what|why|where|when)\b)"
                       r"|\s+(?:so much|a lot|too|as well|even more|these days|anymore|any more|lately|nowadays|since|when|whenever|because|['’]cause|if)\b",
                       re.IGNORECASE)
# A pronoun that points back inside its own topic ("helping the community and making it a better place"), not at the
# turn: the topic still reads alone.
INTERNAL_REFERENCE = re.compile(r"\band\s+\w+ing\s+(?:it|them)\b", re.IGNORECASE)
# A topic that is only a reference or a clause ("I love it", "I love that you came") says nothing by itself.
REFERENCE_TOPIC = re.compile(r"^(?:it|that|this|them|these|those|you|him|her|how|what|when|where|who|why|when)\b",
                             re.IGNORECASE)
# A wish for now ("I like to see a comedy tonight") or for a particular thing ("I like to see Scream at Cinemark",
# "to see that with my brother") is a request, not a standing preference.
REQUEST_TOPIC = re.compile(r"\b(?:tonight|today|now|right away|this (?:morning|afternoon|evening|week))\b|"
                           r"^to\s+(?:see|watch|get|order|book|buy|have|try)\s+(?:(?:that|it|this)\b|(?-i:[A-Z]))", re.IGNORECASE)


# A value set on a thing ("the session timeout IS 30 minutes") or the time it was moved to: one at a time.
VALUE_PREDICATES = frozenset({"IS", "SCHEDULED_FOR", "MOVED_TO"})


def predicate_cardinality(predicate: str) -> str:
    """Return "single" when a new value of `predicate` replaces the old one (an employer, an attribute, a value set),
    else "multi"."""
    single = predicate in settings.SINGLE_VALUED_PREDICATES or predicate.startswith("HAS_") or predicate in VALUE_PREDICATES
    return "single" if single else "multi"


TOPIC_NOISE = re.compile(r"^(?:(?:the|a|an|my|our|some|any|to|of)\s+|[\"“‘'])+|[\s.,;:!?\"”'’]+$")


def preference_topic(text: str) -> str:
    """Return the normal form of what a preference is about: "The spicy  food!" -> "spicy food"."""
    return TOPIC_NOISE.sub("", re.sub(r"\s+", " ", text.strip().lower())).strip()


# Words that say how much or whose, not what: "all dances", "my dogs", "really good food".
TOPIC_KEY_NOISE = frozenset(
    "the a an my our your his her their its this that these those all any some every each much many more most lot "
    "lots of to and or so very really just also too such kind sort bit little few whole other".split())


def preference_topic_key(topic: str) -> str:
    """Return what makes two topics one preference: their content words' stems, in order of first appearance.

    "dancing", "Dance" and "all dances" are one preference ("danc"); "contemporary dance" is another.
    """
    words = re.findall(r"[a-z0-9]+", topic.lower())
    stems = [english_stem(w) for w in words if w not in TOPIC_KEY_NOISE]
    return " ".join(dict.fromkeys(stems)) or preference_topic(topic)


# How one takes part in a liking, not what it is: "getting lost in fantasy stories" is fantasy, "going on hikes" hiking,
# "a good cup of coffee" coffee (stems, as preference_topic_key gives them). A specific word ("contemporary dance")
# makes another preference.
ENGAGING_STEMS = frozenset(map(english_stem,
    "get getting go going went lost lose spend spending time times listen listening watch watching play playing do doing "
    "take taking make making have having enjoy enjoying stories story things stuff world worlds kind sort type whole "
    "good great nice cup bit new favourite favorite especially really always every day days morning mornings evening "
    "evenings night nights weekend weekends moment moments book books read in on at for with to into out about from by "
    "up".split()))
# Two statements of one person, category and polarity whose vectors are this close (cosine of "likes X" and "likes Y")
# say one liking in other words: "horror movies" and "scary films" (0.85), "cats" and "kittens" (0.84); "dance" and
# "contemporary dance" (0.79), "cats" and "dogs" (0.76) are two. bench_conversations counts topics 0.80 alike as one.
SAME_MEANING_COSINE = 0.80


def preference_stems(topic: str) -> frozenset[str]:
    """Return the stems of a topic's content words, as preference_topic_key orders them."""
    return frozenset(preference_topic_key(topic).split())


def preferences_same_meaning(stems: frozenset[str], other: frozenset[str], *, cosine: float | None = None) -> bool:
    """Return whether two topics of one person's preferences (of one category), by their preference_stems, are one
    liking in other words.

    The same content words ("dancing", "all dances"), one topic's words inside the other's with only words of how one
    takes part added ("fantasy", "getting lost in fantasy stories"), or, given the cosine of their statements' vectors
    (of one polarity), at least SAME_MEANING_COSINE.
    """
    shorter, longer = sorted((stems, other), key=len)
    if shorter and shorter <= longer and longer - shorter <= ENGAGING_STEMS:
        return True
    return cosine is not None and cosine >= SAME_MEANING_COSINE
