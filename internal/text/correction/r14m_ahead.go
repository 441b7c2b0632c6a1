package correction

import "strings"

// The evidence of issue 24's fourteenth round (M), found on more churches'
// podcast feed transcripts in the caption shape that no earlier round read
// (see docs/performance.md, "Fourteenth round M").

// citedAhead reports whether the text cites book b, a book whose name is an
// English word, with a chapter it has anywhere, also after the word being
// read: a Bible study opens "welcome back to our study of proverbs" before it
// reads "proverbs 7", so its bare name before the citation is the book as
// much as after it (citedCue). Not Numbers, whose name before a number is as
// often a count ("numbers 20 years ago"). It reads the text once for each
// book a rule asks about.
func (m *matcher) citedAhead(b *book) bool {
	k := m.d.bookOf(b.id)
	if k == 0 || b.osis == "Num" {
		return false
	}
	return m.citesAhead.get(k, func() bool {
		return citesChapterIn(m.sc.text, b.name, func(ch int) bool { return m.d.hasChapter(k, ch) })
	})
}

// citesChapterIn reports whether text holds name, in any case and as a whole
// word, before a chapter of the book (a number of one to three digits that has
// accepts), with or without "chapter" between: "proverbs 7", "proverbs
// chapter 3".
func citesChapterIn(text, name string, has func(int) bool) bool {
	for _, end := wholeWord(text, name, 0); end >= 0; _, end = wholeWord(text, name, end) {
		w, e := aheadWord(text, end)
		if strings.EqualFold(w, "chapter") {
			w, _ = aheadWord(text, e)
		}
		if ch := aheadNumber(w); ch > 0 && has(ch) {
			return true
		}
	}
	return false
}

// aheadWord returns the word after text[:p], across spaces and line ends,
// and the offset after it.
func aheadWord(text string, p int) (string, int) {
	for p < len(text) && (text[p] == ' ' || text[p] == '\n') {
		p++
	}
	q := p
	for q < len(text) && isWordByte(text[q]) {
		q++
	}
	return text[p:q], q
}

// aheadNumber returns w as a number of one to three digits, or 0.
func aheadNumber(w string) int {
	if len(w) < 1 || len(w) > 3 {
		return 0
	}
	n := 0
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return 0
		}
		n = n*10 + int(w[i]-'0')
	}
	return n
}
