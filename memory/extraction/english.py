"""Word lists of general English that the offline extractor reads: cue words, not names."""

TITLES = {"dr", "mr", "mrs", "ms", "mx", "prof", "sir", "dame", "lord", "lady", "rev", "sen", "rep", "gov", "capt"}
# The same titles written out, and kin, before a name: "Doctor Strange", "Aunt May", "Captain Marvel".
TITLE_WORDS = {"doctor", "professor", "captain", "colonel", "sergeant", "detective", "officer", "judge", "senator",
               "governor", "mayor", "uncle", "aunt", "auntie", "grandma", "grandpa", "cousin"}

CORPORATE_SUFFIXES = {
    "corp", "corporation", "inc", "incorporated", "ltd", "limited", "llc", "plc", "gmbh", "ag", "sa", "nv",
    "bv", "co", "company", "group", "holdings", "lp", "llp",
}
ORGANIZATION_HEADS = CORPORATE_SUFFIXES | {
    "union", "trust", "bank", "university", "college", "school", "institute", "foundation", "association",
    "society", "council", "agency", "ministry", "department", "committee", "club", "party", "robotics",
    "analytics", "logistics", "systems", "technologies", "technology", "labs", "laboratories", "partners",
    "industries", "solutions", "software", "media", "press", "review", "times", "journal", "news", "gazette",
    "airlines", "airways", "motors", "pharmaceuticals", "capital", "ventures", "consulting", "services",
    "enterprises", "hospital", "clinic", "church", "museum", "orchestra", "band", "team", "fc", "league",
    "federation", "commission", "authority", "office", "bureau", "police", "army", "navy", "studio", "studios",
    "network", "networks", "energy", "foods", "brewery", "bakery", "insurance", "finance", "health", "records",
}
EVENT_HEADS = {
    "summit", "conference", "festival", "expo", "exhibition", "forum", "symposium", "congress", "games", "cup",
    "championship", "championships", "olympics", "marathon", "fair", "gala", "meetup", "hackathon", "week",
    "convention", "ceremony", "awards", "tournament", "race", "concert", "election", "war", "month", "day", "parade", "fest",
}
LOCATION_HEADS = {
    "street", "st", "road", "rd", "avenue", "ave", "lane", "boulevard", "square", "park", "bridge", "airport",
    "station", "hall", "building", "tower", "centre", "center", "river", "lake", "mountain", "mountains",
    "island", "islands", "bay", "valley", "county", "province", "city", "district", "harbour", "harbor", "port",
    "beach", "coast", "sea", "ocean", "gardens", "place", "way", "drive", "court", "theatre", "theater", "cinema",
    "restaurant", "cafe", "mall", "zoo", "canyon", "falls", "forest", "desert", "village", "crossing",
    "cliff", "cliffs", "isle", "gulf", "cape",
}
# Places known by name: countries, states and large cities. Names that are as often a person's (Georgia,
# Jordan, Chad, Austin, Charlotte, Sydney, Victoria, Florence, Phoenix, Dallas) are left out.
PLACE_NAMES = {
    "afghanistan", "albania", "algeria", "andorra", "angola", "argentina", "armenia", "australia", "austria",
    "azerbaijan", "bahamas", "bahrain", "bangladesh", "barbados", "belarus", "belgium", "belize", "benin", "bhutan",
    "bolivia", "bosnia", "botswana", "brazil", "brunei", "bulgaria", "burkina faso", "burundi", "cambodia", "cameroon",
    "canada", "cape verde", "chile", "china", "colombia", "congo", "costa rica", "croatia", "cuba", "cyprus", "czechia",
    "czech republic", "denmark", "djibouti", "dominican republic", "ecuador", "egypt", "el salvador", "eritrea",
    "estonia", "eswatini", "ethiopia", "fiji", "finland", "france", "gabon", "gambia", "germany", "ghana", "greece",
    "greenland", "grenada", "guatemala", "guinea", "guyana", "haiti", "honduras", "hong kong", "hungary", "iceland",
    "india", "indonesia", "iran", "iraq", "ireland", "israel", "italy", "jamaica", "japan", "kazakhstan", "kenya",
    "kosovo", "kuwait", "kyrgyzstan", "laos", "latvia", "lebanon", "lesotho", "liberia", "libya", "liechtenstein",
    "lithuania", "luxembourg", "madagascar", "malawi", "malaysia", "maldives", "mali", "malta", "mauritania",
    "mauritius", "mexico", "moldova", "monaco", "mongolia", "montenegro", "morocco", "mozambique", "myanmar", "namibia",
    "nepal", "netherlands", "new zealand", "nicaragua", "niger", "nigeria", "north korea", "north macedonia", "norway",
    "oman", "pakistan", "palestine", "panama", "papua new guinea", "paraguay", "peru", "philippines", "poland",
    "portugal", "puerto rico", "qatar", "romania", "russia", "rwanda", "samoa", "san marino", "saudi arabia", "senegal",
    "serbia", "seychelles", "sierra leone", "singapore", "slovakia", "slovenia", "somalia", "south africa",
    "south korea", "korea", "south sudan", "spain", "sri lanka", "sudan", "suriname", "sweden", "switzerland", "syria",
    "taiwan", "tajikistan", "tanzania", "thailand", "togo", "tonga", "trinidad", "tunisia", "turkey", "turkmenistan",
    "uganda", "ukraine", "united arab emirates", "uae", "united kingdom", "uk", "united states", "usa", "us",
    "america", "uruguay", "uzbekistan", "vanuatu", "vatican", "venezuela", "vietnam", "yemen", "zambia", "zimbabwe",
    "england", "scotland", "wales", "northern ireland", "britain", "great britain", "europe", "asia", "africa",
    "antarctica", "earth", "north america", "south america", "latin america", "scandinavia", "caribbean", "middle east",
    "alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut", "delaware", "florida",
    "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas", "kentucky", "louisiana", "maine", "maryland",
    "massachusetts", "michigan", "minnesota", "mississippi", "missouri", "montana", "nebraska", "nevada",
    "new hampshire", "new jersey", "new mexico", "new york", "north carolina", "north dakota", "ohio", "oklahoma",
    "oregon", "pennsylvania", "rhode island", "south carolina", "south dakota", "tennessee", "texas", "utah",
    "vermont", "virginia", "washington state", "west virginia", "wisconsin", "wyoming", "ontario", "quebec",
    "british columbia", "alberta", "bavaria", "catalonia", "tuscany", "sicily", "provence", "normandy",
    "london", "manchester", "birmingham", "liverpool", "leeds", "glasgow", "edinburgh", "bristol", "cardiff", "belfast",
    "dublin", "paris", "lyon", "marseille", "berlin", "munich", "hamburg", "frankfurt", "cologne", "vienna", "zurich",
    "geneva", "amsterdam", "rotterdam", "brussels", "antwerp", "madrid", "barcelona", "seville", "valencia", "lisbon",
    "porto", "rome", "milan", "naples", "venice", "turin", "athens", "istanbul", "ankara", "prague", "warsaw", "krakow",
    "budapest", "bucharest", "sofia", "belgrade", "zagreb", "copenhagen", "stockholm", "oslo", "helsinki",
    "reykjavik", "tallinn", "riga", "vilnius", "kyiv", "kiev", "moscow", "st petersburg", "cairo", "lagos", "nairobi",
    "accra", "johannesburg", "cape town", "casablanca", "marrakech", "addis ababa", "dubai", "abu dhabi", "doha",
    "riyadh", "tehran", "baghdad", "beirut", "jerusalem", "tel aviv", "mumbai", "delhi", "new delhi", "bangalore",
    "chennai", "kolkata", "karachi", "lahore", "dhaka", "kathmandu", "colombo", "bangkok", "hanoi", "ho chi minh city",
    "singapore", "kuala lumpur", "jakarta", "bali", "manila", "beijing", "shanghai", "shenzhen", "guangzhou",
    "taipei", "seoul", "busan", "tokyo", "osaka", "kyoto", "melbourne", "brisbane", "perth", "adelaide", "auckland",
    "wellington", "toronto", "montreal", "vancouver", "ottawa", "calgary", "new york city", "nyc", "los angeles",
    "san francisco", "san diego", "san jose", "seattle", "portland", "chicago", "boston", "philadelphia", "miami",
    "atlanta", "houston", "denver", "las vegas", "detroit", "minneapolis", "nashville", "new orleans", "baltimore",
    "pittsburgh", "cleveland", "honolulu", "anchorage", "mexico city", "havana", "bogota", "lima", "santiago",
    "buenos aires", "sao paulo", "rio de janeiro", "rio", "caracas", "quito", "montevideo",
}
# Adjectives of nationality or faith: capitalised, yet alone no entity ("Korean food").
DEMONYMS = {
    "american", "british", "english", "scottish", "welsh", "irish", "canadian", "mexican", "brazilian", "argentinian",
    "french", "german", "italian", "spanish", "portuguese", "dutch", "belgian", "swiss", "austrian", "swedish",
    "norwegian", "danish", "finnish", "polish", "czech", "russian", "ukrainian", "greek", "turkish", "chinese",
    "japanese", "korean", "thai", "vietnamese", "indian", "pakistani", "filipino", "indonesian", "australian",
    "african", "nigerian", "kenyan", "ethiopian", "egyptian", "moroccan", "lebanese", "persian", "israeli", "arab",
    "arabic", "european", "asian", "latin", "latino", "latina", "hispanic", "mediterranean", "caribbean", "cuban",
    "jamaican", "christian", "muslim", "jewish", "buddhist", "hindu", "catholic", "protestant", "sikh", "hawaiian",
    "texan", "californian", "cajun", "creole", "peruvian", "colombian", "chilean", "venezuelan", "icelandic",
    "scandinavian", "nordic", "nepalese", "tibetan", "malaysian", "singaporean", "taiwanese", "haitian", "sicilian",
    "neapolitan", "parisian", "bavarian", "iranian", "iraqi", "syrian", "afghan", "bangladeshi", "ghanaian", "somali",
}
# Words that make a name a place wherever they stand in it ("Alamo Drafthouse Cinema South Lamar").
VENUE_WORDS = {"cinema", "cinemas", "theatre", "theater", "restaurant", "cafe", "café", "diner", "bistro", "pub",
               "mall", "stadium", "arena", "gallery", "airport", "hotel", "zoo", "aquarium"}
