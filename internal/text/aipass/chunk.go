package aipass

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"tcs.dev/tcs/internal/text/correction"
)

// A span is a byte range [start, end) of a document's text.
type span struct{ start, end int }

func (s span) len() int { return s.end - s.start }

// An excerpt is what one request shows the model: passages of the document's text, in text
// order and disjoint, and the changes whose verdicts the request asks for.
type excerpt struct {
	passages []span
	changes  []int // indices into the request's changes
}

// size is the number of text bytes the excerpt shows.
func (e *excerpt) size() int {
	n := 0
	for _, p := range e.passages {
		n += p.len()
	}
	return n
}

// passageSep separates an excerpt's passages in the text sent to the model.
const passageSep = "\n[…]\n"

// render returns the excerpt's passages as one text.
func (e *excerpt) render(text string) string {
	var b strings.Builder
	for i, p := range e.passages {
		if i > 0 {
			b.WriteString(passageSep)
		}
		b.WriteString(text[p.start:p.end])
	}
	return b.String()
}

// passageOf returns the index of the passage that holds [start, end), or -1.
func (e *excerpt) passageOf(start, end int) int {
	for i, p := range e.passages {
		if p.start <= start && end <= p.end {
			return i
		}
	}
	return -1
}

// splitText divides text into the excerpts to review. A text of at most chunkBytes is one
// excerpt, all of it; a longer one becomes passages of about contextBytes either side of each
// change, widened to sentence or word boundaries, merged when they overlap or nearly touch,
// and packed into excerpts of at most chunkBytes (a passage that is larger on its own is
// still one excerpt). Every change with valid offsets belongs to exactly one excerpt; a change
// whose offsets do not fit text belongs to none. Passages never cut a UTF-8 sequence.
func splitText(text string, changes []correction.Change, chunkBytes, contextBytes int) []excerpt {
	if text == "" {
		return nil
	}
	valid := func(c correction.Change) bool {
		return 0 <= c.Start && c.Start < c.End && c.End <= len(text)
	}
	if len(text) <= chunkBytes {
		e := excerpt{passages: []span{{0, len(text)}}}
		for i, c := range changes {
			if valid(c) {
				e.changes = append(e.changes, i)
			}
		}
		return []excerpt{e}
	}

	// Passages: one window per change, merged with the previous one when they overlap or
	// nearly touch and the union still fits an excerpt.
	type group struct {
		span
		changes []int
	}
	slack := max(contextBytes/2, 16)
	near := contextBytes / 2
	var groups []group
	for i, c := range changes {
		if !valid(c) {
			continue
		}
		w := span{
			start: startBoundary(text, c.Start-contextBytes, slack),
			end:   endBoundary(text, c.End+contextBytes, slack),
		}
		if n := len(groups); n > 0 {
			g := &groups[n-1]
			if w.start <= g.end+near && max(g.end, w.end)-min(g.start, w.start) <= chunkBytes {
				g.start, g.end = min(g.start, w.start), max(g.end, w.end)
				g.changes = append(g.changes, i)
				continue
			}
		}
		groups = append(groups, group{span: w, changes: []int{i}})
	}

	// Excerpts: consecutive passages packed up to chunkBytes. Two passages that did not merge
	// because their union was too large are too large together, so an excerpt's passages are
	// disjoint.
	var out []excerpt
	for _, g := range groups {
		if n := len(out); n > 0 {
			e := &out[n-1]
			last := e.passages[len(e.passages)-1]
			if e.size()+g.len() <= chunkBytes && g.start >= last.end {
				e.passages = append(e.passages, g.span)
				e.changes = append(e.changes, g.changes...)
				continue
			}
		}
		out = append(out, excerpt{passages: []span{g.span}, changes: g.changes})
	}
	return out
}

