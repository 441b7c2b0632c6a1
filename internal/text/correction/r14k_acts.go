package correction

// The cues of issue 24's fourteenth round (K), found on Catholic Sunday
// reflections on the lectionary's readings in the caption shape that no
// earlier round read (see docs/performance.md, "Fourteenth round K").

// actsReading reports whether tokens i..j, form f, "acts" alone, are the
// book as a lectionary names a reading: after "from" and a word for a
// reading ("the reading from acts", "the selection from acts", "our first
// reading from acts"), or before "of apostles" ("described in the acts of
// apostles"). "Acts" after "from" and another word ("from acts of
// kindness", "from evil acts") stays the noun.
func (m *matcher) actsReading(i, j int, f *bookForm) bool {
	if i != j || f.book == nil || f.book.osis != "Acts" || !m.sc.is(i, "acts") {
		return false
	}
	sc := m.sc
	if sc.is(j+1, "of") {
		return sc.is(j+2, "apostles") || sc.is(j+2, "the") && sc.is(j+3, "apostles")
	}
	return sc.is(i-1, "from") && sc.isAny(i-2, "reading", "readings", "selection", "passage", "lesson", "excerpt")
}