# Screen formats a cinema's name may end with ("Cinemark 17 and XD", "Century Daly City 20 XD and IMAX"): alone no name.
SCREEN_FORMATS = {"imax", "xd", "3d", "4dx", "rpx", "screenx", "dbox", "d-box"}
STREET_LEADS = {"rua", "rue", "via", "calle", "avenida", "strada", "piazza", "plaza", "praça", "viale", "largo"}
NAME_CONNECTORS = {"of", "do", "da", "dos", "das", "de", "del", "della", "di", "la", "le", "von", "van", "der", "&"}

# Kinds of food and drink, and the words that size or flavour them, capitalised on menus ("a Cappuccino with
# Vanilla", "Oat milk", "Sugar Free Vanilla"): a run of these only is a kind, not a name.
FOOD_AND_DRINK = {
    "coffee", "tea", "latte", "mocha", "cappuccino", "espresso", "macchiato", "americano", "frappuccino", "cortado",
    "chai", "matcha", "milk", "oat", "almond", "soy", "coconut", "vanilla", "caramel", "hazelnut", "chocolate", "cocoa",
    "cinnamon", "honey", "sugar", "syrup", "sauce", "cream", "foam", "lemonade", "juice", "smoothie", "water", "soda",
    "pumpkin", "spice", "peppermint", "mint", "toffee", "butterscotch", "maple", "muffin", "croissant", "bagel",
    "donut", "doughnut", "cookie", "scone", "sandwich", "salad", "soup", "burger", "pizza", "pasta", "fries",
}
FOOD_MODIFIERS = {"iced", "hot", "cold", "decaf", "single", "double", "triple", "small", "medium", "large", "tall",
                  "grande", "venti", "extra", "free", "sugar-free", "skinny", "nonfat", "non-fat", "skim", "whole",
                  "light", "dark", "sweet", "whipped", "steamed", "flat", "white", "black", "green", "shot", "shots"}

