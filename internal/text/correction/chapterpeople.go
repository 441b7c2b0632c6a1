package correction

//go:generate go run ./gen/kjvlisted -names data/kjv_names.txt -english data/english_words.txt -o data/kjv_listed_names.txt
//go:generate go run ./gen/kjvpeople -names data/kjv_names.txt,data/kjv_listed_names.txt -versification data/kjv_versification.tsv -o data/kjv_people.tsv -starts data/kjv_verse_starts.bin

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// numChapters is the number of chapters of the 66 books of the KJV.
const numChapters = 1189

// chapterWords is the number of uint64 words of a set of chapters.
const chapterWords = (numChapters + 63) / 64

// buildChapterPeople reads the chapters that name each person of the KJV
// (data/kjv_people.tsv, generated from the public-domain KJV text by
// gen/kjvpeople): a sermon that cites a chapter may say its people's
// names, heard wrong. Names of places, books and peoples, and names of
// four letters or fewer, are left out, as buildPersons leaves them; a
// person named in many chapters is kept apart (see frequentName).
func (d *dict) buildChapterPeople() error {
	byOSIS := make(map[string]uint8, len(d.verses))
	d.chapterBase = make([]uint16, len(d.verses))
	n := 0
	for k, v := range d.verses {
		byOSIS[v.osis] = uint8(k + 1)
		d.chapterBase[k] = uint16(n)
		n += len(v.verses)
	}
	if n != numChapters {
		return fmt.Errorf("correction: the versification has %d chapters, want %d", n, numChapters)
	}
	d.chapterPeople = make([][]soundedName, numChapters)
	d.chapterPlaces = make([][]soundedName, numChapters)
	d.chapterFrequent = make([][]soundedName, numChapters)
	d.verseSounds = map[string][]versePerson{}
	defer d.companions.finish()
	defer d.wide.finish()
	return readTSV("data/kjv_people.tsv", func(f []string) error {
		if len(f) != 3 {
			return fmt.Errorf("want 3 fields, have %d", len(f))
		}
		name := f[0]
		lower := strings.ToLower(name)
		d.addWideName(name, lower, f[1], byOSIS)
		if err := d.addCompanion(name, lower, f[1], byOSIS); err != nil {
			return err
		}
		if len(lower) < 5 || d.isBookWord(lower) || groupName(lower) {
			return nil
		}
		if frequentName(f[1]) {
			return d.addChapterFrequent(name, lower, f[1], byOSIS)
		}
		if d.placeKeys[lower] {
			return d.addChapterPlace(name, lower, f[1], byOSIS)
		}
		p := soundedName{personName{name: name, lower: lower}, phoneticKey(lower)}
		if err := d.eachChapter(f[1], byOSIS, func(i int) { d.chapterPeople[i] = append(d.chapterPeople[i], p) }); err != nil {
			return err
		}
		if f[2] != "" {
			k := p.key
			d.verseSounds[k] = append(d.verseSounds[k], versePerson{p.personName, strings.Fields(f[2])})
		}
		return nil
	})
}

// versePerson is a person the KJV names in a few verses, and the words
// of those verses that say most about them (see gen/kjvpeople).
type versePerson struct {
	personName
	words []string // in byte order
}

// heardName returns the word w in lowercase and its phonetic key if it
// may be a name heard wrong: five to 20 letters, in no list of names or
// English words, and a key of three sounds or more.
func (m *matcher) heardName(w string, lb, kb *[32]byte) ([]byte, []byte, bool) {
	return m.heardNameKey(w, lb, kb, 3)
}

// heardNameKey is heardName with a key of minKey sounds or more.
func (m *matcher) heardNameKey(w string, lb, kb *[32]byte, minKey int) ([]byte, []byte, bool) {
	return m.heardNameKeyFrom(w, lb, kb, minKey, 5)
}

