package correction

// The cues of issue 24's fourteenth round (F), found on the YouTube
// auto-captions of a house church's recorded Bible studies that no earlier
// round read (see docs/performance.md, "Fourteenth round F").

// contractedIs reports whether w, a word ending in "'s", is a pronoun or an
// adverb with "is", "has" or "us" contracted ("it's", "that's", "there's",
// "let's"), not a possessive: "i'm sure it's genesis one" says the book's
// name, where "god's revelation" makes the word a common noun.
func contractedIs(w string) bool {
	if len(w) < 4 || len(w) > 7 {
		return false
	}
	var b [8]byte
	switch string(appendLower(b[:0], w[:len(w)-2])) {
	case "it", "that", "there", "here", "what", "who", "he", "she", "where", "let", "how", "when":
		return true
	}
	return false
}

// pronounOne reports whether the number word before token next, "one",
// is the pronoun of a general statement: before a modal verb ("jesus's
// brother was also named james one might go on"), a count of nothing and
// no chapter of the book named before it.
func (m *matcher) pronounOne(next int) bool {
	sc := m.sc
	return sc.is(next-1, "one") && sc.isAny(next, "might", "could", "would", "should", "must")
}