# Lowercase nouns that turn a preceding proper name into a place ("the Porto workshop").
PLACE_NOUNS = {
    "hall", "workshop", "office", "offices", "building", "depot", "warehouse", "plant", "factory", "campus",
    "airport", "station", "site", "branch", "store", "shop", "studio", "lab", "headquarters", "venue", "arena",
    "stadium", "hotel", "hospital", "clinic", "school", "library", "centre", "center", "port", "harbour", "yard",
}
PLACE_MODIFIERS = {"conference", "concert", "town", "city", "sports", "exhibition", "main", "regional", "local"}

# Heads of lowercase noun phrases that name things a person or organisation has or uses.
ARTEFACT_NOUNS = {
    "laptop", "computer", "phone", "smartphone", "tablet", "drone", "robot", "arm", "car", "van", "truck",
    "lorry", "bus", "minibus", "bike", "bicycle", "motorbike", "motorcycle", "scooter", "boat", "yacht", "ship",
    "plane", "aircraft", "camera", "printer", "server", "watch", "headphones", "monitor", "keyboard", "machine",
    "device", "vehicle", "tractor", "forklift", "crane", "generator", "piano", "guitar", "violin", "microscope",
    "telescope", "console", "sensor", "scanner", "router", "headset", "kettle", "oven", "fridge", "dishwasher",
    "app", "application", "module", "component", "service", "tool", "library", "package", "repository", "repo",
    "database", "api", "endpoint", "script", "pipeline", "dataset", "dashboard", "task", "plugin", "bot",
}
# Heads of lowercase noun phrases that name events; they need a modifier ("annual safety review").
EVENT_NOUNS = {
    "review", "meeting", "conference", "summit", "workshop", "webinar", "seminar", "hackathon", "festival",
    "ceremony", "wedding", "party", "celebration", "concert", "launch", "offsite", "retreat", "inspection",
    "audit", "trial", "hearing", "interview", "match", "tournament", "race", "exhibition", "fair", "session",
    "parade", "trip", "rally", "group", "class", "run", "fest",
}
# Words that end like adverbs but modify nouns ("the quarterly review", "a family road trip").
LY_ADJECTIVES = {"daily", "weekly", "monthly", "quarterly", "yearly", "early", "friendly", "lovely", "family", "lively",
                 "lonely", "elderly", "costly", "silly", "ugly", "holy", "chilly", "curly", "hourly", "nightly"}
NUMBER_WORDS = {
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "dozen",
    "several", "many", "some", "few", "both",
}
DETERMINERS = {"a", "an", "the", "its", "their", "his", "her", "our", "my", "your", "this", "that", "these", "those"}