// heardNameKeyFrom is heardNameKey for words of minLen letters or more.
func (m *matcher) heardNameKeyFrom(w string, lb, kb *[32]byte, minKey, minLen int) ([]byte, []byte, bool) {
	if len(w) < minLen || len(w) > 20 {
		return nil, nil, false
	}
	lw := appendLower(lb[:0], w)
	for _, c := range lw {
		if c < 'a' || c > 'z' {
			return nil, nil, false
		}
	}
	d := m.d
	if _, ok := d.kjvNames[string(lw)]; ok || d.placeKeys[string(lw)] || d.isBookWord(string(lw)) || d.fuzzyEnglish[string(lw)] {
		return nil, nil, false
	}
	if _, ok := d.englishNear[string(lw)]; ok {
		return nil, nil, false
	}
	if _, ok := d.personNear[string(lw)]; ok {
		return nil, nil, false
	}
	if _, ok := d.modernNames[string(lw)]; ok {
		return nil, nil, false
	}
	if isEnglishWord(string(lw)) {
		return nil, nil, false
	}
	key := appendPhoneticKey(kb[:0], lw)
	if len(key) < minKey {
		return nil, nil, false
	}
	return lw, key, true
}

// soundedName is a person's name and its phonetic key.
type soundedName struct {
	personName
	key string
}

