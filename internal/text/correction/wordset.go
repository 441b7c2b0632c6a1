package correction

// wordSet is a few lowercase ASCII words that a token is compared with
// by its hash (keyHash, as the scanner hashes every word), so that most
// tokens differ from each word in one comparison.
type wordSet struct {
	// mask has bit h>>56 set for the hash h of each word: most tokens
	// are told from every word of the set by this one bit.
	mask  [4]uint64
	hs    []uint64
	words []string
}

// newWordSet returns the set of the lowercase ASCII words ws.
func newWordSet(ws ...string) wordSet {
	s := wordSet{hs: make([]uint64, len(ws)), words: ws}
	for k, w := range ws {
		s.hs[k] = keyHash(w)
		s.mask[s.hs[k]>>62] |= 1 << (s.hs[k] >> 56 & 63)
	}
	return s
}

// wordSets are the word sets the matcher reads most often.
type wordSets struct {
	chapter, verse, rangeEnd, ofTo, andOr, writing, locative, count, determiner, begin wordSet
	// weak, nounBefore, indefinite and personAfter are the words of
	// matcher.weakCue, determinerBefore, strongCue and personAfter.
	weak, nounBefore, indefinite, personAfter wordSet
}

// newWordSets returns the matcher's word sets.
func newWordSets() wordSets {
	return wordSets{
		chapter:  newWordSet("chapter", "chapters", "ch", "chap"),
		verse:    newWordSet("verse", "verses", "v", "vs"),
		rangeEnd: newWordSet("through", "thru", "to"),
		begin:    newWordSet("beginning", "starting", "begin", "start"),
		ofTo:     newWordSet("of", "to"),
		andOr:    newWordSet("and", "or"),
		writing:  newWordSet("book", "gospel", "epistle", "epistles", "letter", "letters", "books"),
		locative: newWordSet("to", "from", "in", "at", "near", "into", "toward", "towards", "through"),
		count: newWordSet("times", "time", "years", "year", "yrs", "months", "month", "weeks",
			"week", "days", "day", "hours", "hour", "minutes", "minute", "seconds", "dollars", "bucks",
			"cents", "percent", "people", "kids", "children", "men", "women", "miles", "feet", "pounds",
			"more", "less", "of", "old", "or", "out", "points", "grand", "thousand", "hundred", "million",
			"things", "ways", "reasons", "steps", "keys", "lessons", "words", "questions", "marks", "goals"),
		determiner: newWordSet("a", "an", "this", "that", "these", "those", "our", "your", "my", "his", "her", "their", "its",
			"every", "each", "any", "some", "many", "other", "few"),
		weak: newWordSet("in", "to", "from", "read", "reading", "see", "turn", "open", "at"),
		nounBefore: newWordSet("the", "a", "an", "my", "your", "his", "her", "its", "our", "their",
			"this", "that", "these", "those", "some", "any", "all", "both", "no", "every", "each",
			"many", "few", "what", "which", "whose"),
		indefinite:  newWordSet("a", "an", "another", "any", "some", "every", "each", "one", "no"),
		personAfter: newWordSet("said", "asked", "told", "went", "came", "replied", "answered", "who", "and", "was", "had"),
	}
}

// in reports whether token i is one of the words of s, ignoring case.
func (sc *scanner) in(i int, s *wordSet) bool {
	if i < 0 || !sc.has(i) {
		return false
	}
	t := &sc.toks[i-sc.base]
	if s.mask[t.h>>62]>>(t.h>>56&63)&1 == 0 {
		return false
	}
	for k, h := range s.hs {
		if h == t.h {
			return asciiEqualFold(sc.text[t.start:t.end], s.words[k])
		}
	}
	return false
}
