package correction

import "strings"

// neighbourPeople holds the places of the chapters next to the chapters a
// text cites, read once for a text by neighbourPlace.
type neighbourPeople struct {
	built bool
	names []soundedName
}

// neighbourPlace returns the place of a chapter next to a chapter the
// text cites, in the same book and not cited itself, that the word w,
// which no list holds and no rule of the cited chapters explains, sounds
// like, or "": a sermon on a chapter tells what comes just before or after
// it ("the church in colasse" in one on Colossians 2: Colosse of
// Colossians 1:2). Only the sound and letters of chapterPerson count: a
// sound lost or a list is no evidence so far from the cited chapter; and
// the word must be said where a place is (see afterPlaceWord).
func (m *matcher) neighbourPlace(np *neighbourPeople, w string) string {
	if !np.built {
		np.built = true
		d := m.d
		cited := func(k int) bool { return m.chapters[k>>6]&(1<<(k&63)) != 0 }
		add := func(k int) {
			for _, p := range d.chapterPlaces[k] {
				if !containsPerson(np.names, p.name) {
					np.names = append(np.names, p)
				}
			}
		}
		for b := range d.verses {
			lo := int(d.chapterBase[b])
			hi := lo + len(d.verses[b].verses)
			for k := lo; k < hi; k++ {
				if !cited(k) && (k > lo && cited(k-1) || k+1 < hi && cited(k+1)) {
					add(k)
				}
			}
		}
	}
	return m.chapterPerson(np.names, w)
}

// afterPlaceWord reports whether the word before offset start of text is
// one a place is said after: in, at, to, from, into or unto.
func afterPlaceWord(text string, start int) bool {
	s := wordStartBefore(text, start)
	e := s
	for e < start && isWordByte(text[e]) {
		e++
	}
	switch strings.ToLower(text[s:e]) {
	case "in", "at", "to", "from", "into", "unto":
		return true
	}
	return false
}
