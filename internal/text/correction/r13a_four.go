package correction

import (
	"slices"
	"strings"
)

// fourLetterNames adds to out the names that the words of four letters
// spans, which no list holds (see personScan.see), are heard for by the
// names of their chapters said beside them (see companionName), with two
// pieces of evidence always: "his brother amna now absalom" (Amnon, beside
// Absalom and Tamar), "moses aaron and naab" (Nadab). A four-letter word
// is read by no other rule of people.
func (m *matcher) fourLetterNames(out []personRec, spans [][2]int32) []personRec {
	if len(spans) == 0 {
		return out
	}
	text := m.sc.text
	var comp map[string][]companionCand
	added := false
	for _, s := range spans {
		start, end := int(s[0]), int(s[1])
		w := text[start:end]
		cands, ok := comp[w]
		if !ok {
			cands = m.companionCandidates(w)
			if comp == nil {
				comp = map[string][]companionCand{}
			}
			comp[w] = cands
		}
		name := m.companionPick(m.fourCandidates(cands, w, placeOfBefore(text, start)), text, start, end, nil, true)
		if name == "" || m.companionBarred(text, start, end) || accentedLine(text, start) || notProse(text, start, end) || owned(text, start) ||
			slices.ContainsFunc(out, func(r personRec) bool { return r.start == start }) { // round 10A's short listed names read four letters too
			continue
		}
		out = append(out, personRec{start, end, name, 0.6})
		added = true
	}
	if added {
		slices.SortFunc(out, func(a, b personRec) int { return a.start - b.start })
	}
	return out
}

// splitFour returns the spans of words of more than four letters and
// those of four, in order.
func splitFour(spans [][2]int32) (rare, four [][2]int32) {
	for _, s := range spans {
		if s[1]-s[0] == 4 {
			four = append(four, s)
		} else {
			rare = append(rare, s)
		}
	}
	return rare, four
}

// kinBefore reports whether the words before offset start of text are a
// possessive and "brother" or "sister", after which a name is said
// ("toward his brother amna").
func kinBefore(text string, start int) bool {
	p2, p1 := twoWordsBefore(text, start)
	if !strings.EqualFold(p2, "his") && !strings.EqualFold(p2, "her") && !strings.EqualFold(p2, "their") {
		return false
	}
	return strings.EqualFold(p1, "brother") || strings.EqualFold(p1, "sister") // "his wife dana": a modern wife's name
}

// placeOfBefore reports whether the words before offset start of text are
// "city of" or "land of", after which a place is named.
func placeOfBefore(text string, start int) bool {
	p2, p1 := twoWordsBefore(text, start)
	return strings.EqualFold(p1, "of") && (strings.EqualFold(p2, "city") || strings.EqualFold(p2, "land"))
}

// fourCandidates returns the candidates of cands (see companionCandidates)
// that a word w of four letters may be heard for: names that begin with
// its letter ("isis" is no Asia) within two letters of it, both spelt as
// they sound, and no person after "city of" or "land of" ("the royal city
// of raba" is no Ribai).
func (m *matcher) fourCandidates(cands []companionCand, w string, placeOf bool) []companionCand {
	ci := &m.d.companions
	out := cands[:0:0]
	for _, c := range cands {
		p := &ci.names[c.name]
		if c.dist > 2 || ci.lower(p.spelling)[0] != w[0]|0x20 || placeOf && p.person() {
			continue
		}
		out = append(out, c)
	}
	return out
}

// fourLetterMostEnglish is the most English words of four letters that a
// shape of four letters (its first and last letters) may have for
// personScan to keep the words of that shape: "amna" (five: alba, alfa,
// alga, alma, aqua) and "naab" (one, numb) are kept, "that" and "with"
// are not, so that the scanner compares about a quarter of the words of
// four letters with the lists of known words, not all.
const fourLetterMostEnglish = 5

// fourLetterShapes returns the shapes (see shape) of four letters of at
// most fourLetterMostEnglish words of SCOWL.
func fourLetterShapes() *shapeSet {
	var count [27 * 27]uint16
	s := englishWords[strings.IndexByte(englishWords, '\n')+1:]
	for w := range strings.SplitSeq(s, "\n") {
		if len(w) == 4 {
			count[letterIndex(w[0])*27+letterIndex(w[3])]++
		}
	}
	out := new(shapeSet)
	for k, n := range count {
		if n <= fourLetterMostEnglish {
			out.add(4*27*27 + k)
		}
	}
	return out
}

// accentedLine reports whether the line around offset start of text (at
// most 160 bytes either side) holds a letter of Latin-1 with an accent
// ("så härligt att bara ge"): a line of another language, where a short
// word is one of its own ("bara", Swedish, is no Baal).
func accentedLine(text string, start int) bool {
	lo, hi := lineAround(text, start)
	return strings.IndexByte(text[lo:hi], 0xc3) >= 0 // the first byte of à to ÿ and À to ß in UTF-8
}
