package correction

import (
	"slices"
	"strings"
)

// CategoryPerson is the category of the names of biblical people
// ("nebuchadnezar" for Nebuchadnezzar). Its changes are made only when
// Options.Categories lists it.
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
// ("melkizedek" for Melchizedek).
// Outside a sermon it finds nothing.
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
		if len(w) >= 5 && len(w) <= 24 && namingCue(p2, p1) {
			if name := m.cuePerson(w); name != "" && !notProse(text, start, j) {
				if heard == nil {
					heard = map[string]string{}
				}
				heard[strings.ToLower(w)] = name
				out = append(out, personRec{start, j, name, 0.6})
				continue
			}
		}
		if len(w) >= 5 && len(w) <= 20 && len(p1) <= 3 && prev2e == start-1 {
			// "one sephoraus" for Onesiphorus: a long name heard as a short
			// word and the rest.
			if name := m.splitPerson(p1, w); name != "" && !notProse(text, prev2s, j) {
				out = append(out, personRec{prev2s, j, name, 0.6})
				continue
			}
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
	return out
}

// splitPerson returns the name of a biblical person of nine letters or
// more that the short word a ("one", "a", "an") and the word w after it,
// which no list holds, sound like together ("one sephoraus":
// Onesiphorus), or "".
func (m *matcher) splitPerson(a, w string) string {
	switch strings.ToLower(a) {
	case "one", "a", "an":
	default:
		return ""
	}
	var b [32]byte
	lw := appendLower(b[:0], w)
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	if _, ok := m.d.kjvNames[string(lw)]; ok || m.d.placeKeys[string(lw)] || m.d.isBookWord(string(lw)) || m.d.fuzzyEnglish[string(lw)] {
		return ""
	}
	if _, ok := m.d.englishNear[string(lw)]; ok {
		return ""
	}
	joined := appendLower(append(b[:0:0], a...), w)
	if len(joined) < 9 {
		return ""
	}
	var kb [32]byte
	for _, p := range m.d.personSounds[string(appendPhoneticKey(kb[:0], joined))] {
		if p.lower[0] == joined[0] && editDistance(joined, p.lower, 2) <= 2 {
			return p.name
		}
	}
	return ""
}

// namingCue reports whether the words before a word, p2 and p1, name a
// person: "a man named", "called", "the sons of", "the household of".
func namingCue(p2, p1 string) bool {
	if strings.EqualFold(p1, "named") || strings.EqualFold(p1, "called") {
		return true
	}
	if !strings.EqualFold(p1, "of") {
		return false
	}
	for _, w := range [...]string{"son", "sons", "daughter", "daughters", "wife", "household"} {
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
	var lw []byte
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) || (i > 0 && isWordByte(text[i-1])) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		if n := j - i; n >= 5 && n <= 24 && !have[i] {
			lw = appendLower(lw[:0], text[i:j])
			if name, ok := heard[string(lw)]; ok && !notProse(text, i, j) {
				out = append(out, personRec{i, j, name, 0.6})
				added = true
			}
		}
		i = j
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
		rule := rulePersonLowercase
		if p.conf < autoThreshold {
			rule = rulePersonFuzzy
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