// chapterPeople returns the people named by the chapters the text has
// cited, or nil.
func (m *matcher) chapterPeople() []soundedName {
	var out []soundedName
	for w, set := range m.chapters {
		for ; set != 0; set &= set - 1 {
			k := w<<6 + bits.TrailingZeros64(set)
			for _, p := range m.d.chapterPeople[k] {
				if !containsPerson(out, p.name) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// containsPerson reports whether ps holds the person named name.
func containsPerson(ps []soundedName, name string) bool {
	for _, p := range ps {
		if p.name == name {
			return true
		}
	}
	return false
}

// chapterPerson returns the person among people, those of the chapters
// the text cites, that the word w sounds like, or "": a word that no
// list holds, with the sound of the name and within half its letters of
// it ("malcus" for Malchus in a sermon on John 18, "yodius" for Euodias,
// "synteki" for Syntyche in one on Philippians 4), or the name's first
// letters cut short ("bartimae" for Bartimaeus in one on Mark 10).
func (m *matcher) chapterPerson(people []soundedName, w string) string {
	if len(people) == 0 {
		return ""
	}
	var lb, kb [32]byte
	lw, key, ok := m.heardName(w, &lb, &kb)
	if !ok {
		return ""
	}
	best, bestD := "", len(lw)
	for _, p := range people {
		pk := p.key
		switch {
		case pk == string(key):
			// The nearest of the names of that sound: "nashon" is
			// Nahshon before Naasson.
			if half := len(p.lower) / 2; !szOnly(lw, p.lower) {
				if dd := editDistance(lw, p.lower, half); dd <= half && dd < bestD {
					best, bestD = p.name, dd
				}
			}
		case len(lw) >= 7 && len(p.lower) > len(lw) && len(p.lower)-len(lw) <= 3 && len(key) >= 4 &&
			strings.HasPrefix(pk, string(key)) && editDistance(lw, p.lower[:len(lw)], 1) <= 1:
			// The end cut off: "blind / bartimae".
			if dd := len(p.lower) - len(lw); dd < bestD {
				best, bestD = p.name, dd
			}
		}
	}
	return best
}

// chapterPersons adds to out the people that the words of the text at
// spans, which no list holds, are heard for, and returns it in text
// order: a person of a chapter the text cites (see chapterPerson), or a
// person the KJV names in a few verses whose words the text says around
// the word, as a sermon quoting the verse does ("paul says i beseech
// yodius and synteki that they be of the same mind": Euodias and
// Syntyche, Philippians 4:2; see versePerson), then one heard with a sound
// lost or as a possessive (see soundLostPerson, possessivePerson), or said
// among names read from a cited passage (see listedPerson), or a person
// named in many chapters of the passage the text reads (see
// frequentPerson), or, when none of these explains it, a name of the
// whole Bible (see widePerson). Every place the text says a word found so
// is suggested.
func (m *matcher) chapterPersons(out []personRec, spans [][2]int32) []personRec {
	if len(spans) == 0 {
		return out
	}
	people := m.chapterPeople()
	text := m.sc.text
	type heard struct {
		name   string        // the person of a cited chapter, or the person the verse's words name
		verse  []versePerson // the people of a few verses the word sounds like
		listed bool          // the word may be a person of the cited chapters said among names (see listedPerson)
		near   bool          // the word sounds like a place of a chapter next to a cited one (see neighbourPlace)
		wide   bool          // name is a name of no cited chapter (see widePerson)
	}
	words := map[string]heard{} // a word said again is read once
	var fk frequentKeys
	var np neighbourPeople
	var short []personRec // the words of four letters of the lists read (see shortListed)
	for _, s := range spans {
		w := text[s[0]:s[1]]
		h, ok := words[w]
		if !ok {
			h = heard{name: m.chapterPerson(people, w)}
			if h.name == "" {
				h.verse = m.versePeople(w)
			}
		}
		for _, p := range h.verse {
			if h.name == "" && versesSaid(text, int(s[0]), int(s[1]), p.words) {
				h.name = p.name
			}
		}
		if h.name == "" && !ok {
			h.name = m.soundLostPerson(people, w)
			if h.name == "" {
				h.name = m.possessivePerson(people, w)
			}
			if h.name == "" {
				h.name = m.chapterPlace(w)
			}
			if h.name == "" {
				h.name = m.twoLostPerson(people, w)
			}
			h.listed = h.name == "" && m.listedPerson(people, w) != ""
			h.near = h.name == "" && !h.listed && m.neighbourPlace(&np, w) != ""
		}
		if h.listed && h.name == "" && m.namesRead(text, int(s[0]), int(s[1])) {
			pp := m.passagePeople(text, int(s[0]))
			if h.name = m.listedPerson(pp, w); h.name != "" {
				short = m.shortListed(short, text, int(s[0]), int(s[1]), append(pp, m.passageOf(text, int(s[0]), m.d.chapterFrequent)...))
			}
		}
		if h.name == "" {
			h.name = m.frequentPerson(&fk, text, int(s[0]), int(s[1]))
		}
		if h.near && h.name == "" && afterPlaceWord(text, int(s[0])) {
			h.name = m.neighbourPlace(&np, w)
		}
		if !ok || h.name != "" {
			words[w] = h
		}
	}
	for w, h := range words {
		if h.name == "" {
			if h.name = m.widePerson(w); h.name != "" {
				h.wide = true
				words[w] = h
			}
		}
	}
	added := false
	for _, r := range short {
		if !notProse(text, r.start, r.end) && !owned(text, r.start) {
			out = append(out, r)
			added = true
		}
	}
	var comp map[string][]companionCand // the names a word no rule explains may be by its companions (see companionName)
	var dn docNames                     // the names the text writes that a word may be (see documentName)
	for _, s := range spans {
		start, end := int(s[0]), int(s[1])
		h := words[text[start:end]]
		if h.name == "" {
			h.name = m.rowName(text, start, end)
		}
		if h.name == "" {
			if h.name = m.companionOf(&comp, text, start, end, func(w string) string { return words[w].name }); h.name == "" {
				h.name = m.documentName(text, start, end, &dn) // round 14A
			}
			if h.name != "" && m.companionBarred(text, start, end) {
				continue
			}
		}
		if h.wide || h.name != "" && dn.writes(text, h.name) == 0 {
			if name := m.documentName(text, start, end, &dn); name != "" { // round 14A: the sermon's own name before one of the whole Bible or one it never writes
				if m.companionBarred(text, start, end) {
					continue
				}
				h.name, h.wide = name, false
			}
		}
		if h.wide && (contractionCut(text, end) || m.afterName(text, start) || glossed(text, start, end) || allCapitals(text[start:end]) || m.foreignLine(start)) {
			continue
		}
		if name := h.name; name != "" && !notProse(text, start, end) && !owned(text, start) {
			out = append(out, personRec{start, end, name, 0.6})
			added = true
		}
	}
	if added {
		slices.SortFunc(out, func(a, b personRec) int { return a.start - b.start })
		out = slices.CompactFunc(out, func(a, b personRec) bool { return a.start == b.start })
	}
	return out
}

// versePeople returns the people of a few verses (see versePerson) that
// the word w, which no list holds, sounds like and is within half their
// letters of.
func (m *matcher) versePeople(w string) []versePerson {
	var lb, kb [32]byte
	lw, key, ok := m.heardName(w, &lb, &kb)
	if !ok {
		return nil
	}
	var out []versePerson
	for _, p := range m.d.verseSounds[string(key)] {
		if half := len(p.lower) / 2; editDistance(lw, p.lower, half) <= half && !szOnly(lw, p.lower) {
			out = append(out, p)
		}
	}
	return out
}

// verseWindow is how many words either side of a word versesSaid reads.
const verseWindow = 15

// versesSaid reports whether the text says two or more of words, the
// words of a person's verses, within verseWindow words of text[start:end].
func versesSaid(text string, start, end int, words []string) bool {
	lo, hi := start, end
	for n := 0; n < verseWindow && lo > 0; n++ {
		lo = wordStartBefore(text, lo)
	}
	for n := 0; n < verseWindow && hi < len(text); n++ {
		_, hi = wordAfterAny(text, hi)
	}
	var found [2]string
	n := 0
	var b [24]byte
	for i := lo; i < hi; {
		if !isWordByte(text[i]) || text[i] == '\'' {
			i++
			continue
		}
		j := i
		for j < hi && isWordByte(text[j]) && text[j] != '\'' {
			j++
		}
		if i != start && j-i >= 3 && j-i <= 24 {
			lw := string(appendLower(b[:0], text[i:j]))
			if _, ok := slices.BinarySearch(words, lw); ok && lw != found[0] {
				found[n] = lw
				if n++; n == 2 {
					return true
				}
			}
		}
		for j < hi && isWordByte(text[j]) {
			j++
		}
		i = j
	}
	return false
}

// wordStartBefore returns the start of the word before offset i of text,
// twoWordsBefore returns the two words before offset start of text, the
// nearer one last ("the son of" before a name: "son", "of").
func twoWordsBefore(text string, start int) (string, string) {
	s1 := wordStartBefore(text, start)
	e1 := s1
	for e1 < start && isWordByte(text[e1]) {
		e1++
	}
	s2 := wordStartBefore(text, s1)
	e2 := s2
	for e2 < s1 && isWordByte(text[e2]) {
		e2++
	}
	return text[s2:e2], text[s1:e1]
}

// or 0.
func wordStartBefore(text string, i int) int {
	for i > 0 && !isWordByte(text[i-1]) {
		i--
	}
	for i > 0 && isWordByte(text[i-1]) {
		i--
	}
	return i
}

// wordAfterAny returns the bounds of the word after offset j of text,
// across any bytes that are no word's, or len(text), len(text).
func wordAfterAny(text string, j int) (int, int) {
	for j < len(text) && !isWordByte(text[j]) {
		j++
	}
	s := j
	for j < len(text) && isWordByte(text[j]) {
		j++
	}
	return s, j
}

// rareSpans returns the bounds of the words of the text that may be a
// name heard wrong, as personScan.see keeps them from the scanner's
// tokens: five to 20 letters or four of a shape of few English words
// (see fourLetterShapes), no dictionary key and no word of the lists
// of known words (see buildKnown).
func (m *matcher) rareSpans() [][2]int32 {
	text := m.sc.text
	var out [][2]int32
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) || text[i] == '\'' {
			i++
			continue
		}
		j := i
		letters := true
		for j < len(text) && isWordByte(text[j]) && text[j] != '\'' {
			letters = letters && text[j]|0x20 >= 'a' && text[j]|0x20 <= 'z'
			j++
		}
		if n := j - i; letters && n <= 20 && m.d.scanShape((n*27+letterIndex(text[i]))*27+letterIndex(text[j-1]))>>2 != 0 {
			if h := keyHash(text[i:j]); m.d.knownMiss(h) == 1 && m.d.keyBit(h) == 0 {
				out = append(out, [2]int32{int32(i), int32(j)})
			}
		}
		i = j
	}
	return out
}

// buildKnown fills d.known with the words of four to 20 letters that a
// name heard wrong is not: the English words of SCOWL, the KJV's names
// and its own common words, and the words listed as near a name. The
// scanner's person pass keeps the other words (see personScan.see), so that the people of the cited
// chapters are compared with a few words of a text, not with all.
func (d *dict) buildKnown() {
	d.known = new([knownBits]uint64)
	add := func(w string) {
		if len(w) >= 4 && len(w) <= 20 {
			d.addKnown(keyHash(w))
		}
	}
	s := englishWords[strings.IndexByte(englishWords, '\n')+1:]
	for w := range strings.SplitSeq(s, "\n") {
		add(w)
	}
	for w := range d.kjvNames {
		add(w)
	}
	for w := range d.englishNear {
		add(w)
	}
	for w := range d.personNear {
		add(w)
	}
	for w := range d.modernNames {
		add(w)
	}
	for w := range d.fuzzyEnglish {
		add(w)
	}
}