// startBoundary returns where a passage meant to start at pos begins: at the start of a
// sentence or line at most slack bytes earlier, else after a space at most slack bytes
// earlier, else at the start of the UTF-8 sequence holding pos.
func startBoundary(text string, pos, slack int) int {
	if pos <= 0 {
		return 0
	}
	lo := max(0, pos-slack)
	for i := pos; i > lo; i-- {
		if text[i-1] == '\n' || (i >= 2 && isSpaceByte(text[i-1]) && endsSentence(text[i-2])) {
			return i
		}
	}
	if lo == 0 {
		return 0
	}
	for i := pos; i > lo; i-- {
		if isSpaceByte(text[i-1]) {
			return i
		}
	}
	for pos > 0 && !utf8.RuneStart(text[pos]) {
		pos--
	}
	return pos
}

// endBoundary returns where a passage meant to end at pos ends: at the end of a sentence or
// line at most slack bytes later, else before a space at most slack bytes later, else at the
// end of the UTF-8 sequence holding pos-1.
func endBoundary(text string, pos, slack int) int {
	if pos >= len(text) {
		return len(text)
	}
	hi := min(len(text), pos+slack)
	for i := pos; i < hi; i++ {
		if text[i] == '\n' {
			return i
		}
		if endsSentence(text[i]) && (i+1 == len(text) || isSpaceByte(text[i+1])) {
			return i + 1
		}
	}
	if hi == len(text) {
		return len(text)
	}
	for i := pos; i < hi; i++ {
		if isSpaceByte(text[i]) {
			return i
		}
	}
	for pos < len(text) && !utf8.RuneStart(text[pos]) {
		pos++
	}
	return pos
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func endsSentence(b byte) bool { return b == '.' || b == '!' || b == '?' }

// snippet returns the whole words around [start, end) within p, at most width bytes either
// side, with text[start:end] in double brackets and line breaks as spaces, so that the model
// can find the place.
func snippet(text string, p span, start, end, width int) string {
	lo := max(p.start, start-width)
	if lo > p.start {
		if k := strings.IndexAny(text[lo:start], " \t\r\n"); k >= 0 {
			lo += k + 1
		}
	}
	for lo < start && !utf8.RuneStart(text[lo]) {
		lo++
	}
	hi := min(p.end, end+width)
	if hi < p.end {
		if k := strings.LastIndexAny(text[end:hi], " \t\r\n"); k >= 0 {
			hi = end + k
		}
	}
	for hi > end && hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi--
	}
	var b strings.Builder
	if lo > p.start {
		b.WriteString("…")
	}
	b.WriteString(text[lo:start])
	b.WriteString("[[")
	b.WriteString(text[start:end])
	b.WriteString("]]")
	b.WriteString(text[end:hi])
	if hi < p.end {
		b.WriteString("…")
	}
	return strings.Join(strings.FieldsFunc(b.String(), func(r rune) bool { return r == '\n' || r == '\r' }), " ")
}

// locate returns the first place in e's passages where original occurs as whole words and
// overlaps neither a change nor a span of taken, or false.
func locate(text string, e *excerpt, original string, changes []correction.Change, taken []span) (span, bool) {
	if original == "" {
		return span{}, false
	}
	first, _ := utf8.DecodeRuneInString(original)
	last, _ := utf8.DecodeLastRuneInString(original)
	for _, p := range e.passages {
		for from := p.start; from < p.end; {
			i := strings.Index(text[from:p.end], original)
			if i < 0 {
				break
			}
			s := span{from + i, from + i + len(original)}
			from = s.start + 1
			if isNameRune(first) {
				if r, _ := utf8.DecodeLastRuneInString(text[:s.start]); s.start > 0 && isNameRune(r) {
					continue
				}
			}
			if isNameRune(last) {
				if r, _ := utf8.DecodeRuneInString(text[s.end:]); s.end < len(text) && isNameRune(r) {
					continue
				}
			}
			if overlapsChange(changes, s) || overlapsSpan(taken, s) {
				continue
			}
			return s, true
		}
	}
	return span{}, false
}

func isNameRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// overlapsChange reports whether s overlaps one of changes.
func overlapsChange(changes []correction.Change, s span) bool {
	for _, c := range changes {
		if c.Start < s.end && s.start < c.End {
			return true
		}
	}
	return false
}

func overlapsSpan(spans []span, s span) bool {
	for _, t := range spans {
		if t.start < s.end && s.start < t.end {
			return true
		}
	}
	return false
}
