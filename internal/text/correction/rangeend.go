package correction

// ordinalAfterRange reports whether the digit at token d, written right after
// the last number of a range or list ("verses 7 through 18 2 corinthians
// chapter 3", "and 1 to 6 1 peter chapter 3"), is the ordinal of the
// numbered book b that follows, read from token j+1. A range's last number
// closes the reference before, so the next number opens the next one; the
// book's own chapter and verses must read as a reference of that book.
// "romans 8 28 1 john" keeps the number with the reference before: no range
// closed it.
func (m *matcher) ordinalAfterRange(d, j int, b *book) bool {
	sc := m.sc
	if d < 2 || !sc.tok(d-1).digits() || !sc.isAny(d-2, "through", "thru", "to", "and") {
		return false
	}
	return m.parseRefIn(j+1, m.d.bookOf(b.id)).ok
}