# A "the <noun>" that refers back to the latest entity of a type ("the firm" -> an organisation).
GENERIC_NOUNS = {
    "firm": "ORGANIZATION", "company": "ORGANIZATION", "business": "ORGANIZATION", "organisation": "ORGANIZATION",
    "organization": "ORGANIZATION", "employer": "ORGANIZATION", "startup": "ORGANIZATION", "charity": "ORGANIZATION",
    "teams": "ORGANIZATION", "companies": "ORGANIZATION", "firms": "ORGANIZATION", "organisations": "ORGANIZATION",
    "city": "LOCATION", "town": "LOCATION", "village": "LOCATION", "country": "LOCATION",
    "event": "EVENT", "session": "EVENT", "meeting": "EVENT", "conference": "EVENT", "summit": "EVENT",
    "ceremony": "EVENT", "festival": "EVENT",
    "device": "OBJECT", "machine": "OBJECT", "vehicle": "OBJECT",
}

PERSON_PRONOUNS = {"he", "him", "his", "she", "her", "hers", "himself", "herself"}
THING_PRONOUNS = {"it", "its", "itself"}
SPEAKER_PRONOUNS = {"i", "me", "my", "mine", "myself"}

MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
    "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}
WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
            "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"}

# Words that are capitalised only because they start a sentence (or are "I"); never names on their own.
FUNCTION_WORDS = DETERMINERS | NUMBER_WORDS | PERSON_PRONOUNS | THING_PRONOUNS | SPEAKER_PRONOUNS | {
    "i", "we", "you", "they", "them", "us", "our", "there", "here", "when", "while", "after", "before", "since",
    "then", "yesterday", "today", "tomorrow", "last", "next", "if", "but", "and", "or", "so", "yet", "also",
    "however", "although", "though", "because", "as", "at", "in", "on", "for", "from", "with", "by", "to", "of",
    "what", "which", "who", "whom", "whose", "where", "why", "how", "all", "each", "every", "no", "not", "yes",
    "please", "thanks", "thank", "hi", "hello", "hey", "ok", "okay", "sure", "well", "now", "just", "still",
    "once", "another", "other", "such", "only", "even", "neither", "either", "let", "lets", "sounds", "good",
    "great", "maybe", "perhaps", "any", "none", "is", "are", "was", "were", "do", "does", "did", "has", "have",
    "had", "can", "could", "will", "would", "should", "might", "must", "ask", "tell", "remind", "ping", "invite",
    "everyone", "everybody", "someone", "somebody", "anyone", "anybody", "nobody", "apparently",
}
# Words that open a chat sentence, greet or exclaim: never part of a name there ("Wow Sam" names Sam).
INTERJECTIONS = {
    "wow", "woah", "whoa", "oh", "ooh", "oooh", "ah", "aah", "aw", "aww", "awww", "yeah", "yea", "yep", "yup", "yes",
    "nope", "nah", "hey", "hi", "hiya", "hello", "howdy", "yo", "bye", "goodbye", "congrats", "congratulations",
    "thanks", "thank", "cheers", "yay", "woohoo", "woo", "hooray", "haha", "hahaha", "lol", "omg", "gosh", "geez",
    "jeez", "hmm", "hm", "um", "umm", "uh", "ugh", "oops", "phew", "ha", "cool", "nice", "great", "awesome",
    "amazing", "wonderful", "fantastic", "brilliant", "lovely", "sweet", "super", "incredible", "sorry", "absolutely",
    "definitely", "totally", "exactly", "indeed", "sure", "right", "true", "agreed", "alright", "okay", "ok", "well",
    "good", "glad", "go", "remember", "dear", "dude", "man", "welcome", "morning", "evening", "night", "bravo",
    "kudos", "damn", "darn", "seriously", "honestly", "really", "same", "wanna", "gonna", "gotta", "please", "love",
    "hugs", "best", "happy", "exciting", "impressive", "beautiful", "stunning", "perfect", "fair", "interesting",
    "ya", "anytime", "huh", "later", "cya",
}
# Words said to someone just before their name ("thanks Sam", "bye Jon").
GREETINGS = {"thanks", "thank", "hey", "hi", "hello", "bye", "goodbye", "congrats", "congratulations", "cheers", "sorry",
             "welcome", "night", "morning", "dear", "yo", "go", "ya", "anytime", "huh", "later", "cya"}
# Wishes and thanks borrowed from other languages, capitalised as a name is ("Bon Voyage!"): no name.
SET_PHRASES = {"bon voyage", "bon appetit", "bon appétit", "au revoir", "mazel tov", "feliz navidad", "hasta la vista",
               "buen camino", "bon courage", "voila", "voilà", "ciao", "adios", "namaste", "gracias", "merci", "danke"}
# Prepositions that open a sentence before a name, never a name's first word ("Besides Italy, I was in Turkey").
OPENING_PREPOSITIONS = {"besides", "despite", "unlike", "during", "without", "within", "beyond", "except", "among",
                        "amongst", "between", "behind", "beneath", "beside", "throughout", "towards", "toward", "upon",
                        "regarding", "concerning"}
# Praise or sympathy said just before a name and a pause: "That is really great Jon!", "so sorry Jon."
PRAISE_BEFORE_ADDRESS = {"great", "awesome", "amazing", "cool", "nice", "wonderful", "fantastic", "brilliant", "lovely",
                         "sweet", "super", "incredible", "sorry", "congrats", "congratulations", "bravo", "kudos",
                         "impressive", "beautiful", "stunning", "perfect", "exciting"}
