package correction

// The word lists below are hand-written judgment calls: they mark which
// dictionary forms collide with ordinary English or with common first
// names, so that the engine asks for context before touching them.
// They are functions so that the package holds no mutable state; NewEngine
// turns them into sets once.

// bookNeverWords returns single-word book forms that are never corrected
// on their own, even with a number after them: English words and names
// that a sermon uses far more often than the book. Forms of one or two
// letters are never used either.
func bookNeverWords() []string {
	return []string{
		"act", "bar", "bel", "col", "dan", "gal", "gen", "hag", "hos", "jam",
		"joe", "jon", "kin", "lam", "levi", "mar", "mat", "mic", "mica", "num",
		"numb", "number", "pet", "phil", "philip", "plasma", "plasmas", "pro",
		"sir", "sol", "son", "song", "songs", "sus", "tit", "tob", "wis",
		"wisd", "wisdom", "sam", "tim", "amo", "palm", "palls", "plaa", "pass",
		"passs", "sing", "deu", "ester", "hebrew", "roman", "plas", "rev",
		"josh", "ben", "jn",
	}
}

// bookNeverPrefixedWords returns forms that are never a book after an
// ordinal ("first mark", "1 song").
func bookNeverPrefixedWords() []string {
	return []string{"mark", "song", "songs", "son", "sol", "wisdom", "acts", "act", "kin", "king"}
}

// bookEnglishWords returns single-word book forms that are ordinary
// English words: they need a reference (or "the book of") to change.
func bookEnglishWords() []string {
	return []string{
		"acts", "actss", "job", "mark", "numbers", "judges", "kings", "chronicle",
		"chronicles", "proverb", "proverbs", "preverb", "preverbs",
		"lamentation", "lamentations", "revelation", "revelations", "psalm", "psalms", "palms",
		"genesis", "exodus", "philippines", "corinthian", "ephesian",
		"galatian", "salm", "salms", "king", "chronicals", "exode",
	}
}

// bookCommonNameWords returns book forms that are common first names:
// without a reference they are left alone ("john said").
func bookCommonNameWords() []string {
	return []string{
		"john", "james", "peter", "luke", "matthew", "mathew", "mark", "timothy",
		"titus", "jude", "ruth", "esther", "daniel", "joel", "amos", "jonah",
		"micah", "samuel", "samuels", "joshua", "judith", "susanna", "susannah",
		"isaiah", "jeremiah", "ezekiel", "malachi", "zachariah", "tobias",
		"ezra", "shoshana", "zacharia", "azariah", "jame", "micha",
	}
}

// bookRareNameWords returns book forms that are names of prophets rarely
// given to people today: lowercase without a reference they are only
// suggested.
func bookRareNameWords() []string {
	return []string{
		"nehemiah", "hosea", "obadiah", "nahum", "haggai", "habakkuk",
		"zephaniah", "zechariah", "baruch", "tobit", "esra", "danial",
		"philemon", "sirach", "maccabees",
	}
}

