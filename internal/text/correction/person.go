package correction

import (
	"math/bits"
	"slices"
	"strings"
)

// CategoryPerson is the category of the names of biblical people
// ("nebuchadnezar" for Nebuchadnezzar). By default only the names heard
// wrong after a naming cue are suggested (see Options.Categories); all its
// changes are made when Options.Categories lists it.
const CategoryPerson = "person"

// personName is a biblical person's name.
type personName struct {
	name  string // as the King James Version writes it
	lower string
}

// buildPersons keeps the names of the King James Version that name no
// place and no book as the names of people, and indexes those of seven
// letters or more by their sound for misspellings. It runs after the
// books, places and KJV names are read.
func (d *dict) buildPersons(names []string) {
	d.persons = map[string]string{}
	d.personSounds = map[string][]personName{}
	d.personCueSounds = map[string][]personName{}
	for i, w := range [numCues]string{cueNamed: "named", cueCalled: "called", cueOf: "of", cueOne: "one", cueA: "a", cueAn: "an"} {
		d.cueHash[i] = keyHash(w)
		d.cueMask[d.cueHash[i]>>56] = bitCue
	}
	for i, w := range ofNames {
		d.ofHash[i] = keyHash(w)
	}
	for _, name := range names {
		lower := strings.ToLower(name)
		if len(lower) >= 5 && !d.placeKeys[lower] && !d.isBookWord(lower) && !groupName(lower) {
			k := phoneticKey(lower)
			d.personCueSounds[k] = append(d.personCueSounds[k], personName{name: name, lower: lower})
			if c := lower[0]; c >= 'a' && c <= 'z' {
				d.personsByLetter[c-'a'] = append(d.personsByLetter[c-'a'], personName{name: name, lower: lower})
			}
		}
		if d.placeKeys[lower] || d.isBookWord(lower) || len(lower) < 6 || groupName(lower) {
			// Short names are as often English words or modern names
			// ("Dan", "Ham", "Job"): not worth a change of their own.
			continue
		}
		d.persons[lower] = name
		if len(lower) >= 9 {
			k := phoneticKey(lower)
			d.personSounds[k] = append(d.personSounds[k], personName{name: name, lower: lower})
		}
	}
}