# Words that judge rather than state: "Boston's music scene is awesome" is an opinion, not an attribute.
EVALUATIONS = PRAISE_BEFORE_ADDRESS | {"good", "bad", "fun", "great", "terrible", "awful", "boring", "crazy", "wild", "fab",
                                       "epic", "cute", "adorable", "gorgeous", "special", "magical", "hard", "tough"}
# Chat abbreviations written in capitals: not organisations.
CHAT_ABBREVIATIONS = {
    "ok", "btw", "lol", "omg", "tbh", "imo", "imho", "fyi", "asap", "brb", "idk", "ngl", "ty", "thx", "pls", "plz",
    "rn", "irl", "dm", "ikr", "smh", "np", "lmk", "jk", "ps", "xoxo", "lmao", "rofl", "afaik", "tbf", "fwiw", "wtf",
    "ttyl", "gg", "ily", "bff", "diy", "aka", "rsvp", "ootd", "tgif", "am", "pm",
}
# Abbreviations written in capitals that name no organisation ("the TV", "my PC"), and film ratings.
COMMON_ABBREVIATIONS = {"tv", "pc", "dj", "id", "usb", "gps", "atm", "suv", "dvd", "cd", "faq", "vip", "pdf", "url",
                        "wifi", "sms", "mba", "phd", "bbq", "ac", "pt"}
MEDIA_RATINGS = {"g", "pg", "pg-13", "r", "nc-17", "tv-y", "tv-g", "tv-pg", "tv-14", "tv-ma", "u", "12a", "15", "18"}
# Job titles written in capitals ("as CTO"): roles, not organisations.
ROLE_TITLES = {"ceo", "cto", "cfo", "coo", "cio", "cmo", "cpo", "ciso", "vp", "svp", "evp", "gm", "md"}

