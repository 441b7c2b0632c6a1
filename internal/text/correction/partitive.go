package correction

// quantityNotChapter reports whether the number a book's name is followed
// by, spoken as a word and ending before token next, counts something
// rather than naming a chapter: "the book of Isaiah, one of the things we
// will see", "and Peter, one of Jesus's disciples". A number word
// directly before "of" is a quantity; "Isaiah chapter one of" names its
// chapter with the word "chapter" and is read as before.
//
// A number word before "out of" is a share: "matthew mark and luke one out
// of every six verses". A number word that is the subject of a comparison
// is quoted, not a chapter: "ecclesiastes two is better than one".
func (m *matcher) quantityNotChapter(next int, spoken, chapterWord bool) bool {
	sc := m.sc
	if !spoken || chapterWord || !sc.has(next) || !sc.plainGap(next-1) {
		return false
	}
	if sc.is(next, "of") || sc.is(next, "out") && sc.is(next+1, "of") || m.pronounOne(next) {
		return true
	}
	return sc.isAny(next, "is", "are") && (sc.is(next+2, "than") || sc.isAny(next+1, "better", "worse", "greater", "more", "less"))
}
