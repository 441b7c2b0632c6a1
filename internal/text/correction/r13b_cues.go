package correction

// The cues of issue 24's thirteenth round (B), found on the interpreted
// conference sermons of a Swedish church no earlier round read (see
// docs/performance.md, "Thirteenth round B").

// pairedWisdomBook reports whether tokens i..j, form f, "psalms" or
// "proverbs" after "the", are the book because the other of the two is named
// beside it, after "the" too, with or without "and" or "or" between: "we
// have been called the psalms the proverbs they talk constantly about god's
// plans", "read the proverbs and the psalms". Two plural nouns that are both
// books of the Bible, each with its article, name the books: a speaker sings
// psalms or quotes proverbs, but does not list the two. Not "the psalms and
// hymns" (no second book), "psalms and proverbs" (no article: the songs
// and sayings) nor either before "of" ("the proverbs of our village").
func (m *matcher) pairedWisdomBook(i, j int, f *bookForm) bool {
	if i != j || f.book == nil || f.book.osis != "Ps" && f.book.osis != "Prov" {
		return false
	}
	sc := m.sc
	if !sc.is(i-1, "the") || sc.is(j+1, "of") {
		return false
	}
	other := "proverbs"
	if f.book.osis == "Prov" {
		other = "psalms"
	}
	k := j + 1 // after: "the psalms (and) the proverbs"
	if sc.isAny(k, "and", "or") {
		k++
	}
	if sc.is(k, "the") && sc.is(k+1, other) {
		return !sc.is(k+2, "of")
	}
	k = i - 2 // before: "the proverbs (and) the psalms"
	if sc.isAny(k, "and", "or") {
		k--
	}
	return sc.is(k, other) && sc.is(k-1, "the")
}