// groupName reports whether w names a people or is an adjective
// ("christians", "israelites", "jewish", "levitical"), not a person.
func groupName(w string) bool {
	switch w {
	case "gentile", "gentiles", "pharisee", "pharisees", "sadducee", "sadducees", "hebrew", "hebrews", "greek", "greeks":
		return true
	}
	for _, suf := range [...]string{"ian", "ians", "ite", "ites", "ish", "ical", "ans", "anes", "ines", "ims"} {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// isBookWord reports whether w is a one-word name of a book.
func (d *dict) isBookWord(w string) bool {
	n := d.root[w]
	return n != nil && n.book != nil && (n.book.kind != kNone || n.book.pkind != kNone)
}

// personRec is a change of a person's name, before it is merged with the
// others.
type personRec struct {
	start, end int
	repl       string
	conf       float64
}

// findPersons returns the changes of people's names in a sermon: a
// lowercase name of six letters or more gets its capital
// ("nebuchadnezzar", applied), and a word of eight letters or more that no
// list holds but sounds like a name of nine letters or more of the KJV,
// begins with its letter and is within two edits of it is suggested
// ("melkizedek" for Melchizedek), as are the people of the cited chapters
// (see chapterPersons). Outside a sermon it finds nothing.
func (m *matcher) findPersons() []personRec {
	if !m.sermon() {
		return nil
	}
	text := m.sc.text
	var out []personRec
	var lw, kb []byte
	var heard map[string]string                  // words heard for a name after a naming cue, and the name
	prev1s, prev1e, prev2s, prev2e := 0, 0, 0, 0 // the two words before
	for i := 0; i < len(text); {
		c := text[i] | 0x20
		if c < 'a' || c > 'z' || (i > 0 && isWordByte(text[i-1])) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		w := text[i:j]
		start := i
		i = j
		p1, p2 := text[prev1s:prev1e], text[prev2s:prev2e]
		prev2s, prev2e, prev1s, prev1e = prev1s, prev1e, start, j
		if m.heardPerson(&out, &heard, p2, p1, prev2s, start, j) {
			continue
		}
		if len(w) < 6 || len(w) > 24 || (j < len(text) && text[j] >= 0x80) {
			continue
		}
		lw = appendLower(lw[:0], w)
		if name, ok := m.d.persons[string(lw)]; ok {
			if w[0] >= 'a' && w[0] <= 'z' && !notProse(text, start, j) {
				out = append(out, personRec{start, j, name, 0.86})
			}
			continue
		}
		if len(w) < 8 {
			continue
		}
		if _, ok := m.d.kjvNames[string(lw)]; ok || m.d.placeKeys[string(lw)] || m.d.isBookWord(string(lw)) {
			continue
		}
		kb = appendPhoneticKey(kb[:0], lw)
		for _, p := range m.d.personSounds[string(kb)] {
			// The same first letter, two edits at most, and more than a
			// modern spelling of the same name ("elizabeth").
			if p.lower[0] == lw[0] && editDistance(lw, p.lower, 2) <= 2 && !szOnly(lw, p.lower) && !notProse(text, start, j) {
				out = append(out, personRec{start, j, p.name, 0.6})
				break
			}
		}
	}
	if len(heard) > 0 {
		out = m.heardAgain(out, heard)
	}
	rare, four := splitFour(m.rareSpans())
	return m.fourLetterNames(m.chapterPersons(out, rare), four)
}

// heardPerson adds to out the person that the word text[start:j] names
// after the words p1 (which starts at p1s) and p2 before it: a name
// heard wrong after a naming cue ("named ananas"), recorded in heard, or
// a long name heard as a short word and the rest ("one sephoraus"). It
// reports whether it added one.
func (m *matcher) heardPerson(out *[]personRec, heard *map[string]string, p2, p1 string, p1s, start, j int) bool {
	return namingCue(p2, p1) && m.namedPerson(out, heard, start, j) ||
		len(p1) <= 3 && p1s+len(p1) == start-1 && m.splitAfter(out, p1, p1s, j)
}

// namedPerson adds to out the person that the word text[start:j], after
// a naming cue, names if it is heard wrong, and records it in heard (see
// cuePerson). It reports whether it added one.
func (m *matcher) namedPerson(out *[]personRec, heard *map[string]string, start, j int) bool {
	text := m.sc.text
	w := text[start:j]
	if len(w) < 5 || len(w) > 24 {
		return false
	}
	if s, e := wordAfter(text, j); e-s > len(w) && e-s <= 24 && strings.EqualFold(text[s:s+len(w)], w) {
		// A false start: "the household / of / steph stephanus".
		start, j, w = s, e, text[s:e]
	}
	name := m.cuePerson(w)
	if name == "" || notProse(text, start, j) {
		return false
	}
	if *heard == nil {
		*heard = map[string]string{}
	}
	(*heard)[strings.ToLower(w)] = name
	*out = append(*out, personRec{start, j, name, 0.6})
	return true
}

// wordAfter returns the bounds of the word after the blanks that follow
// text[:j], or j, j if none follows them.
func wordAfter(text string, j int) (int, int) {
	s := j
	for s < len(text) && (text[s] == ' ' || text[s] == '\n' || text[s] == '\t' || text[s] == '\r') && s-j < 4 {
		s++
	}
	if s == j || s >= len(text) || !isWordByte(text[s]) {
		return j, j
	}
	e := s + 1
	for e < len(text) && isWordByte(text[e]) {
		e++
	}
	return s, e
}

// splitAfter adds to out the person that the short word a, at as, and
// the word after it up to j sound like together ("one sephoraus" for
// Onesiphorus: a long name heard as a short word and the rest; see
// splitPerson). It reports whether it added one.
func (m *matcher) splitAfter(out *[]personRec, a string, as, j int) bool {
	text := m.sc.text
	w := text[as+len(a)+1 : j]
	if len(w) < 5 || len(w) > 20 {
		return false
	}
	name := m.splitPerson(a, w)
	if name == "" || notProse(text, as, j) {
		return false
	}
	*out = append(*out, personRec{as, j, name, 0.6})
	return true
}

// heardPersons returns the suggestions of people's names that the
// engine makes by default (Options.Categories empty) in a sermon: the
// names heard wrong after a naming cue or as a short word and the rest,
// found as the scanner read the text (see personScan), and their other
// places in the document (see heardAgain), and the people of the
// chapters the document cites (see chapterPersons). A lowercase name
// written right and any other name heard wrong without a cue are changed
// only when Options.Categories lists CategoryPerson.
func (m *matcher) heardPersons(ps *personScan) []personRec {
	if !m.sermon() {
		return nil
	}
	if len(ps.heard) > 0 {
		ps.out = m.heardAgain(ps.out, ps.heard)
	}
	ps.out = m.chapterPersons(ps.out, ps.rare)
	ps.out = m.fourLetterNames(ps.out, ps.four)
	return ps.out
}

// personScan finds, as the scanner reads the text, the people's names
// heard wrong after a naming cue or a short word (see heardPerson), so
// that the default suggestions of people's names cost no pass of their
// own over the text.
type personScan struct {
	d       *dict
	sc      *scanner
	last    token // the last token seen
	cue     token // a cue word that ended the tokens seen, if pending
	before  token // the token before cue
	pending bool
	out     []personRec
	heard   map[string]string
	rare    [][2]int32 // the bounds of the words that may be a name heard wrong (see personScan.see)
	four    [][2]int32 // those of four letters, read by their companions only (see matcher.fourLetterNames)
}

// The words before a name that personScan reads (dict.cueHash).
const (
	cueNamed = iota
	cueCalled
	cueOf
	cueOne
	cueA
	cueAn
	numCues
)

// see reads the tokens of the text that the scanner has just added to
// its window, toks[first:]; cues has a bit set for each that may be a
// cue word (see scanner.cues), and rares for each of four to 20
// letters, no dictionary key, digit or rune from 0x80. It keeps the
// words that may be a name heard wrong for the people of the cited
// chapters (see matcher.chapterPersons): those of rares that are no
// word of dict.known.
func (ps *personScan) see(toks []token, first int, cues, rares []uint64) {
	if first >= len(toks) {
		return
	}
	// Whether a word has the length and flags is not predictable: the
	// scanner gathers the words that have as bits, without a branch, and
	// only they are looked up in dict.known.
	known := ps.d.known
	for w := first >> 6; w<<6 < len(toks); w++ {
		for cand := rares[w]; cand != 0; cand &= cand - 1 {
			if t := &toks[w<<6+bits.TrailingZeros64(cand)]; knownMiss(known, t.h) == 1 {
				if t.end-t.start == 4 {
					ps.four = append(ps.four, [2]int32{t.start, t.end}) // see fourLetterNames
				} else {
					ps.rare = append(ps.rare, [2]int32{t.start, t.end})
				}
			}
		}
	}
	if ps.pending {
		ps.pending = false
		ps.check(&ps.before, &ps.cue, &toks[first])
	}
	for w := first >> 6; w < len(cues) && w<<6 < len(toks); w++ {
		found := cues[w]
		if w == first>>6 {
			found &= ^uint64(0) << (first & 63) // the bits before are of tokens read before
		}
		for ; found != 0; found &= found - 1 {
			k := w<<6 + bits.TrailingZeros64(found)
			before := &ps.last
			if k > first {
				before = &toks[k-1]
			}
			if k+1 == len(toks) {
				ps.cue, ps.before, ps.pending = toks[k], *before, true
				break
			}
			if t := &toks[k+1]; t.flags&tDigits == 0 && t.end-t.start >= 5 && t.end-t.start <= 24 {
				ps.check(before, &toks[k], t)
			}
		}
	}
	ps.last = toks[len(toks)-1]
}

// check reads the word of t after a word that may be a cue, cue, and the
// word before it.
func (ps *personScan) check(before, cue, t *token) {
	n := t.end - t.start
	if t.flags&tDigits != 0 || n < 5 || n > 24 {
		return
	}
	d := ps.d
	c := 0
	for c < numCues && d.cueHash[c] != cue.h {
		c++
	}
	switch c {
	case cueNamed, cueCalled:
	case cueOf:
		if !slices.Contains(d.ofHash[:], before.h) {
			return
		}
	case cueOne, cueA, cueAn:
		if cue.end != t.start-1 || n+cue.end-cue.start < 9 {
			return
		}
		m := matcher{d: d, sc: ps.sc}
		m.splitAfter(&ps.out, ps.sc.text[cue.start:cue.end], cue.s(), t.e())
		return
	default:
		return
	}
	m := matcher{d: d, sc: ps.sc}
	m.namedPerson(&ps.out, &ps.heard, t.s(), t.e())
}

// splitPerson returns the name of a biblical person of nine letters or
// more that the short word a ("one", "a", "an") and the word w after it,
// which no list holds, sound like together ("one sephoraus":
// Onesiphorus), or "".
func (m *matcher) splitPerson(a, w string) string {
	if !strings.EqualFold(a, "one") && !strings.EqualFold(a, "a") && !strings.EqualFold(a, "an") {
		return ""
	}
	if len(a)+len(w) < 9 {
		return ""
	}
	var b [32]byte
	lw := appendLower(b[:0], w)
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	var jb [32]byte
	joined := appendLower(append(jb[:0], a...), w)
	var kb [32]byte
	for _, p := range m.d.personSounds[string(appendPhoneticKey(kb[:0], joined))] {
		if p.lower[0] == joined[0] && editDistance(joined, p.lower, 2) <= 2 {
			if _, ok := m.d.kjvNames[string(lw)]; ok || m.d.placeKeys[string(lw)] || m.d.isBookWord(string(lw)) || m.d.fuzzyEnglish[string(lw)] {
				return ""
			}
			if _, ok := m.d.englishNear[string(lw)]; ok {
				return ""
			}
			return p.name
		}
	}
	return ""
}

// ofNames are the words before "of" that name a person after it.
var ofNames = [...]string{"son", "sons", "daughter", "daughters", "wife", "household"}

// namingCue reports whether the words before a word, p2 and p1, name a
// person: "a man named", "called", "the sons of", "the household of".
func namingCue(p2, p1 string) bool {
	if strings.EqualFold(p1, "named") || strings.EqualFold(p1, "called") {
		return true
	}
	if !strings.EqualFold(p1, "of") {
		return false
	}
	for _, w := range ofNames {
		if strings.EqualFold(p2, w) {
			return true
		}
	}
	return false
}

// cuePerson returns the name of a biblical person that w, a word after a
// naming cue that no list holds, sounds like and is within two edits of
// ("named ananas" is Ananias, "the sons of skeva" Sceva), or "".
func (m *matcher) cuePerson(w string) string {
	var b [24]byte
	lw := appendLower(b[:0], w)
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	if _, ok := m.d.kjvNames[string(lw)]; ok || m.d.placeKeys[string(lw)] || m.d.isBookWord(string(lw)) ||
		m.d.fuzzyEnglish[string(lw)] {
		return ""
	}
	if _, ok := m.d.englishNear[string(lw)]; ok {
		return ""
	}
	if _, ok := m.d.personNear[string(lw)]; ok {
		return "" // "called total depravity", "a woman named teresa"
	}
	var kb [32]byte
	key := appendPhoneticKey(kb[:0], lw)
	if len(key) < 2 {
		return ""
	}
	for _, p := range m.d.personCueSounds[string(key)] {
		if p.lower[0] == lw[0] && editDistance(lw, p.lower, 2) <= 2 && !szOnly(lw, p.lower) {
			return p.name
		}
	}
	// One letter off a name whose sound the spelling changes ("skeva" for
	// Sceva: a k for a c before e): the names of the same first letter and
	// length within one.
	for _, p := range m.d.personsByLetter[lw[0]-'a'] {
		if n := len(p.lower) - len(lw); n >= -1 && n <= 1 && editDistance(lw, p.lower, 1) <= 1 && !szOnly(lw, p.lower) {
			return p.name
		}
	}
	return ""
}

// heardAgain adds to out, in text order, the other places where the text
// says a word it has once said after a naming cue: the document has named
// the person so ("there was a disciple named ananas … ananas answered").
func (m *matcher) heardAgain(out []personRec, heard map[string]string) []personRec {
	text := m.sc.text
	have := make(map[int]bool, len(out))
	for _, p := range out {
		have[p.start] = true
	}
	added := false
	for lw, name := range heard {
		// The word as heard, with a capital, and in capitals.
		for _, form := range [...]string{lw, strings.ToUpper(lw[:1]) + lw[1:], strings.ToUpper(lw)} {
			for i := 0; ; {
				k := strings.Index(text[i:], form)
				if k < 0 {
					break
				}
				s, e := i+k, i+k+len(form)
				i = e
				if (s > 0 && isWordByte(text[s-1])) || (e < len(text) && isWordByte(text[e])) || have[s] || notProse(text, s, e) {
					continue
				}
				have[s] = true
				out = append(out, personRec{s, e, name, 0.6})
				added = true
			}
		}
	}
	if added {
		slices.SortFunc(out, func(a, b personRec) int { return a.start - b.start })
	}
	return out
}

// isWordByte reports whether c may be part of a word.
func isWordByte(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || c == '\'' || c >= 0x80
}

// mergePersons puts the changes of people's names among the matcher's
// records, in text order, leaving out those that overlap another change.
func (m *matcher) mergePersons(ps []personRec) {
	if len(ps) == 0 {
		return
	}
	var old []rec
	for _, blk := range m.found.blocks {
		old = append(old, blk...)
	}
	oldEnd := func(x rec) int { return m.found.end(x) }
	var merged recs
	newIndex := make([]int32, len(old))
	k := 0
	lastEnd := 0
	for _, p := range ps {
		for k < len(old) && int(old[k].start) < p.end {
			newIndex[k] = int32(merged.n)
			merged.add(int(old[k].start), oldEnd(old[k]), old[k].repl, old[k].rule, old[k].conf)
			lastEnd = oldEnd(old[k])
			k++
		}
		if p.start < lastEnd || (k < len(old) && int(old[k].start) < p.end) {
			continue
		}
		if p.conf < autoThreshold && m.personSuggestionCut(p.start, p.end) {
			continue // a word of another language, or a name with an s (r14c_lang.go)
		}
		rule := rulePersonLowercase
		if p.conf < autoThreshold {
			rule = m.fuzzyRule(p.repl)
		}
		merged.add(p.start, p.end, m.str(p.repl), rule, confPct(p.conf))
		lastEnd = p.end
	}
	for ; k < len(old); k++ {
		newIndex[k] = int32(merged.n)
		merged.add(int(old[k].start), oldEnd(old[k]), old[k].repl, old[k].rule, old[k].conf)
	}
	for i := range m.refs {
		m.refs[i].rec = newIndex[m.refs[i].rec]
	}
	m.found = merged
}

// szOnly reports whether a and b differ only where one has an s and the
// other a z.
func szOnly(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] == 's' && b[i] == 'z' || a[i] == 'z' && b[i] == 's') {
			return false
		}
	}
	return true
}
