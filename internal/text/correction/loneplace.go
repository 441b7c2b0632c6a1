package correction

// lonePlace reports whether token i, a capitalised word without a place
// cue, may still be suggested as the well-known place near it: a word of
// seven letters or more that no list of words or names holds, of the
// place's sound and one letter from it ("In Revelations and Acts of the
// Apostles, Capernum"), in a text that is not plainly about something
// else. A short paste has no document to tell what it is about; a word
// so near a biblical place and no word of its own is that place more
// often than not, and is only suggested.
func (m *matcher) lonePlace(i int, near *fuzzyTarget, nearD int) bool {
	sc := m.sc
	t := sc.tok(i)
	if near == nil || nearD != 1 || t.e()-t.s() < 7 || m.notSermon() || sc.isAny(i-1, "to", "from") {
		return false // "Marian said hello to Bethani": a person, as the place cues decided
	}
	lw := string(sc.lowerBytes(i))
	if m.d.fuzzyEnglish[lw] || isEnglishWord(lw) {
		return false
	}
	if _, ok := m.d.englishNear[lw]; ok {
		return false
	}
	if _, ok := m.d.personNear[lw]; ok {
		return false
	}
	_, ok := m.d.modernNames[lw]
	return !ok
}
