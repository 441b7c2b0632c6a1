package correction

// bookMemo remembers, for one text, a yes-or-no answer about each book (by
// dict.bookOf): a rule that reads the whole text for a book reads it once,
// however many times the text names the book, so that the cost of a text
// stays linear in its length.
type bookMemo struct {
	read, yes [2]uint64
}

// get returns the answer for book b, from f the first time.
func (bm *bookMemo) get(b uint8, f func() bool) bool {
	bit := uint64(1) << (b & 63)
	if bm.read[b>>6]&bit == 0 {
		bm.read[b>>6] |= bit
		if f() {
			bm.yes[b>>6] |= bit
		}
	}
	return bm.yes[b>>6]&bit != 0
}
