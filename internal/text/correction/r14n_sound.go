package correction

// The evidence of issue 24's fourteenth round (N): a misheard place is not
// made automatically into the nearest place of the dictionary when the
// document itself writes another place of the same sound (see
// docs/performance.md, "Fourteenth round N").

// soundWritten returns the place a fuzzy match of token i gives, and its
// confidence, when the whole text is read. Of the places that start with the
// word's letter and share its skeleton (its consonants, vowels and doubled
// letters aside), the one the text writes most often as a word of its own
// is the place the speaker says: a sermon on Acts 16 that writes "bithynia"
// six times means Bithynia by its "bethanya", not the nearer Bethany. When
// that place is not best, the match is no longer automatic: it becomes a
// suggestion of the place the text writes. Suggestions stay as they are.
func (m *matcher) soundWritten(i int, best *fuzzyTarget, conf float64) (*fuzzyTarget, float64) {
	if conf < autoThreshold {
		return best, conf
	}
	sc := m.sc
	lw := sc.lowerBytes(i)
	top, topN := best, m.wordCount(best.lower)
	for _, k := range m.d.placeByLetter[letterIndex(lw[0])] {
		t := &m.d.placeTargets[k]
		if t.lower == best.lower || !sameSkeleton(lw, t.lower) {
			continue
		}
		if c := m.wordCount(t.lower); c > topN {
			top, topN = t, c
		}
	}
	if top == best {
		return best, conf
	}
	return top, 0.7
}

// wordCount returns how many times the text writes name, in any case, as a
// whole word; it reads the text once for each name.
func (m *matcher) wordCount(name string) int {
	if n, ok := m.wordCounts[name]; ok {
		return n
	}
	if m.wordCounts == nil {
		m.wordCounts = map[string]int{}
	}
	n := wordCount(m.sc.text, name)
	m.wordCounts[name] = n
	return n
}

// wordCount returns how many times text holds name, in any case, as a whole
// word.
func wordCount(text, name string) int {
	n := 0
	for i, e := wholeWord(text, name, 0); i >= 0; i, e = wholeWord(text, name, e) {
		n++
	}
	return n
}
