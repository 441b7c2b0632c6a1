package aipass

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ctxWord is one word in or near a change.
type ctxWord struct {
	s, e   int    // byte offsets in the text
	lower  string // lowercase text
	lower0 string // text as written
	gap    string // separator between this word and its neighbour toward the change
	digits bool   // only ASCII digits
	// opens reports, for a word before the change, whether it begins its
	// sentence or line.
	opens bool
}

// Window sizes: the words and bytes read around a change.
const (
	rulesMaxBefore   = 5
	rulesMaxAfter    = 12
	rulesFirstAfter  = 3 // the words after a change read at first: see readAfter
	rulesMaxInside   = 24
	rulesBeforeBytes = 160
	rulesAfterBytes  = 240
	rulesMaxWord     = 64 // longer words are read in pieces
)

// ctxWindow is the context of one change. It is reused across the changes of
// one review.
type ctxWindow struct {
	text          string
	start, end    int
	inside        []ctxWord // the words of the change
	before        []ctxWord // nearest first, up to a sentence end
	after         []ctxWord // nearest first, up to a sentence end
	sentenceStart bool      // the change opens the text or a sentence
	lineStart     bool      // the change opens a line
	next          int       // where readAfter goes on
	afterDone     bool      // after holds every word up to the sentence end
	bufB          [rulesMaxBefore]ctxWord
	bufA          [rulesMaxAfter]ctxWord
	bufI          [rulesMaxInside]ctxWord
}

// load reads the words in and around text[start:end].
func (w *ctxWindow) load(r *Rules, text string, start, end int) {
	w.text, w.start, w.end = text, start, end
	w.sentenceStart, w.lineStart = false, false

	w.inside = w.bufI[:0]
	for p := start; len(w.inside) < rulesMaxInside; {
		s, e, ok := nextWordSpan(text, p, end)
		if !ok {
			break
		}
		e = min(e, end)
		w.inside = append(w.inside, makeCtxWord(text, s, e, text[p:s]))
		p = e
	}

	w.before = w.bufB[:0]
	p, lo := start, max(0, start-rulesBeforeBytes)
	for len(w.before) < rulesMaxBefore {
		s, e, ok := prevWordSpan(text, p, lo)
		if !ok {
			if len(w.before) == 0 && (lo == 0 || !r.hasWordBefore(text, lo)) {
				w.sentenceStart, w.lineStart = true, true
			}
			break
		}
		gap := text[e:p]
		x := makeCtxWord(text, s, e, gap)
		var right ctxWord
		if n := len(w.before); n > 0 {
			right = w.before[n-1]
		} else if len(w.inside) > 0 {
			right = w.inside[0]
		}
		hard, line := r.sentenceBreak(gap, x, right)
		if len(w.before) == 0 {
			w.sentenceStart, w.lineStart = hard, line
		} else if hard || line {
			w.before[len(w.before)-1].opens = true
		}
		if hard {
			break
		}
		w.before = append(w.before, x)
		p = s
	}
	if n := len(w.before); n > 0 && n < rulesMaxBefore && !w.before[n-1].opens {
		// The search stopped at the text start, a sentence end or the
		// window edge: the farthest word begins its sentence.
		w.before[n-1].opens = true
	}

	w.after = w.bufA[:0]
	w.next, w.afterDone = end+possessiveLen(text[end:]), false
	w.readAfter(r, rulesFirstAfter)
}

// readAfter reads the words after the change until it holds n of them or
// the sentence ends.
func (w *ctxWindow) readAfter(r *Rules, n int) {
	text := w.text
	hi := min(len(text), w.end+rulesAfterBytes)
	for !w.afterDone && len(w.after) < min(n, rulesMaxAfter) {
		s, e, ok := nextWordSpan(text, w.next, hi)
		if !ok {
			w.afterDone = true
			break
		}
		gap := text[w.next:s]
		var prev ctxWord
		if len(w.after) > 0 {
			prev = w.after[len(w.after)-1]
		} else if len(w.inside) > 0 {
			prev = w.inside[len(w.inside)-1]
		}
		x := makeCtxWord(text, s, e, gap)
		if hard, _ := r.sentenceBreak(gap, prev, x); hard {
			w.afterDone = true
			break
		}
		w.after = append(w.after, x)
		w.next = e
	}
}

// hasWordBefore reports whether a word ends at or before p.
func (r *Rules) hasWordBefore(text string, p int) bool {
	_, _, ok := prevWordSpan(text, p, max(0, p-rulesBeforeBytes))
	return ok
}

