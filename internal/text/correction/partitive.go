package correction

// quantityNotChapter reports whether the number a book's name is followed
// by, spoken as a word and ending before token next, counts something
// rather than naming a chapter: "the book of Isaiah, one of the things we
// will see", "and Peter, one of Jesus's disciples". A number word
// directly before "of" is a quantity; "Isaiah chapter one of" names its
// chapter with the word "chapter" and is read as before.
func (m *matcher) quantityNotChapter(next int, spoken, chapterWord bool) bool {
	sc := m.sc
	return spoken && !chapterWord && sc.has(next) && sc.plainGap(next-1) && sc.is(next, "of")
}
