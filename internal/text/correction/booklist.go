package correction

// bookBeside reports whether tokens i..j stand in a list or a range of
// books beside a book's name that says nothing else: "revelations and
// acts of the apostles", "deuteronomy, leviticus and numbers", "genesis
// through malachi". The name on the other side, past "and", "or",
// "through", "to" or nothing, must be no English word, no person's name
// and no demonym ("deuteronomy", "leviticus", "acts of the apostles",
// "ephesians" are; "john", "acts", "romans" are not), so that the list is
// of books whatever else the words beside it mean. It is the evidence a
// short paste has that it speaks of the Bible.
func (m *matcher) bookBeside(i, j int) bool {
	sc := m.sc
	for _, k := range [2]int{j + 1, i - 1} {
		step := 1
		if k < i {
			step = -1
		}
		conj, rng := connector(sc, k)
		if conj {
			k += step
		}
		if !sc.has(k) || k < 0 {
			continue
		}
		if step < 0 {
			// The name before ends at k: one word, or "acts of the
			// apostles", "song of solomon".
			if m.plainBookAt(k, k, rng) || multiBookEnd(sc, k) && (m.plainBookAt(k-3, k, rng) || m.plainBookAt(k-2, k, rng)) {
				return true
			}
			continue
		}
		if m.plainBookAt(k, -1, rng) {
			return true
		}
	}
	return false
}

// nameInList reports, at the cost of a few comparisons, whether tokens
// i..j may stand in a list of books: beside "and", "or", "through" and
// the like, or right after a book the matcher has just found
// ("deuteronomy matthew"). A person's name is read as a listed book
// (see bookBeside) only then: most of them stand in no list.
func (m *matcher) nameInList(i, j int) bool {
	if c, _ := connector(m.sc, j+1); c {
		return true
	}
	if i == 0 {
		return false
	}
	if c, _ := connector(m.sc, i-1); c {
		return true
	}
	return m.found.n > 0 && m.found.end(m.found.last()) == m.sc.tok(i-1).e()
}

// candsAt returns the dictionary's names that start at token k, read into
// buf, without moving the matcher's place (its stop node); none for a token
// that is no word the dictionary holds (most words, at the cost of a bit).
func (m *matcher) candsAt(k int, buf *[8]cand) []cand {
	if k < 0 || !m.sc.has(k) {
		return nil
	}
	if t := m.sc.tok(k); t.digits() || t.flags&tMulti == 0 && m.d.keyBit(t.h) == 0 {
		return nil
	}
	n, _, _ := m.key(k)
	if n == nil {
		return nil
	}
	stopNode, stopJ := m.stopNode, m.stopJ
	cs := m.walk(k, n, buf)
	m.stopNode, m.stopJ = stopNode, stopJ
	return cs
}

// plainBookAt reports whether a book's name that is no English word, no
// person's name and no demonym starts at token s (and ends at token e,
// if e is not -1); in a range ("genesis through malachi") any book's name
// but a misheard phrase's.
func (m *matcher) plainBookAt(s, e int, rng bool) bool {
	var buf [8]cand
	for _, c := range m.candsAt(s, &buf) {
		f := c.n.book
		if f == nil || f.book == nil || f.garbled || f.kind > kAlt {
			continue
		}
		if !rng && (f.risk != riskNone || f.adjective) {
			continue
		}
		if e == -1 || c.j == e {
			return true
		}
	}
	return false
}

// readersName reports whether w names the readers of a letter that
// carries a number, "corinthians" or "thessalonians": a people's name,
// which takes a capital whether it means them or their letter.
func readersName(w string) bool {
	return len(w) >= 11 && (asciiEqualFold(w, "corinthians") || asciiEqualFold(w, "thessalonians"))
}

// connector reports whether token k joins two names of a list ("and",
// "or", "nor", "to", "then") or of a range ("through", "thru").
func connector(sc *scanner, k int) (conj, rng bool) {
	if k < 0 || !sc.has(k) {
		return false, false
	}
	t := sc.tok(k)
	w := sc.text[t.s():t.e()]
	switch c := w[0] | 0x20; len(w) {
	case 2:
		return (c == 'o' || c == 't') && (asciiEqualFold(w, "or") || asciiEqualFold(w, "to")), false
	case 3:
		return (c == 'a' || c == 'n') && (asciiEqualFold(w, "and") || asciiEqualFold(w, "nor")), false
	case 4:
		if c != 't' {
			return false, false
		}
		if asciiEqualFold(w, "thru") {
			return true, true
		}
		return asciiEqualFold(w, "then"), false
	case 7:
		r := c == 't' && asciiEqualFold(w, "through")
		return r, r
	}
	return false, false
}

// multiBookEnd reports whether token k may end a book's name of three or
// four words ("acts of the apostles", "song of solomon", "song of songs").
func multiBookEnd(sc *scanner, k int) bool {
	t := sc.tok(k)
	w := sc.text[t.s():t.e()]
	if len(w) < 5 || len(w) > 8 || w[0]|0x20 != 'a' && w[0]|0x20 != 's' {
		return false
	}
	return asciiEqualFold(w, "apostles") || asciiEqualFold(w, "solomon") || asciiEqualFold(w, "songs")
}
