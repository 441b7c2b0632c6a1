package correction

import "strings"

// The cues of issue 24's twelfth round (A), found on the YouTube captions of
// guest preachers and a priest's meditations no earlier round read (see
// docs/performance.md, "Twelfth round A").

// theBookCue reports whether tokens i..j, form f, a plural book's name that is also a
// noun or a verb ("psalms", "proverbs", "acts"), are the book after "the": "we're
// told in the psalms", "a phrase from the psalms", "reading through the psalms",
// "all throughout the psalms", "if you read to the psalms", "as the psalms would say",
// "the psalms say", "we're told in the acts". Not "sing the psalms", "the acts
// of the apostles" (another form), "the proverbs of solomon", "one of the
// proverbs".
func (m *matcher) theBookCue(i, j int, f *bookForm) bool {
	if i != j || f.book == nil || f.book.osis != "Ps" && f.book.osis != "Prov" && f.book.osis != "Acts" {
		return false
	}
	sc := m.sc
	if t := sc.tok(i); sc.text[t.e()-1]|0x20 != 's' || !sc.is(i-1, "the") || sc.is(j+1, "of") {
		return false // "psalm", "proverb": no plural; the book's forms are read by the matcher
	}
	return sc.isAny(i-2, "in", "from", "through", "throughout", "into", "to", "on", "upon", "about", "as") && !sc.is(i-3, "one") ||
		sc.isAny(j+1, "say", "says", "tells", "tell") && !sc.is(i-2, "of")
}

// chapterOrdinalAfter reports whether token j, a book's name, is followed by
// "the", an ordinal and "chapter", as a speaker names a chapter: "acts the 2
// chapter", "hebrews the 10th chapter", "numbers the twenty-first chapter".
func (m *matcher) chapterOrdinalAfter(j int) bool {
	sc := m.sc
	if !sc.is(j+1, "the") || !sc.isAny(j+3, "chapter", "chapters") {
		return false
	}
	w := sc.str(j + 2)
	n := 0
	for n < len(w) && w[n] >= '0' && w[n] <= '9' {
		n++
	}
	var b [16]byte
	switch rest := string(appendLower(b[:0], w[n:])); {
	case n > 0 && n <= 3:
		return rest == "" || rest == "st" || rest == "nd" || rest == "rd" || rest == "th"
	case n == 0:
		return ordinalWord(rest)
	}
	return false
}

// ordinalWord reports whether w is an ordinal in words, one to fiftieth, as a
// chapter is named: "second", "tenth", "twenty-first".
func ordinalWord(w string) bool {
	switch w {
	case "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
		"eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
		"eighteenth", "nineteenth", "twentieth", "thirtieth", "fortieth", "fiftieth":
		return true
	}
	for _, tens := range []string{"twenty-", "thirty-", "forty-"} {
		if len(w) > len(tens) && w[:len(tens)] == tens {
			return ordinalWord(w[len(tens):])
		}
	}
	return false
}

// stopPlaceCue reports whether a place name that is also an English word,
// and so no place on its own ("tyre", "rama", "nile"), is the place at tokens
// i..j: a place of the Bible's most mentioned (200 mentions or more) after a
// place noun and "of" ("the region of tyre", "the territory of tyre"), or
// joined by "and" or "or" to a place of the dictionary ("tyre and sidon",
// "sidon and tyre", "sodom or tyre or sidon").
func (m *matcher) stopPlaceCue(i, j int, p *placeForm) bool {
	sc := m.sc
	if i != j || !cuedStop(p) || sc.firstUpper(i) {
		return false
	}
	if m.placeOf(i) || sc.is(i-1, "of") && sc.isAny(i-2, "territory", "borders", "parts", "district", "country", "province") {
		return true
	}
	return sc.isAny(j+1, "and", "or") && m.plainPlace(j+2) || sc.isAny(i-1, "and", "or") && m.plainPlace(i-2)
}

// plainPlace reports whether token k is, alone, a place of the dictionary that
// is no English word: "sidon", "Sidon".
func (m *matcher) plainPlace(k int) bool {
	if k < 0 || !m.sc.has(k) {
		return false
	}
	n, _, _ := m.key(k)
	return n != nil && n.place != nil && !n.place.stop && len(n.place.words) == 1
}

// restatedVerse reports whether the bare number read as r's verse (r.bareVerse,
// no range) is followed
// by the word "verse" and a number, which names the verse again: "romans 8 4
// verse 14" (8, "for", verse 14). The reference is left as written.
func (m *matcher) restatedVerse(r *ref) bool {
	sc := m.sc
	k := r.verseTok + 1
	if !sc.has(k) {
		return false
	}
	if t := sc.tok(k); t.e()-t.s() < 5 || t.e()-t.s() > 6 || sc.text[t.s()]|0x20 != 'v' {
		return false // most words, without a comparison
	}
	return sc.isAny(k, "verse", "verses") && sc.plainGap(r.verseTok)
}

// noBookOfItsOwn reports whether f names a family of numbered books and no
// book on its own ("timothy", "samuel", "corinthians", "peter"): a reference
// written after it would name a book the Bible does not have ("Timothy 1:19",
// "Samuel 16"), so it is left as written; its capital stays.
func noBookOfItsOwn(f *bookForm) bool {
	return f.book == nil && f.fam != nil
}

// cuedStop reports whether p, a place name that is also an English word, is
// one of the Bible's most mentioned places (200 mentions or more, three
// letters or more: "tyre", "rama", "nile"), which stopPlaceCue may take with a
// cue.
func cuedStop(p *placeForm) bool {
	return p.stop && p.mentions >= 200 && len(p.name) >= 3
}

// gluedVerse returns the verse that token k writes glued to the word "verse"
// shortened, as YouTube's newer captions do ("acts chapter 1 vers8", "first
// John 1 ver9", "john 8 vers12"), if chapter of book b (0 for a book not known)
// has it, or 0.
func (m *matcher) gluedVerse(k int, b uint8, chapter int) int {
	sc := m.sc
	if t := sc.tok(k); t.e()-t.s() < 4 || t.e()-t.s() > 8 || sc.text[t.s()]|0x20 != 'v' {
		return 0 // most words, read without a string: "and", "verse", "12"
	}
	w := sc.str(k)
	n := 0
	switch {
	case len(w) > 5 && strings.EqualFold(w[:5], "verse"):
		n = 5
	case len(w) > 4 && strings.EqualFold(w[:4], "vers"):
		n = 4
	case len(w) > 3 && strings.EqualFold(w[:3], "ver"):
		n = 3
	default:
		return 0
	}
	if len(w)-n > 3 {
		return 0
	}
	v := 0
	for _, c := range []byte(w[n:]) {
		if c < '0' || c > '9' {
			return 0
		}
		v = v*10 + int(c-'0')
	}
	if v < 1 || v > 176 || b != 0 && !m.d.hasVerse(b, chapter, v) {
		return 0
	}
	return v
}

// chapterOfCue reports whether "chapter of" or "chapters of" before token i
// follows a word that points at one chapter among a book's, as "the first
// chapter of" does (strongCue): "another chapter of acts", "this chapter of
// revelation", "every chapter of numbers".
func (m *matcher) chapterOfCue(i int) bool {
	return m.sc.isAny(i-3, "another", "this", "that", "each", "every")
}