# Titles of films, books and shows are written in title case: a capitalised one of these inside a sentence opens
# one ("Where is No Time To Die playing", "My Hero Academia"), and these lowercase words stand inside one
# ("No Time to Die", "Last Night in Soho").
TITLE_OPENERS = DETERMINERS | NUMBER_WORDS | {"no", "let", "before", "after", "last", "all", "how", "what"}
TITLE_SMALL_WORDS = {"a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "as", "vs"}

# What a film or show is watched by, and what tickets are for: "watching The Last of Us", "tickets for Belfast".
SCREENING_VERBS = {"watch", "watched", "watching", "rewatch", "rewatched", "stream", "streaming", "binge", "binged",
                   "playing", "showing", "screening"}
# Verbs of using a thing: what follows is a thing ("playing Civilization VI", "drove the Prius").
USE_VERBS = {"play", "plays", "played", "playing", "drive", "drives", "drove", "driving", "ride", "rode", "riding",
             "install", "installed", "download", "downloaded", "bought", "buy", "read", "reading"}
# Words of going somewhere: "went to X", "a trip to X" (but not "said goodbye to X").
TRAVEL_WORDS = {"go", "goes", "went", "going", "gone", "come", "came", "coming", "move", "moved", "moving", "travel",
                "travelled", "traveled", "traveling", "travelling", "trip", "flew", "fly", "flight", "drove", "drive",
                "headed", "heading", "return", "returned", "back", "visit", "visited", "road", "way", "welcome", "got"}
# Words of posting: "posted it on X", "followers on X".
POSTING_WORDS = {"post", "posts", "posted", "posting", "share", "shares", "sharing", "follow", "followers", "found",
                 "saw", "seen", "watch", "watched", "video", "videos", "page", "account", "live", "upload", "uploaded",
                 "message", "messaged", "chat", "chatted", "group", "app"}
SCREENING_NOUNS = {"ticket", "tickets", "showtime", "showtimes", "showing", "showings", "screening", "screenings"}

# Auxiliaries after a sentence opener: "Life is good" as much as "Halima is a member", so the opener is a
# name only when a relation rule takes it.
AUXILIARIES = {
    "is", "was", "are", "were", "has", "had", "have", "did", "does", "do", "will", "would", "can", "could", "might",
    "may", "should", "must",
}
# Verbs (and auxiliaries) after which a capitalised sentence opener is read as a name ("Ilse joined ...").
CLAUSE_VERBS = AUXILIARIES | {
    "joined", "joins", "join", "works", "worked", "work", "lives", "lived", "moved",
    "moves", "relocated", "resides", "started", "starts", "left", "leaves", "quit", "became", "becomes", "uses",
    "used", "owns", "owned", "bought", "acquired", "assigned", "depends", "relies", "belongs", "met", "knows",
    "called", "said", "says", "spoke", "attended", "manages", "managed", "leads", "led", "runs", "ran", "hired",
    "signed", "founded", "reported", "reports", "sent", "wrote", "asked", "told", "visited", "hosted", "chaired",
}
# Verb forms a single name does not take ("Hard work pays", "Setbacks are"): the opener before them is no name.
PLURAL_VERBS = {"are", "were", "have", "do", "join", "work", "live", "use", "own", "move", "start", "leave", "know"}
# Past-tense verbs that, opening a chat sentence, leave out an "I" ("Just got back from ...", "Moved to Leeds").
IMPLIED_SUBJECT_VERBS = {"got", "went", "moved", "relocated", "started", "joined", "met", "attended", "visited",
                         "returned", "came", "finished"}
# Adverbs that may stand between a subject and its verb ("Wendell no longer lives").
VERB_ADVERBS = {
    "never", "not", "no", "longer", "still", "just", "also", "already", "now", "recently", "finally", "then",
    "both", "only", "always", "often", "usually", "soon", "once", "first",
}

NEGATION = r"\b(?:not|never|neither|nor|cannot|no)\b|n['’]t\b"
# Statements that something held only in the past ("used to live", "formerly worked").
ENDED = r"\b(?:used to|formerly|previously)\b"
# Hedges: what might be, would be or is planned is not stated as a fact. Lower-case "may" only (not the month).
HEDGE = (r"(?i:\b(?:might|could|would|should|perhaps|maybe|possibly|probably|likely|unlikely|if|whether|"
         r"plans? to|planning to|hopes? to|hoping to|wants? to|considering|thinking (?:of|about)|expects? to|"
         r"supposedly|rumou?red)\b)|\bmay\b")
# What is to come, or would be: "I'll let you know when I'm in Boston", "I'd go", "gonna", "can't wait to".
# Lower-case "will" only (not the name).
FUTURE = (r"(?i:['’]ll\b|['’]d\b|\b(?:shall|gonna|wanna|going to|about to|someday|one day|upcoming|"
          r"can['’]t wait|cannot wait|looking forward|wish|hope|dream of|"
          r"when\s+(?:i|we)(?:['’]m|['’]re|\s+am|\s+are|\s+get|\s+go|\s+come|\s+visit|\s+have))\b)|\bwill\b")
# "the owner of X is Y" names a relation rather than a plain attribute.
ATTRIBUTE_RELATIONS = {"owner": "OWNED_BY", "assignee": "ASSIGNED_TO", "location": "LOCATED_AT", "employer": "EMPLOYED_BY"}
# Attributes read from "X has <attribute> <value>"; with "of" or "'s" any noun is an attribute.
HAS_ATTRIBUTES = {
    "status", "priority", "severity", "state", "owner", "deadline", "version", "role", "title", "stage", "phase",
    "level", "budget", "rating", "score", "size", "timezone", "assignee",
}

# Occupations: "I'm an assistant manager" states the person's role (with "at X" it states an employer too).
JOB_NOUNS = {
    "manager", "engineer", "developer", "programmer", "designer", "teacher", "nurse", "doctor", "lawyer", "student",
    "banker", "chef", "cook", "writer", "artist", "painter", "musician", "accountant", "scientist", "researcher",
    "consultant", "analyst", "architect", "pilot", "driver", "mechanic", "electrician", "plumber", "carpenter",
    "firefighter", "paramedic", "pharmacist", "dentist", "therapist", "counselor", "counsellor", "librarian",
    "journalist", "photographer", "cashier", "waiter", "waitress", "barista", "baker", "farmer", "soldier", "officer",
    "intern", "professor", "lecturer", "tutor", "coach", "trainer", "instructor", "dancer", "actor", "actress", "singer",
    "editor", "producer", "clerk", "receptionist", "secretary", "technician", "surgeon", "vet", "veterinarian",
    "entrepreneur", "freelancer", "director", "supervisor", "administrator", "specialist", "assistant",
}
# Groups a person belongs to when they say "my ...": "my dance crew", "my book club".
GROUP_NOUNS = {"crew", "band", "team", "club", "choir", "troupe", "squad", "ensemble", "orchestra", "league", "chapter"}
# Groups one joins: "I joined a nearby church", "a service-focused online group".
JOINED_GROUPS = GROUP_NOUNS | {"group", "gym", "church", "program", "programme", "brigade", "society", "community",
                               "organization", "organisation", "union", "circle", "class", "course", "association"}
# What a person plays: "I started playing acoustic guitar".
INSTRUMENTS = {"guitar", "piano", "violin", "cello", "drums", "bass", "ukulele", "flute", "clarinet", "saxophone", "sax",
               "trumpet", "trombone", "harp", "keyboard", "banjo", "mandolin", "harmonica", "viola", "accordion", "organ"}
# What a speaker states as "my <attribute> is <value>": facts about the person, one value at a time.
SPEAKER_ATTRIBUTES = {"name", "nickname", "first name", "last name", "middle name", "surname", "birthday", "pronouns",
                      "email", "email address"}

PREFERENCE_CATEGORIES = {
    "food": {"eat", "eating", "food", "vegetarian", "vegan", "coffee", "tea", "cuisine", "restaurant", "dish",
             "meal", "meals", "drink", "drinks", "spicy", "sushi", "pizza", "breakfast", "lunch", "dinner", "gluten",
             "meat", "milk", "latte", "cappuccino", "espresso", "chocolate", "sweet", "sweets", "dessert", "curry",
             "cooking", "baking", "vegetables", "fruit", "wine", "beer", "cheese"},
    "communication": {"email", "emails", "call", "calls", "phone", "message", "messages", "text", "texts", "reply",
                      "replies", "slack", "contact", "chat", "voicemail"},
    "style": {"bullet", "bullets", "short", "concise", "brief", "detailed", "format", "formal", "informal", "tone",
              "answers", "answer", "responses", "response", "summaries", "summary", "examples", "emoji", "emojis"},
    "travel": {"flight", "flights", "seat", "seats", "aisle", "window", "hotel", "hotels", "train", "trains",
               "travel", "travelling", "traveling", "airline", "layover", "layovers"},
    "schedule": {"morning", "mornings", "evening", "evenings", "afternoon", "afternoons", "meeting", "meetings",
                 "weekend", "weekends", "early", "late", "schedule", "calendar"},
    "technology": {"python", "editor", "framework", "linux", "mac", "windows", "vim", "emacs", "ide", "language",
                   "database", "library", "tool", "tools", "dark", "mode", "typescript", "rust", "java"},
    "entertainment": {"music", "film", "films", "movie", "movies", "book", "books", "novels", "sport", "sports",
                      "football", "podcast", "podcasts", "games", "series", "jazz", "reading", "novel", "show", "shows",
                      "tv", "concert", "concerts", "dancing", "dance", "dances", "singing", "guitar", "piano", "violin",
                      "drums", "painting", "drawing", "art", "pottery", "photography", "gaming", "hiking", "running",
                      "swimming", "cycling", "climbing", "yoga", "kickboxing", "surfing", "camping", "song", "songs"},
}

# How people report at work: a verb that frames the clause it reports ("Reviewer flagged that ...", "Ingestor reported
# the pipeline depends on ..."). A decision's clause may say what will be ("decided the project will use X").
REPORTING_VERBS = {
    "reported", "reports", "noted", "notes", "flagged", "flags", "found", "confirmed", "confirms", "determined",
    "identified", "detected", "discovered", "observed", "noticed", "mentioned", "said", "says", "stated", "announced",
    "explained", "indicated", "pointed out", "highlighted", "warned", "logged", "recorded", "documented", "verified",
    "established", "realised", "realized", "learned", "learnt", "saw", "shared", "wrote", "told", "informed",
    "reminded", "clarified", "stressed", "emphasised", "emphasized", "checked", "double-checked", "measured",
    "decided", "agreed", "concluded", "resolved", "ruled", "committed", "settled",
}
# What only someone does to a name after it ("Ruairi assigned", "Mel said") or to the name it is done to ("ask Lowri
# to", "thank Priya"): a name there is a person's, whatever its words.
PERSON_VERBS = {"said", "says", "told", "tells", "asked", "asks", "wrote", "thinks", "thought", "feels", "felt",
                "decided", "agreed", "promised", "assigned", "replied", "answered", "laughed", "smiled", "cried",
                "texted", "called", "emailed", "messaged", "apologised", "apologized", "volunteered"}
PERSON_OBJECT_VERBS = {"ask", "asked", "tell", "told", "remind", "reminded", "invited", "thank", "thanked", "texted",
                       "emailed", "hug", "hugged", "marry", "married", "dated"}
DECISION_VERBS = {"decided", "agreed", "concluded", "resolved", "ruled", "committed", "settled", "determined"}
# Verbs that relate two things at work, in their base form: "AuthModule depends on RateLimiter", "Source_A reports
# a 23% adoption increase". Irregular forms are listed; the rest are inflected by rule.
RELATING_VERBS = {
    "use", "depend", "rely", "call", "read", "write", "feed", "consume", "produce", "return", "report", "show",
    "contradict", "require", "need", "block", "include", "contain", "exceed", "affect", "impact", "cause", "break",
    "support", "replace", "supersede", "duplicate", "reference", "target", "serve", "host", "run", "own", "manage",
    "maintain", "handle", "lead", "cover", "trigger", "throw", "hit", "reach", "miss", "conflict", "integrate",
    "connect", "point", "link", "belong", "wrap", "import", "export", "send", "receive", "publish", "store", "cache",
    "process", "ingest", "generate", "deliver", "expose", "fix", "resolve", "address", "cost", "govern", "track",
    "monitor", "emit", "load", "query", "overlap", "match", "violate", "follow", "precede", "outperform", "fund",
    "sponsor", "cite", "list", "specify", "define", "limit", "restrict", "allow", "prevent", "drive", "power",
    "underpin", "invalidate", "total", "average", "span", "hold", "reuse", "extend", "override", "inherit",
}
IRREGULAR_VERBS = {  # base: (third person, past, past participle)
    "run": ("runs", "ran", "run"), "lead": ("leads", "led", "led"), "feed": ("feeds", "fed", "fed"),
    "read": ("reads", "read", "read"), "write": ("writes", "wrote", "written"), "send": ("sends", "sent", "sent"),
    "break": ("breaks", "broke", "broken"), "hit": ("hits", "hit", "hit"), "cost": ("costs", "cost", "cost"),
    "hold": ("holds", "held", "held"), "throw": ("throws", "threw", "thrown"), "show": ("shows", "showed", "shown"),
    "drive": ("drives", "drove", "driven"), "override": ("overrides", "overrode", "overridden"),
}
# Past participles that relate a thing to another by a preposition: "owned by", "tied to", "scheduled for".
RELATING_PARTICIPLES = {
    "owned", "managed", "maintained", "run", "handled", "led", "scheduled", "assigned", "contracted", "tied",
    "linked", "related", "traced", "caused", "triggered", "blocked", "approved", "hosted", "deployed", "funded",
    "backed", "written", "built", "signed", "reviewed", "published", "capped", "limited", "configured", "planned",
    "booked", "delayed", "postponed", "replaced", "superseded", "affected", "impacted", "covered", "used",
    "consumed", "stored", "powered", "driven", "served", "supported", "sponsored", "governed", "tracked",
    "monitored", "attributed", "caught", "fixed", "resolved", "sourced", "produced", "generated", "reported",
    "escalated", "shared", "outsourced", "licensed", "priced", "billed", "staffed",
}
# Adverbs that stand between a subject and its verb, or before a value, in a report.
CLAUSE_ADVERBS = {
    "now", "still", "also", "already", "just", "currently", "directly", "really", "actually", "definitely", "recently",
    "officially", "finally", "only", "mostly", "partially", "partly", "fully", "clearly", "apparently", "reportedly",
    "heavily", "entirely", "mainly", "largely", "primarily", "slightly", "significantly", "consistently", "frequently",
    "usually", "typically", "temporarily", "permanently", "automatically", "manually", "successfully", "immediately",
    "eventually", "initially", "originally", "formally", "nearly", "roughly", "approximately", "exactly", "solely",
    "jointly", "internally", "externally", "explicitly", "indirectly", "technically", "effectively", "indeed", "again",
    "always", "often", "sometimes", "even", "once", "first", "then", "newly",
}
# Companies and platforms people name in chat, known by name as places are: organisations, whatever precedes them.
ORGANIZATION_NAMES = {
    "facebook", "instagram", "tiktok", "youtube", "twitter", "snapchat", "linkedin", "whatsapp", "pinterest", "reddit",
    "discord", "twitch", "netflix", "hulu", "spotify", "amazon", "google", "apple", "microsoft", "meta", "uber", "lyft",
    "airbnb", "doordash", "door dash", "etsy", "ebay", "paypal", "venmo", "zoom", "slack", "starbucks", "walmart",
    "costco", "ikea", "nike", "adidas", "tesla", "toyota", "honda", "ford", "bmw", "mercedes", "nintendo", "sony",
    "samsung", "disney", "pixar", "marvel", "openai", "nasa", "unicef", "red cross", "peloton", "duolingo",
}

# Nouns that say what a name next to them is: "Woodhaven, a small town", "my colleague Rob", "a cat named Bailey",
# "the band Coldplay". Pets are left out: a pet is as rightly a PERSON as the OBJECT it is typed by default.
KIND_NOUNS = {
    **dict.fromkeys(("friend", "buddy", "pal", "singer", "artist", "musician", "rapper", "songwriter", "author",
                     "writer", "poet", "novelist", "actor", "actress", "director", "painter", "photographer", "player",
                     "athlete", "coach", "teacher", "professor", "mentor", "colleague", "coworker", "co-worker",
                     "classmate", "roommate", "neighbor", "neighbour", "boss", "guy", "girl", "boy", "woman", "man",
                     "lady", "person", "someone", "veteran", "kid", "son", "daughter", "brother", "sister", "mom",
                     "mum", "dad", "mother", "father", "wife", "husband", "girlfriend", "boyfriend", "fiance",
                     "fiancé", "fiancee", "grandma", "grandpa", "grandmother", "grandfather", "nephew", "niece",
                     "student", "nurse", "therapist", "chef", "comedian", "dancer", "drummer", "guitarist",
                     "composer", "designer", "instructor", "trainer"), "PERSON"),
    **dict.fromkeys(("town", "city", "village", "country", "state", "island", "neighborhood", "neighbourhood",
                     "suburb", "region", "beach", "lake", "mountain", "river", "park", "resort", "county", "province",
                     "hometown", "restaurant", "cafe", "café", "bar", "pub", "bakery", "gym", "hotel", "venue"),
                    "LOCATION"),
    **dict.fromkeys(("company", "brand", "band", "charity", "organization", "organisation", "nonprofit", "startup",
                     "shelter", "firm", "label", "team", "club", "agency", "university", "college"), "ORGANIZATION"),
    **dict.fromkeys(("book", "novel", "film", "movie", "game", "song", "album", "show", "series", "podcast", "app",
                     "painting", "track", "musical", "documentary", "poem", "anime", "manga", "comic"), "OBJECT"),
    **dict.fromkeys(("festival", "conference", "concert", "tournament", "convention", "marathon", "parade",
                     "competition"), "EVENT"),
}