// placeStopWords returns place names and spellings that are English
// words, common first names, or too short to tell apart from other words.
func placeStopWords() []string {
	return []string{
		"ai", "hai", "adam", "angle", "ar", "arab", "argo", "ariel", "beer",
		"bered", "cherub", "cos", "coos", "cun", "chun", "dor", "dura", "east",
		"ether", "gob", "gog", "ham", "hara", "heres", "hena", "iron", "koa",
		"kue", "lehi", "lod", "lud", "luz", "madmen", "media", "millo",
		"mortar", "neah", "nob", "nod", "north", "south", "ono", "pau", "punt",
		"put", "phut", "river", "rama", "salem", "sin", "sur", "tema", "tob",
		"ulai", "umah", "ummah", "ur", "ura", "uz", "zer", "ama", "ain",
		"aven", "anab", "anem", "aner", "anim", "atad", "avva", "ava", "arva",
		"ebez", "abez", "elim", "enam", "esek", "etam", "etah", "ezel", "ezem",
		"azem", "geba", "gaba", "giah", "goah", "gur", "hali", "iim", "ijim",
		"iyim", "ijon", "jaar", "kain", "cain", "kir", "secu", "seku", "sechu",
		"sutu", "zair", "zela", "zelah", "zior", "ziz", "zuph", "shen", "shema",
		"shoa", "shur", "suph", "upu", "uqnu", "selah", "sela", "lower", "proud",
		"skull", "jews", "jewish", "jewry", "tyre", "ephah", "nimrod", "myra",
		"aaron", "laban", "terah", "nahor", "gomer", "tamar", "zimri",
		"meshach", "jeshua", "plain", "mount", "olive", "grove", "abel", "dan",
		"on", "no", "tower", "sea", "valley", "desert", "wilderness", "brook",
		"hill", "gate", "field", "city", "land", "house", "rock", "well",
		"pool", "spring", "mountain", "garden", "island", "islands", "coast",
		"west", "holy", "greek", "greeks", "arabs", "asians", "plains",
		"marsh", "sheep", "horse", "fish", "water", "waters", "king", "kings",
		"dung", "potsherd", "valley", "camp", "heights", "nile", "amen",
		"bela", "kinah", "hosah", "pai", "aloth", "arah", "eleph", "rakkon",
		"jabez", "mesha", "kitron", "tahath", "rekem", "ephron", "hepher",
		"jehud", "shimron", "timnah", "enaim", "iron", "madon", "adar",
		"gilo", "maroth", "tolad", "ephrain", "abana", "misgab", "hadid",
		"japhia", "naamah", "eder", "edar", "ophni", "beten", "helkath",
		"beautiful", "holiest", "hollow", "lowland", "pavement", "straight",
		"token", "temple", "salmon", "median", "gentile", "hebel", "helek",
		"mizar", "herob", "kerub", "kesil", "medes", "sabeans", "spa",
		"paras", "parah", "tebah", "shual", "immer", "hilen", "hilez",
		"adman", "amate", "amaw", "amad", "amam", "zahab", "lasha", "janim",
	}
}

// fuzzyEnglishWords returns English words that sound like a place name
// and are never fuzzy-matched.
func fuzzyEnglishWords() []string {
	return []string{
		"caramel", "carmen", "gather", "gathered", "batter", "bitter", "better",
		"beautiful", "sermon", "simon", "salmon", "summon", "common", "cannon",
		"canon", "season", "lesson", "listen", "lessons", "station", "nation",
		"nations", "million", "billion", "person", "prison", "poison", "reason",
		"heaven", "heavens", "hebrew", "hebrews", "mission", "period",
		"market", "marked", "mirror", "mother", "matter", "master", "mister",
		"minister", "manner", "member", "moment", "mention", "modern", "merry",
		"carry", "career", "ceremony", "samaritan", "samaritans",
		"galilean", "galileans", "egyptians", "egyptian", "israelites",
		"israelite", "philistine", "philistines", "roman", "romans",
		"sardine", "sardines", "tarsal", "tiger", "tigers", "shalom", "sirens",
		"serene", "median", "medina", "salami", "selma", "cinema", "senior",
		"senate", "tension", "tuition", "caution", "custom", "kitten",
		"garden", "golden", "gordon", "harden", "hidden", "heron", "herald",
		"london", "lemon", "linen", "lebanese", "dragon", "decade", "design",
		"devote", "doting", "rammed", "remote", "remedy", "remain", "remains",
		"romance", "ransom", "random", "redeem", "redeemed", "reader",
		"readers", "retain", "return", "rotten", "batman", "bottom", "button",
		"beacon", "beckon", "broken", "temple", "temples", "simple", "sample",
		"damage", "demand", "domain", "bethel", "berean", "bereans",
		"syrians", "assyrians", "babylonian", "babylonians", "persian",
		"persians", "ephesians", "galatians", "colossians", "philippians",
		"corinthians", "thessalonians", "hebrews", "romans", "cretans",
		"moabite", "moabites", "edomite", "edomites", "canaanite",
		"canaanites", "nazarene", "nazarenes", "pharisee", "pharisees",
		"sadducee", "sadducees", "levite", "levites", "gentile", "gentiles",
		"timothy", "titus", "philemon", "jeremiah", "isaiah", "ezekiel",
		"daniel", "hosea", "nahum", "samuel", "joshua", "judges", "esther",
		"nehemiah", "malachi", "zechariah", "zephaniah", "haggai",
		"habakkuk", "obadiah", "matthew", "mathew", "jonathan", "solomon",
		"abraham", "israel", "ishmael", "michael", "gabriel", "raphael",
		"rachel", "mitchell", "marshal", "martial", "mortal", "metal",
		"mental", "manual", "annual", "animal", "channel", "kennel", "tunnel",
		"funnel", "panel", "camel", "camels", "cancel", "hammer", "humble",
		"mumble", "tumble", "symbol", "cymbal", "cymbals", "jubilee",
		"gallery", "galley", "salary", "celery", "calorie", "carrier",
		"berries", "barrier", "theory", "hearing", "herring", "bearing",
		"ashore", "assure", "rather", "father", "feather", "heather",
		"hither", "thither", "whither", "wither", "either", "neither",
		// People of the sermons, never a misheard place.
		"jesus", "christ", "moses", "david", "elijah", "elisha", "joseph", "mary", "martha",
		"satan", "judas", "herod", "pilate", "lazarus", "stephen", "barnabas", "silas", "aaron",
		"jacob", "isaac", "sarah", "rebekah", "gideon", "samson", "saul", "goliath", "noah",
		"abram", "lydia", "priscilla", "apollos", "nicodemus", "zacchaeus", "thomas", "andrew",
		"philip", "simon", "bartholomew", "caleb", "deborah", "hannah", "naomi", "boaz", "jesse",
	}
}