// makeCtxWord returns the word text[s:e] with the separator gap.
func makeCtxWord(text string, s, e int, gap string) ctxWord {
	w := text[s:e]
	digits := w != ""
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			digits = false
			break
		}
	}
	return ctxWord{s: s, e: e, lower: strings.ToLower(w), lower0: w, gap: gap, digits: digits}
}

// sentenceBreak reports whether gap, the separator between the words left
// and right, ends a sentence (hard) or a line. A line break before a
// capitalised word ends a sentence too: punctuated transcripts start their
// lines with one, and caption lines, which run on, are in lowercase.
func (r *Rules) sentenceBreak(gap string, left, right ctxWord) (hard, line bool) {
	nl := 0
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case '\n':
			nl++
		case '!', '?', ';':
			hard = true
		case ':':
			if !(left.digits && right.digits && gap == ":") {
				hard = true // "Paul said: …", but not "13:4"
			}
		case '.':
			if i == 0 && r.abbrevDots[left.lower] {
				continue // "St. John"
			}
			if left.digits && right.digits && gap == "." {
				continue // "3.16"
			}
			hard = true
		}
	}
	if nl == 1 && startsUppercase(right.lower0) && right.lower != "i" {
		hard = true
	}
	return hard || nl > 1, nl > 0
}

// isASCIIDigit reports whether c is an ASCII digit.
func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// isASCIIWordByte reports whether the ASCII byte c belongs to a word.
func isASCIIWordByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// isTextWordRune reports whether r belongs to a word, as the correction
// engine's tokenizer has it.
func isTextWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// apostropheAt reports whether the rune at text[i:] is an apostrophe and
// returns its size.
func apostropheAt(text string, i int) (int, bool) {
	if i >= len(text) {
		return 0, false
	}
	if text[i] == '\'' {
		return 1, true
	}
	if strings.HasPrefix(text[i:], "’") {
		return len("’"), true
	}
	return 0, false
}

// letterStartsAt reports whether a letter starts at text[i:].
func letterStartsAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	if c := text[i]; c < utf8.RuneSelf {
		return 'a' <= c|0x20 && c|0x20 <= 'z'
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r)
}

