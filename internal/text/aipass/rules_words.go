package aipass

// The word lists below are judgement calls about sermon English. They are
// functions, like the correction engine's lists, so that the package holds
// no mutable state: NewRules turns them into sets.

// rulesBookEnglish returns the book forms that are ordinary English words.
func rulesBookEnglish() []string {
	return []string{
		"acts", "job", "mark", "numbers", "judges", "kings", "chronicle", "chronicles",
		"proverb", "proverbs", "lamentations", "revelation", "revelations", "psalm", "psalms",
		"palms", "genesis", "exodus", "philippines", "song", "songs", "wisdom", "king",
	}
}

// rulesBookNames returns the book forms that are given names, including the
// prophets' names that people rarely bear today.
func rulesBookNames() []string {
	return []string{
		"john", "james", "peter", "luke", "matthew", "mathew", "mark", "timothy", "titus",
		"jude", "ruth", "esther", "daniel", "joel", "amos", "jonah", "micah", "samuel",
		"joshua", "judith", "susanna", "isaiah", "jeremiah", "ezekiel", "malachi", "ezra",
		"zachariah", "nehemiah", "hosea", "obadiah", "nahum", "haggai", "habakkuk",
		"zephaniah", "zechariah", "baruch", "tobit", "philemon", "tobias", "job",
	}
}

// rulesPlaceEnglish returns the place names that are also English words.
func rulesPlaceEnglish() []string {
	return []string{
		"babel", "tarsus", "tabor", "eden", "phoenix", "sodom", "armageddon", "addon",
		"cauda", "marah", "hor", "mash", "seneh", "bamah", "gallim",
	}
}

// rulesPlacePeople returns the place names that are also given names.
func rulesPlacePeople() []string {
	return []string{
		"jordan", "sharon", "bethany", "shiloh", "lydia", "eden", "carmel", "rahab", "esau",
		"judah", "ephraim", "caleb", "tirzah", "elon", "dinah", "tamar",
	}
}

// rulesDeterminers returns the words before a noun that rule out a name.
func rulesDeterminers() []string {
	return []string{
		"a", "an", "the", "my", "his", "her", "our", "your", "their", "its", "this", "that",
		"these", "those", "every", "each", "no", "some", "any", "another", "such", "whose",
	}
}

// rulesTitles returns the words that stand before a person's name.
func rulesTitles() []string {
	return []string{
		"brother", "sister", "pastor", "elder", "deacon", "uncle", "aunt", "auntie", "cousin",
		"mr", "mrs", "ms", "miss", "dr", "saint", "st", "apostle", "prophet", "prophetess",
		"disciple", "friend", "son", "daughter", "wife", "husband", "grandson", "granddaughter",
		"baby", "little", "named", "called", "bishop", "father", "mother", "reverend",
	}
}

// rulesNameVerbs returns the words after a name that make it a person.
func rulesNameVerbs() []string {
	return []string{
		"said", "saw", "told", "asked", "answered", "replied", "went", "came", "was", "were",
		"had", "did", "and", "who", "loved", "built", "walked", "ran", "called", "prayed",
		"took", "gave", "got", "lived", "died", "knew", "looked", "sat", "stood", "left",
		"married", "is", "has", "will", "would", "could", "can", "played", "wants", "wanted",
		"thought", "felt", "heard", "cried", "laughed", "smiled", "whispered", "shouted",
	}
}

// rulesEnglishFollow returns the words after a book form that keep it an
// English word: "my job is", "acts that", "mark my words".
func rulesEnglishFollow() []string {
	return []string{
		"is", "was", "are", "were", "has", "had", "that", "which", "done", "well", "hunting",
		"interview", "interviews", "market", "offer", "offers", "began", "begins", "came",
		"comes", "matter", "matters", "my", "your", "his", "her", "our", "their", "me", "him",
		"us", "them", "it",
	}
}

// rulesCounters returns the nouns after a number that make it a count.
func rulesCounters() []string {
	return []string{
		"years", "year", "times", "time", "days", "day", "hours", "hour", "weeks", "week",
		"months", "month", "minutes", "seconds", "kids", "children", "people", "men", "women",
		"ways", "things", "percent", "dollars", "miles", "points", "pounds", "feet", "steps",
		"more", "less", "others", "sons", "daughters", "brothers", "sisters", "friends",
		"books", "chapters", "verses", "old", "apples", "loaves", "fish", "am", "pm", "o'clock",
	}
}

// rulesLocatives returns the words before a place name that announce it.
func rulesLocatives() []string {
	return []string{
		"in", "to", "from", "at", "near", "of", "toward", "towards", "unto", "into",
		"through", "via", "across", "beyond", "around", "outside", "inside", "within",
		"throughout", "over", "past", "leaving", "left", "reached", "entered", "visited",
		"fled", "onto", "between", "reach", "enter", "visit", "leave", "mount", "river", "on",
	}
}

// rulesPlaceNouns returns the nouns that head a place name: "the city of",
// "the road to", "mount zion".
func rulesPlaceNouns() []string {
	return []string{
		"city", "town", "village", "land", "sea", "road", "way", "region", "district",
		"country", "pool", "garden", "mount", "mountain", "mountains", "valley", "plain",
		"plains", "wilderness", "desert", "hill", "hills", "gate", "gates", "walls", "river",
		"brook", "lake", "people", "king", "queen", "men", "women", "church", "churches",
		"tribe", "province", "coast", "shore", "streets", "temple", "synagogue", "outskirts",
		"borders", "tower", "house", "daughter", "daughters", "god", "plain", "springs",
		"journey", "return", "trip", "road", "waters", "brook", "vale", "fields", "field",
	}
}

