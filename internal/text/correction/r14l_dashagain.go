package correction

import "strings"

// The evidence of issue 24's fourteenth round (L), found on the transcripts
// that the podcast feeds of more churches publish, in the caption shape,
// which no earlier round read (see docs/performance.md, "Fourteenth round
// L").

// dashAgainWindow is how far before a dash dashAgain looks for the same
// verses cited with their chapter: a few minutes of speech.
const dashAgainWindow = 2048

// dashAgain reports whether r, two numbers joined by a dash after a book
// and read as a chapter and its verse ("2 timothy 1-5" as 2 Timothy 1:5),
// repeats the verses of a chapter of the same book cited before it ("in 2
// timothy 3 1-5 paul admonishes timothy ... so in 2 timothy 1-5 i'll read
// that"): the speaker names the same verses again without their chapter,
// and the chapter the dash would make is a guess. Such a reference is left
// as written (the book capitalized, the numbers untouched).
func (m *matcher) dashAgain(b uint8, r *ref) bool {
	sc := m.sc
	v, e := r.chapterTok+1, sc.tok(r.chapterTok).e()
	if b == 0 || r.verseEnd != 0 || e >= len(sc.text) || sc.text[e] != '-' || !sc.has(v) || !sc.tok(v).digits() || !sc.refGap(r.chapterTok).dash {
		return false
	}
	name := strings.ToLower(m.d.verses[b-1].name)
	if i := strings.LastIndexByte(name, ' '); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, "s") // "psalm" and "psalms"
	s := sc.tok(r.chapterTok).s()
	// The chapter said before is read within dashAgainWindow bytes, so that
	// a text of many such references costs no more than one reading each.
	pair, t := sc.text[s:sc.tok(v).e()], sc.text[max(0, s-dashAgainWindow):s]
	for i := strings.LastIndex(t, pair); i > 0; i = strings.LastIndex(t[:i], pair) {
		if e := i + len(pair); !isSpaceByte(t[i-1]) || e < len(t) && isWordByte(t[e]) {
			continue
		}
		j := i - 1 // the chapter before the pair: "3" in "timothy 3 1-5"
		k := j
		for k > 0 && isDigitByte(t[k-1]) {
			k--
		}
		if k == j || k < 2 || !isSpaceByte(t[k-1]) {
			continue
		}
		n := 0
		for _, c := range []byte(t[k:j]) {
			n = n*10 + int(c-'0')
		}
		x := k - 1
		for x > 0 && isWordByte(t[x-1]) {
			x--
		}
		if n != r.chapter && strings.TrimSuffix(strings.ToLower(t[x:k-1]), "s") == name && m.d.hasVerse(b, n, r.verse) {
			return true
		}
	}
	return false
}