// letterEndsAt reports whether a letter ends at text[:i].
func letterEndsAt(text string, i int) bool {
	if i <= 0 {
		return false
	}
	if c := text[i-1]; c < utf8.RuneSelf {
		return 'a' <= c|0x20 && c|0x20 <= 'z'
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsLetter(r)
}

// nextWordSpan returns the span of the first word that starts in
// text[p:limit]. A word is a run of letters, digits and marks, with
// apostrophes between letters ("don't"); a word longer than rulesMaxWord
// bytes is read in pieces.
func nextWordSpan(text string, p, limit int) (s, e int, ok bool) {
	i := p
	for i < limit {
		c := text[i]
		if c < utf8.RuneSelf {
			if isASCIIWordByte(c) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if isTextWordRune(r) {
			break
		}
		i += size
	}
	if i >= limit {
		return 0, 0, false
	}
	s = i
	for stop := min(len(text), s+rulesMaxWord); i < stop; {
		c := text[i]
		if c < utf8.RuneSelf && isASCIIWordByte(c) {
			i++
			continue
		}
		if n, ok := apostropheAt(text, i); ok {
			if letterEndsAt(text, i) && letterStartsAt(text, i+n) {
				i += n
				continue
			}
			break
		}
		if c < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTextWordRune(r) {
			break
		}
		i += size
	}
	return s, i, true
}

// prevWordSpan returns the span of the last word that ends in
// text[limit:p].
func prevWordSpan(text string, p, limit int) (s, e int, ok bool) {
	i := p
	for i > limit {
		c := text[i-1]
		if c < utf8.RuneSelf {
			if isASCIIWordByte(c) {
				break
			}
			i--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if isTextWordRune(r) {
			break
		}
		i -= size
	}
	if i <= limit {
		return 0, 0, false
	}
	e = i
	for stop := max(0, e-rulesMaxWord); i > stop; {
		c := text[i-1]
		if c < utf8.RuneSelf && isASCIIWordByte(c) {
			i--
			continue
		}
		if c == '\'' && letterEndsAt(text, i-1) && letterStartsAt(text, i) {
			i--
			continue
		}
		if strings.HasSuffix(text[:i], "’") && letterEndsAt(text, i-len("’")) && letterStartsAt(text, i) {
			i -= len("’")
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !isTextWordRune(r) {
			break
		}
		i -= size
	}
	return i, e, true
}

// possessiveLen returns the length of the "'s" that s starts with, or 0.
func possessiveLen(s string) int {
	n, ok := apostropheAt(s, 0)
	if !ok || n >= len(s) || (s[n] != 's' && s[n] != 'S') || letterStartsAt(s, n+1) {
		return 0
	}
	return n + 1
}

// isPlainGap reports whether gap separates two words with spaces and at most
// one line break.
func isPlainGap(gap string) bool {
	nl := 0
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case ' ', '\t', '\r':
		case '\n':
			nl++
		default:
			return false
		}
	}
	return len(gap) > 0 && nl <= 1
}

// refSep describes the separator between two words of a reference.
type refSep struct{ ok, colon, dash, comma, period, hyphen bool }

// parseRefSep describes gap, or returns the zero refSep if gap cannot
// separate the words of a reference.
func parseRefSep(gap string) refSep {
	if len(gap) == 0 || len(gap) > 8 {
		return refSep{}
	}
	g := refSep{ok: true}
	nl := 0
	for i := 0; i < len(gap); {
		switch c := gap[i]; {
		case c == ' ' || c == '\t' || c == '\r':
		case c == '\n':
			nl++
		case c == ':':
			if g.colon {
				return refSep{}
			}
			g.colon = true
		case c == '-':
			g.dash, g.hyphen = true, true
		case c == ',':
			g.comma = true
		case c == '.':
			g.period = true
		case strings.HasPrefix(gap[i:], "–"), strings.HasPrefix(gap[i:], "—"):
			g.dash = true
			i += len("–")
			continue
		default:
			return refSep{}
		}
		i++
	}
	if nl > 1 {
		return refSep{}
	}
	return g
}

// spokenRef is a chapter and verse reference as the words give it.
type spokenRef struct {
	ok         bool
	strong     bool // more than a bare number
	oneChapter bool // a verse of a book of one chapter
	chapter    int
	verse      int
	verseEnd   int
	chapterEnd int
	last       int    // index of its last word
	count      string // the noun after a bare number that counts ("years"), if any
}

// describe renders the reference for a reason: "the reference 13:4",
// "chapter 13", "chapters 120–134".
func (rf spokenRef) describe() string {
	switch {
	case rf.oneChapter:
		return "verse " + strconv.Itoa(rf.chapter) + " of a one-chapter book"
	case rf.verse > 0:
		s := "the reference " + strconv.Itoa(rf.chapter) + ":" + strconv.Itoa(rf.verse)
		if rf.verseEnd > 0 {
			s += "–" + strconv.Itoa(rf.verseEnd)
		}
		return s
	case rf.chapterEnd > 0:
		return "chapters " + strconv.Itoa(rf.chapter) + "–" + strconv.Itoa(rf.chapterEnd)
	}
	return "chapter " + strconv.Itoa(rf.chapter)
}

// parseRef reads a reference that starts at ws[k]; ws are the words after
// a book name, nearest first.
func (r *Rules) parseRef(ws []ctxWord, k int) spokenRef {
	var rf spokenRef
	if k >= len(ws) {
		return rf
	}
	if g := parseRefSep(ws[k].gap); !g.ok || g.colon || g.dash || g.period {
		return rf
	}
	chapterWord := false
	if r.chapterWords[ws[k].lower] {
		if k+1 >= len(ws) || !parseRefSep(ws[k+1].gap).ok {
			return rf
		}
		chapterWord = true
		k++
	}
	v, next, spoken := r.parseNum(ws, k)
	if v < 1 || v > 150 {
		return rf
	}
	rf = spokenRef{ok: true, strong: chapterWord, chapter: v, last: next - 1}
	k = next
	if k < len(ws) {
		if g := parseRefSep(ws[k].gap); g.ok && !g.dash {
			switch {
			case g.colon || g.period && ws[k-1].digits && ws[k].digits && ws[k].gap == ".":
				if v2, nx, _ := r.parseNum(ws, k); v2 >= 1 && v2 <= 176 {
					rf.verse, rf.strong, rf.last, k = v2, true, nx-1, nx
				}
			case r.verseWords[ws[k].lower]:
				if k+1 < len(ws) && parseRefSep(ws[k+1].gap).ok {
					if v2, nx, _ := r.parseNum(ws, k+1); v2 >= 1 && v2 <= 176 {
						rf.verse, rf.strong, rf.last, k = v2, true, nx-1, nx
					}
				}
			case !g.comma && !g.period:
				if v2, nx, sp := r.parseNum(ws, k); v2 >= 1 && v2 <= 176 && sp == spoken {
					rf.verse, rf.strong, rf.last, k = v2, true, nx-1, nx
				}
			}
		}
	}
	if k < len(ws) {
		g := parseRefSep(ws[k].gap)
		if !g.ok || g.comma || g.period {
			return rf
		}
		rk := -1
		switch {
		case g.dash:
			rk = k
		case r.rangeWords[ws[k].lower] && k+1 < len(ws) && parseRefSep(ws[k+1].gap).ok:
			rk = k + 1
		}
		if rk >= 0 {
			v3, nx, _ := r.parseNum(ws, rk)
			switch {
			case rf.verse > 0 && v3 > rf.verse && v3 <= 176:
				rf.verseEnd, rf.last = v3, nx-1
			case rf.verse == 0 && v3 > rf.chapter && v3 <= 150:
				rf.chapterEnd, rf.last, rf.strong = v3, nx-1, true
			}
		}
	}
	if !rf.strong {
		rf.count = r.countAfter(ws, rf.last+1)
	}
	return rf
}

// parseNum reads a number in digits ("23") or words ("twenty three", "one
// hundred and nineteen") at ws[k]. It returns the value (0 if none), the
// index after it, and whether it was spoken.
func (r *Rules) parseNum(ws []ctxWord, k int) (int, int, bool) {
	if k >= len(ws) {
		return 0, k, false
	}
	if ws[k].digits {
		if len(ws[k].lower) > 3 {
			return 0, k, false
		}
		v, _ := strconv.Atoi(ws[k].lower)
		return v, k + 1, false
	}
	v, ok := r.numbers[ws[k].lower]
	if !ok {
		return 0, k, false
	}
	k++
	spokenGap := func(k int) bool {
		g := parseRefSep(ws[k].gap)
		return g.ok && !g.colon && !g.comma && !g.period && (!g.dash || g.hyphen)
	}
	if v < 10 && k < len(ws) && spokenGap(k) && ws[k].lower == "hundred" {
		total := v * 100
		k++
		if k < len(ws) && spokenGap(k) && ws[k].lower == "and" {
			k++
		}
		if k < len(ws) && spokenGap(k) {
			if rest, nk, sp := r.parseNum(ws, k); sp && rest > 0 && rest < 100 {
				return total + rest, nk, true
			}
		}
		return total, k, true
	}
	if v >= 20 && k < len(ws) && spokenGap(k) {
		if u, ok := r.numbers[ws[k].lower]; ok && u < 10 {
			return v + u, k + 1, true
		}
	}
	return v, k, true
}

// splitBookRef splits a book replacement such as "1 Corinthians 13:4" into
// the name and the reference; the reference is "" when there is none.
func splitBookRef(repl string) (name, ref string) {
	i := strings.LastIndexByte(repl, ' ')
	if i <= 0 || i+1 >= len(repl) || !isASCIIDigit(repl[i+1]) {
		return repl, ""
	}
	return repl[:i], repl[i+1:]
}

// parseWrittenRef parses a reference as the engine writes it: "13", "13:4",
// "13:4–7" or "120–134".
func parseWrittenRef(s string) (spokenRef, bool) {
	var rf spokenRef
	num := func(s string) (int, bool) {
		if s == "" || len(s) > 3 {
			return 0, false
		}
		v, err := strconv.Atoi(s)
		return v, err == nil && v > 0 && s[0] != '+' && s[0] != '-'
	}
	head, tail, ranged := strings.Cut(s, "–")
	ch, vs, hasVerse := strings.Cut(head, ":")
	var ok bool
	if rf.chapter, ok = num(ch); !ok || rf.chapter > 150 {
		return rf, false
	}
	if hasVerse {
		if rf.verse, ok = num(vs); !ok || rf.verse > 176 {
			return rf, false
		}
	}
	if ranged {
		end, ok := num(tail)
		if !ok {
			return rf, false
		}
		if hasVerse {
			if end <= rf.verse || end > 176 {
				return rf, false
			}
			rf.verseEnd = end
		} else {
			if end <= rf.chapter || end > 150 {
				return rf, false
			}
			rf.chapterEnd = end
		}
	}
	rf.ok, rf.strong = true, hasVerse || ranged
	return rf, true
}

// joinWordsLower returns the lowercase words ws joined by spaces.
func joinWordsLower(ws []ctxWord) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0].lower
	}
	var sb strings.Builder
	for i, x := range ws {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(x.lower)
	}
	return sb.String()
}

// startsUppercase reports whether s starts with an uppercase letter.
func startsUppercase(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// clip cuts s to about 32 bytes, at a space if it can, for quoting in a
// reason.
func clip(s string) string {
	const most = 32
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > most/2 {
		cut = sp
	}
	return s[:cut] + "…"
}

// reverseWords returns the words s in reverse order.
func reverseWords(s []string) []string {
	out := make([]string, len(s))
	for i, w := range s {
		out[len(s)-1-i] = w
	}
	return out
}

// wordSet returns the set of words.
func wordSet(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
