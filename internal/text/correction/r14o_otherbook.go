package correction

import "strings"

// The evidence of issue 24's fourteenth round (O), found on the transcripts
// that the podcast feeds of more churches publish, in the caption shape,
// which no earlier round read (see docs/performance.md, "Fourteenth round
// O").

// loneNumbered reports whether r, a dash between a chapter and a verse that
// chapter has after a numbered book ("2 corinthians 4-8"), is a book the
// captions name only there, as loneRange asks, when they also name a book
// of the same name with another number ("1 corinthians 10 12 to 14 ... so
// in 2 corinthians 4-8 ... we are hard-pressed on every side": 2
// Corinthians 4:8, or chapters 4 to 8?). loneRange counts every
// "corinthians"; a name after another number ("1", "first", "one") is
// another book, and the range is left as written when no other mention
// can be its book.
func (m *matcher) loneNumbered(b uint8, r *ref) bool {
	if !m.dashMayBeAVerse(b, r) {
		return false
	}
	return m.numberedOnce.get(b, func() bool { return m.namesNumberedOnce(b) })
}

// namesNumberedOnce reports whether book b has a number and the text names
// it once at most: its name after no number, or after its own.
func (m *matcher) namesNumberedOnce(b uint8) bool {
	full := m.d.verses[b-1].name
	sp := strings.IndexByte(full, ' ')
	if sp < 0 || full[0] < '1' || full[0] > '3' {
		return false
	}
	own := int(full[0] - '0')
	name := strings.ToLower(full[sp+1:])
	t, n := m.sc.text, 0
	eachMention(t, name, false, func(i int) bool {
		if o := ordinalBefore(t[:i]); o == 0 || o == own {
			n++
		}
		return n < 2
	})
	return n < 2
}

// ordinalBefore returns the number (1 to 3) that the word ending t names
// as a book's ordinal ("2", "second", "two", "ii"), or 0.
func ordinalBefore(t string) int {
	t = strings.TrimRight(t, " \n")
	i := len(t)
	for i > 0 && isWordByte(t[i-1]) {
		i--
	}
	switch strings.ToLower(t[i:]) {
	case "1", "first", "one", "i":
		return 1
	case "2", "second", "two", "ii":
		return 2
	case "3", "third", "three", "iii":
		return 3
	}
	return 0
}

// chapterAgainOf reports whether r, a book that is also an English word
// and a chapter it has before "of" ("this crazy story of genesis 38 of who
// god is"), repeats a chapter of that book the sermon has already cited:
// "of" after a number is read as a count ("numbers 20 of them"), but a
// sermon on Genesis 38 that says "genesis 38" again names the chapter it
// preaches on. Not Numbers, whose name before a number is as often a
// count. A suggestion: the words after it may still count.
func (m *matcher) chapterAgainOf(f *bookForm, r ref) bool {
	if !r.ok || r.verse != 0 || f.book == nil || f.book.osis == "Num" || !m.sc.is(r.endTok+1, "of") || !m.sermon() {
		return false
	}
	b := m.d.bookOf(f.book.id)
	if b == 0 || !m.d.hasChapter(b, r.chapter) {
		return false
	}
	k := int(m.d.chapterBase[b-1]) + r.chapter - 1
	return m.chapters[k>>6]&(1<<(k&63)) != 0
}
