package correction

// Round 14H of issue 24: a word of Tagalog that is also the name of a
// biblical place ("ngayon magdala ka", "bring one now"), on a line of
// Tagalog, is that word. See docs/performance.md, "Fourteenth round H".

// tagalogPlaceWord reports whether lw, a word in lowercase, is a common
// word of Tagalog that is also the name of a place in the Bible (or a word
// of one): magdala ("to bring", not Magdala), kain ("eat", not Kain), anim
// ("six", not Anim), ama ("father"), baka ("maybe", not the valley of
// Baka). Only magdala is a capital the other rules make by itself today;
// the others are read for a document that names the place.
func tagalogPlaceWord(lw string) bool {
	switch lw {
	case "magdala", "kain", "anim", "ama", "baka":
		return true
	}
	return false
}

// tagalogFunctionWord reports whether lw, a word in lowercase, is a
// function word of Tagalog that is no English word: its particles,
// pronouns and adverbs ("ang", "ng", "mga", "hindi", "kung", "ngayon").
func tagalogFunctionWord(lw string) bool {
	switch lw {
	case "ang", "ng", "mga", "sa", "ako", "nang", "ay", "siya", "kami", "tayo", "hindi", "kung", "ka",
		"ko", "mo", "po", "lang", "yung", "'yung", "kasi", "ngayon", "huwag", "wag", "wala", "naman",
		"natin", "namin", "nila", "niya", "kayo", "sila", "iyan", "'yan", "dito", "doon", "diyan",
		"talaga", "dahil", "ito", "iyon", "yun", "kay", "ni", "nga", "din", "rin", "pag", "kapag":
		return true
	}
	return false
}

// tagalogWordCut reports whether add leaves out a lowercase place's
// capital (rulePlaceLowercase) for text[start:end]: a lowercase Tagalog word that is also a place's name
// (tagalogPlaceWord) with two or more of Tagalog's function words on its
// line (tagalogFunctionWord), as mixed captions speak it, in a sermon or
// not.
func (m *matcher) tagalogWordCut(start, end int) bool {
	text := m.sc.text
	if end-start < 3 || end-start > 7 || text[start] < 'a' || text[start] > 'z' ||
		!tagalogPlaceWord(text[start:end]) {
		return false
	}
	lo, hi := lineAround(text, start)
	n := 0
	eachWordIn(text, lo, hi, func(i, j int) {
		var b [8]byte
		if i != start && j-i <= 7 && tagalogFunctionWord(string(appendLower(b[:0], text[i:j]))) {
			n++
		}
	})
	return n >= 2
}
