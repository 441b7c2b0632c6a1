package correction

// The cues of issue 24's fourteenth round (P), found on more churches'
// podcast feed transcripts in the caption shape (see docs/performance.md,
// "Fourteenth round P").

// basedOnCue reports whether tokens before token i, a book's name that is
// an English word, say what a sermon's practice or teaching rests on:
// "based on", "based upon", "based off" or "based off of" ("429 bracelets
// based upon acts 429"), in a sermon. Not Numbers, whose name before a
// number is as often a count ("a decision based on numbers 20 years old").
func (m *matcher) basedOnCue(i int, f *bookForm) bool {
	if f.book == nil || f.book.osis == "Num" || !m.sermon() {
		return false
	}
	sc := m.sc
	k := i - 1
	if sc.is(k, "of") && sc.is(k-1, "off") {
		k--
	}
	return sc.isAny(k, "on", "upon", "off") && sc.is(k-1, "based")
}
