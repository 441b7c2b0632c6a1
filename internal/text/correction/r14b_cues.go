package correction

// The cues of issue 24's fourteenth round (B), found on the YouTube
// auto-captions of a Los Angeles deliverance ministry's services that no
// earlier round read (see docs/performance.md, "Fourteenth round B").

// plainNounBook reports whether tokens i..j, form f, a book's name that is
// also an English plural noun and that a cue of a sermon would take for the
// book, are the noun:
//   - "palms" where the document says "palm" as a word of its own ("palm
//     sunday", "palm branches", "the palm of your hand"): a speaker who talks
//     of palms means the trees and the hands, not the Psalms, however often
//     the sermon cites a psalm ("that moment of the palms" on Palm Sunday);
//   - "acts", "judges" or "numbers" after a word that follows a determiner
//     ("those wicked acts", "their evil acts", "these unjust judges") or
//     after an adjective of deeds ("wicked acts", "evil acts"): the noun
//     phrase's head, deeds and not the book, even in a sermon that cited
//     Acts.
func (m *matcher) plainNounBook(i, j int, f *bookForm) bool {
	if i != j || f.book == nil {
		return false
	}
	sc := m.sc
	switch f.book.osis {
	case "Ps":
		return sc.is(i, "palms") && (containsWord(sc.text, "palm") || containsWord(sc.text, "Palm"))
	case "Acts", "Judg", "Num":
		if sc.isAny(i-1, "wicked", "evil", "sinful", "violent", "random", "heroic", "selfless", "unjust",
			"righteous", "unrighteous", "shameful", "criminal", "kind", "mighty") {
			return true
		}
		if !sc.in(i-2, &sc.d.ws.determiner) || !sc.has(i-1) || sc.tok(i-1).digits() {
			return false
		}
		return !sc.isAny(i-1, "in", "of", "to", "from", "into", "through", "and", "or", "the", "book", "whole", "entire")
	case "Rev":
		// The theologian's kinds of revelation: "progressive revelation", "natural
		// revelation", "special revelation" (round 14G).
		return sc.isAny(i-1, "progressive", "natural", "special", "general", "divine", "supernatural",
			"direct", "personal", "private", "prophetic", "propositional", "incremental", "gradual",
			"ongoing", "continuing", "continuous", "further", "fuller", "partial", "subsequent", "biblical",
			"scriptural", "verbal")
	}
	return false
}

// actsChurch reports whether tokens i..j, form f, "acts" after an article or
// a determiner and before "church", are the book: "this is like the acts
// church that i've been reading my whole life", "an acts church". The
// church of the book of Acts is a sermon's phrase; "acts" is no adjective of
// "church" in English.
func (m *matcher) actsChurch(i, j int, f *bookForm) bool {
	if i != j || f.book == nil || f.book.osis != "Acts" {
		return false
	}
	sc := m.sc
	return sc.isAny(j+1, "church", "churches") && (sc.isAny(i-1, "the", "a", "an") || sc.in(i-1, &sc.d.ws.determiner))
}
