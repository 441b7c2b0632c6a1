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
		rng := sc.isAny(k, "through", "thru")
		if rng || sc.isAny(k, "and", "or", "to", "then", "nor") {
			k += step
		}
		if !sc.has(k) || k < 0 {
			continue
		}
		if step < 0 {
			// The name before ends at k; it starts at most three tokens back.
			for s := k; s >= 0 && s >= k-3; s-- {
				if m.plainBookAt(s, k, rng) {
					return true
				}
			}
			continue
		}
		if m.plainBookAt(k, -1, rng) {
			return true
		}
	}
	return false
}

// plainBookAt reports whether a book's name that is no English word, no
// person's name and no demonym starts at token s (and ends at token e,
// if e is not -1); in a range ("genesis through malachi") any book's name
// but a misheard phrase's.
func (m *matcher) plainBookAt(s, e int, rng bool) bool {
	if s < 0 || !m.sc.has(s) || m.sc.tok(s).digits() {
		return false
	}
	n, _, _ := m.key(s)
	var buf [8]cand
	stopNode, stopJ := m.stopNode, m.stopJ
	cs := m.walk(s, n, &buf)
	m.stopNode, m.stopJ = stopNode, stopJ
	for _, c := range cs {
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
