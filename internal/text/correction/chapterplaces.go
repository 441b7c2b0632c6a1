package correction

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// addChapterPlace records the place name, a line of data/kjv_people.tsv,
// under each chapter of chapters ("Col.1,Col.4") that names it: a sermon
// that cites a chapter may say its places, heard wrong, as it says its
// people ("colasse" for Colosse, "heropoulos" for Hierapolis in one on
// Colossians 4).
func (d *dict) addChapterPlace(name, lower, chapters string, byOSIS map[string]uint8) error {
	p := soundedName{personName{name: name, lower: lower}, phoneticKey(lower)}
	return d.eachChapter(chapters, byOSIS, func(i int) { d.chapterPlaces[i] = append(d.chapterPlaces[i], p) })
}

// eachChapter calls f with the index (in the set of the 1,189 chapters) of each chapter of
// chapters, a list such as "Col.1,Col.4" in the OSIS abbreviations of byOSIS; a chapter that
// does not exist is an error.
func (d *dict) eachChapter(chapters string, byOSIS map[string]uint8, f func(i int)) error {
	for c := range strings.SplitSeq(chapters, ",") {
		osis, ch, ok := strings.Cut(c, ".")
		b := byOSIS[osis]
		k, err := strconv.Atoi(ch)
		if !ok || err != nil || b == 0 || !d.hasChapter(b, k) {
			return fmt.Errorf("bad chapter %q", c)
		}
		f(int(d.chapterBase[b-1]) + k - 1)
	}
	return nil
}

// chapterPlace returns the place of a chapter the text cites that the
// word w, which no list holds and no person of those chapters explains,
// is heard for, or "": by the sound and letters of chapterPerson, or with
// a sound lost as soundLostPerson reads people. A word of a people's form
// ("lycanian", "ludicans") is left to the rules of peoples.
func (m *matcher) chapterPlace(w string) string {
	if groupName(strings.ToLower(w)) {
		return "" // "the lycanian language": the people's word, not the place's name
	}
	var places []soundedName
	for i, set := range m.chapters {
		for ; set != 0; set &= set - 1 {
			for _, p := range m.d.chapterPlaces[i<<6+bits.TrailingZeros64(set)] {
				if !containsPerson(places, p.name) {
					places = append(places, p)
				}
			}
		}
	}
	if name := m.chapterPerson(places, w); name != "" {
		return name
	}
	return m.soundLostPerson(places, w)
}

// fuzzyRule is the rule of a suggested name found among the names of the
// cited chapters: a place's, or a person's.
func (m *matcher) fuzzyRule(name string) ruleID {
	if m.d.placeKeys[strings.ToLower(name)] {
		return rulePlaceFuzzy
	}
	return rulePersonFuzzy
}