// rulesBiblicalPeople returns biblical people whose names, next to a place,
// tell that the place is the biblical one.
func rulesBiblicalPeople() []string {
	return []string{
		"jesus", "christ", "paul", "moses", "david", "abraham", "isaac", "jacob", "elijah",
		"elisha", "pharaoh", "herod", "pilate", "israelites", "disciples", "apostles", "saul",
		"solomon", "nebuchadnezzar", "samaritan", "samaritans", "pharisees", "barnabas",
		"silas", "timothy", "joshua", "gideon", "naaman", "nicodemus", "lazarus", "zacchaeus",
	}
}

// rulesStrongCues returns the words that announce a book even without a
// reference.
func rulesStrongCues() []string {
	return []string{
		"book of", "books of", "gospel of", "gospels of", "gospel according to", "according to",
		"epistle of", "epistle to", "epistles of", "epistles to", "letter of", "letter to",
		"letters of", "letters to", "prophecy of", "the book", "bibles to", "bible to",
	}
}

// rulesMediumCues returns the words that in a sermon usually announce a
// book.
func rulesMediumCues() []string {
	return []string{
		"turn to", "turning to", "turn with me to", "flip to", "open to", "go to",
		"read from", "reading from", "preach from", "preaching from", "passage in",
		"passage from", "text in", "text from", "verse in", "verses in", "writes in",
		"wrote in", "written in", "write in", "says in", "said in", "read in", "found in",
		"quote from", "quoted from", "quoting from", "we see in", "look at", "looking at",
		"study of", "series in", "series on", "chapter of", "chapters of", "verse of",
	}
}

// bookChapterCount is the number of chapters of a book, and for a book of one
// chapter its number of verses.
type bookChapterCount struct {
	name     string // lowercase canonical name
	chapters int
	verses   int
}

// rulesChapters returns the chapters of the books of the Protestant canon
// and of the deuterocanonical books whose numbering is settled.
func rulesChapters() []bookChapterCount {
	return []bookChapterCount{
		{"genesis", 50, 0}, {"exodus", 40, 0}, {"leviticus", 27, 0}, {"numbers", 36, 0},
		{"deuteronomy", 34, 0}, {"joshua", 24, 0}, {"judges", 21, 0}, {"ruth", 4, 0},
		{"1 samuel", 31, 0}, {"2 samuel", 24, 0}, {"1 kings", 22, 0}, {"2 kings", 25, 0},
		{"1 chronicles", 29, 0}, {"2 chronicles", 36, 0}, {"ezra", 10, 0}, {"nehemiah", 13, 0},
		{"esther", 10, 0}, {"job", 42, 0}, {"psalm", 150, 0}, {"psalms", 150, 0},
		{"proverbs", 31, 0}, {"ecclesiastes", 12, 0}, {"song of solomon", 8, 0},
		{"isaiah", 66, 0}, {"jeremiah", 52, 0}, {"lamentations", 5, 0}, {"ezekiel", 48, 0},
		{"daniel", 12, 0}, {"hosea", 14, 0}, {"joel", 3, 0}, {"amos", 9, 0},
		{"obadiah", 1, 21}, {"jonah", 4, 0}, {"micah", 7, 0}, {"nahum", 3, 0},
		{"habakkuk", 3, 0}, {"zephaniah", 3, 0}, {"haggai", 2, 0}, {"zechariah", 14, 0},
		{"malachi", 4, 0}, {"matthew", 28, 0}, {"mark", 16, 0}, {"luke", 24, 0},
		{"john", 21, 0}, {"acts", 28, 0}, {"romans", 16, 0}, {"1 corinthians", 16, 0},
		{"2 corinthians", 13, 0}, {"galatians", 6, 0}, {"ephesians", 6, 0},
		{"philippians", 4, 0}, {"colossians", 4, 0}, {"1 thessalonians", 5, 0},
		{"2 thessalonians", 3, 0}, {"1 timothy", 6, 0}, {"2 timothy", 4, 0}, {"titus", 3, 0},
		{"philemon", 1, 25}, {"hebrews", 13, 0}, {"james", 5, 0}, {"1 peter", 5, 0},
		{"2 peter", 3, 0}, {"1 john", 5, 0}, {"2 john", 1, 13}, {"3 john", 1, 15},
		{"jude", 1, 25}, {"revelation", 22, 0},
		{"tobit", 14, 0}, {"judith", 16, 0}, {"1 maccabees", 16, 0}, {"2 maccabees", 15, 0},
		{"wisdom of solomon", 19, 0}, {"sirach", 51, 0}, {"1 esdras", 9, 0},
		{"2 esdras", 16, 0}, {"3 maccabees", 7, 0}, {"4 maccabees", 18, 0},
		{"susanna", 1, 64}, {"bel and the dragon", 1, 42}, {"prayer of manasseh", 1, 15},
		{"prayer of azariah", 1, 68}, {"song of the three young men", 1, 68},
	}
}