func toSet(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// bookAdjectiveWords returns book forms that are an adjective or a
// demonym in English: "the Galatian believers", "an Ephesian household",
// "Roman roads". They name a book only before a reference.
func bookAdjectiveWords() []string {
	return []string{
		"galatian", "ephesian", "corinthian", "philippian", "colossian",
		"thessalonian", "roman", "hebrew", "philippines",
	}
}

// bookGarbledWords returns English-word books that a misheard everyday
// phrase produces ("in acts" for "in fact", "in numbers"): without a
// reference they get no suggestion.
func bookGarbledWords() []string {
	return []string{"acts", "actss", "numbers", "mark", "palms", "philippines"}
}

// commonPlaceWords returns the ordinary words of multi-word place names:
// a phrase whose only words to capitalise are these ("the holy city",
// "the high places", "the most holy place", "the city of David") is left
// as written.
func commonPlaceWords() []string {
	return []string{
		"city", "holy", "place", "places", "most", "high", "great", "sea", "valley",
		"mount", "mountain", "gate", "house", "field", "land", "upper", "lower", "inner",
		"outer", "old", "new", "tower", "pool", "road", "way", "hill", "river", "brook",
		"well", "garden", "spring", "stone", "rock", "wall", "walls", "court", "temple",
		"of", "the", "lake", "plain", "desert", "wilderness", "north", "south", "east",
		"west", "sanctuary", "king", "kings", "fountain", "waters", "water",
	}
}

// chapterEnglishWords returns English words often said before "chapter"
// or a number, never taken for a misheard book before them: "another
// chapter", "the final chapter", "gather 12 people".
func chapterEnglishWords() []string {
	return []string{
		"another", "next", "previous", "whole", "first", "second", "third", "last", "this", "that",
		"every", "each", "same", "final", "opening", "other", "entire", "following", "earlier",
		"later", "different", "single", "brief", "short", "great", "closing", "whole", "these",
		"those", "chapters", "verses", "pages", "number", "numbers", "about", "around", "nearly",
		"almost", "exactly", "roughly", "under", "over", "after", "before", "since", "until",
		"between", "within", "during", "seven", "eight", "three", "times", "hours", "years",
		"minutes", "people", "games", "rings", "kinds", "miles", "points", "dollars",
		"read", "reads", "reading", "like", "likes", "ride", "road", "rode", "red", "rid", "rod",
	}
}
