package correction

// The evidence of issue 24's fourteenth round (I), found on the transcripts
// of a Bible podcast in the caption shape that no earlier round read (see
// docs/performance.md, "Fourteenth round I").

// bookRun reports whether tokens i..j, a book's name that is also an
// English word or needs a number ("genesis", "lamentations", "kings"),
// stand in a run of books' names: beside two more of them, on both sides
// or on one ("jeremiah lamentations habakkuk", "the books of moses genesis
// exodus leviticus"), or after a book named after its prophet and "and"
// or "or" ("samuel and kings"); not after "of" ("the king of kings"). Three names of books in a
// row, or a prophet's book and a history beside it, are a list of books
// whatever else each word may mean alone.
func (m *matcher) bookRun(i, j int) bool {
	sc := m.sc
	if sc.is(i-1, "of") {
		return false // "the king of kings", "the god of genesis": a title, not a list
	}
	// The names on each side, past one connector, within the sentence.
	l1, lconj := i-1, false
	if c, _ := connector(sc, l1); c {
		l1, lconj = l1-1, sc.isAny(l1, "and", "or")
	}
	fl1 := m.bookWordAt(l1)
	if fl1 != nil && (sentenceBreak(sc, i) || sentenceBreak(sc, l1+1)) {
		fl1 = nil
	}
	r1 := j + 1
	if c, _ := connector(sc, r1); c {
		r1++
	}
	fr1 := m.bookWordAt(r1)
	if fr1 != nil && (sentenceBreak(sc, j+1) || sentenceBreak(sc, r1)) {
		fr1 = nil
	}
	switch {
	case fl1 != nil && fr1 != nil:
		return true
	case fr1 != nil:
		r2 := r1 + 1
		if c, _ := connector(sc, r2); c {
			r2++
		}
		return m.bookWordAt(r2) != nil && !sentenceBreak(sc, r1+1) && !sentenceBreak(sc, r2)
	case fl1 != nil:
		l2 := l1 - 1
		if c, _ := connector(sc, l2); c {
			l2--
		}
		if m.bookWordAt(l2) != nil && !sentenceBreak(sc, l1) && !sentenceBreak(sc, l2+1) {
			return true
		}
		// "samuel and kings": a prophet's or a people's book before "and"
		// or "or"; not after, where a sentence goes on ("kings and john
		// says").
		return lconj && personBook(fl1)
	}
	return false
}

// personBook reports whether f is the name of a book that is a person's
// name too ("samuel", "jeremiah", "habakkuk").
func personBook(f *bookForm) bool {
	return f.risk == riskCommonName || f.risk == riskRareName
}

// bookWordAt returns the form of a book's name that is token k alone,
// numbered or not ("leviticus", "kings", "samuel"), or nil: no misheard
// phrase's word, no adjective and no abbreviation.
func (m *matcher) bookWordAt(k int) *bookForm {
	var buf [8]cand
	for _, c := range m.candsAt(k, &buf) {
		f := c.n.book
		if f == nil || c.j != k || f.garbled || f.adjective || f.kind == kAbbrev || f.kind == kNone {
			continue
		}
		if f.book != nil || f.kind == kUnnumbered {
			return f
		}
	}
	return nil
}

// sentenceBreak reports whether token k, if the text has it, follows the
// end of a sentence.
func sentenceBreak(sc *scanner, k int) bool {
	return k >= 0 && sc.has(k) && sc.afterSentenceEnd(k)
}
