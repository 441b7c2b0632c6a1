package correction

import (
	"math/bits"
	"strings"
)

// frequentChapters is the most chapters the KJV may name a person in for
// the person to be read among the people of every chapter a text cites
// (see chapterPeople). A person named in more (Naphtali, Philip, Nadab,
// Maaseiah) is one a recognizer has heard often and a sermon names
// without reading a chapter, so the engine reads them only in the passage
// a text is reading (see frequentPerson).
const frequentChapters = 10

// frequentListed is how many of the words around a word (see namesAround)
// must be names for a person named in many chapters to be read in a list:
// one more than namesRead asks ("david platt an american pastor" is no
// list).
const frequentListed = 3

// frequentName reports whether chapters, a list such as "Col.1,Col.4",
// holds more than frequentChapters chapters.
func frequentName(chapters string) bool {
	return strings.Count(chapters, ",") >= frequentChapters
}

// addChapterFrequent records the person name, a line of
// data/kjv_people.tsv named in many chapters, under each of its chapters;
// a place so named is known to every recognizer and left out.
func (d *dict) addChapterFrequent(name, lower, chapters string, byOSIS map[string]uint8) error {
	if d.placeKeys[lower] {
		return nil
	}
	p := soundedName{personName{name: name, lower: lower}, phoneticKey(lower)}
	return d.eachChapter(chapters, byOSIS, func(i int) { d.chapterFrequent[i] = append(d.chapterFrequent[i], p) })
}

// frequentKeys holds what frequentPerson reads once for a text: the
// people named in many chapters (see frequentChapters) of the chapters it
// cites, their phonetic keys, and whether each word read may be heard for
// one of them.
type frequentKeys struct {
	built  bool
	people []soundedName
	keys   map[string]struct{}
	may    map[string]bool
}

// mayBe reports whether the word w may be heard for a person of fk: with
// the sound of one (see chapterPerson) or as listedPerson reads a name.
func (fk *frequentKeys) mayBe(m *matcher, w string) bool {
	if !fk.built {
		fk.built = true
		fk.keys = map[string]struct{}{}
		fk.may = map[string]bool{}
		for i, set := range m.chapters {
			for ; set != 0; set &= set - 1 {
				for _, p := range m.d.chapterFrequent[i<<6+bits.TrailingZeros64(set)] {
					if !containsPerson(fk.people, p.name) {
						fk.people = append(fk.people, p)
						fk.keys[p.key] = struct{}{}
					}
				}
			}
		}
	}
	if may, ok := fk.may[w]; ok {
		return may
	}
	var lb, kb [32]byte
	may := false
	if _, key, ok := m.heardName(w, &lb, &kb); ok {
		_, may = fk.keys[string(key)]
	}
	may = may || m.listedPerson(fk.people, w) != ""
	fk.may[w] = may
	return may
}

// frequentPerson returns the person named in many chapters (see
// frequentChapters) that the word text[start:end], which no list holds
// and no rule of the cited chapters explains, is heard for, or "": one of
// a cited chapter whose book the text names within passageWindow words
// before it, the passage a speaker is reading, with the same sound and
// within half the name's letters (as chapterPerson reads them; "and
// absolam rode upon a mule" after 2 Samuel 18), or, said among three
// names or more, by listedPerson's sound and letters ("acob shab hadijah
// massia khita azariah" after Nehemiah 8:7). A word after a name is a
// surname, not a person of the passage ("i remember david platt" after
// Luke 23 is not Pilate).
func (m *matcher) frequentPerson(fk *frequentKeys, text string, start, end int) string {
	w := text[start:end]
	if !fk.mayBe(m, w) {
		return ""
	}
	listed := m.namesAround(text, start, end) >= frequentListed
	if !listed && m.afterName(text, start) {
		return ""
	}
	people := m.passageOf(text, start, m.d.chapterFrequent)
	if listed {
		return m.listedPerson(people, w)
	}
	return m.chapterPerson(people, w)
}

// afterName reports whether the word before offset start of text is a KJV
// name or a modern given name.
func (m *matcher) afterName(text string, start int) bool {
	s := wordStartBefore(text, start)
	e := s
	for e < start && isWordByte(text[e]) {
		e++
	}
	var b [24]byte
	if e-s < 3 || e-s > len(b) {
		return false
	}
	lw := appendLower(b[:0], text[s:e])
	if _, ok := m.d.kjvNames[string(lw)]; ok {
		return true
	}
	_, ok := m.d.modernNames[string(lw)]
	return ok
}
