package correction

// listWindow is how many words either side of a word namesRead reads.
const listWindow = 3

// namesRead reports whether the word text[start:end] is said among names:
// two or more of the listWindow words either side of it are KJV names
// or words of three letters or more that no English list holds, as when
// a speaker reads a verse's list of people ("also jeshua bani sheriah
// jamon acob shab"; "moses went up with aaron naab abaihu").
func (m *matcher) namesRead(text string, start, end int) bool {
	return m.namesAround(text, start, end) >= 2
}

// namesAround returns how many of the listWindow words either side of the
// word text[start:end] are KJV names or words of three letters or more
// that no English list holds (see namesRead).
func (m *matcher) namesAround(text string, start, end int) int {
	n := 0
	var b [24]byte
	see := func(s, e int) {
		if e-s < 3 || e-s > len(b) {
			return
		}
		lw := appendLower(b[:0], text[s:e])
		for _, c := range lw {
			if c < 'a' || c > 'z' {
				return
			}
		}
		if _, ok := m.d.kjvNames[string(lw)]; ok || !isEnglishWord(string(lw)) {
			n++
		}
	}
	eachNeighbour(text, start, end, listWindow, see)
	return n
}

// eachNeighbour calls see with the bounds of each of the n words either
// side of the word text[start:end], nearest first.
func eachNeighbour(text string, start, end, n int, see func(s, e int)) {
	i := start
	for k := 0; k < n && i > 0; k++ {
		s := wordStartBefore(text, i)
		e := s
		for e < i && isWordByte(text[e]) {
			e++
		}
		see(s, e)
		i = s
	}
	j := end
	for k := 0; k < n && j < len(text); k++ {
		s, e := wordAfterAny(text, j)
		see(s, e)
		j = e
	}
}

// passageWindow is how many words before a word passagePeople reads: two
// verses read aloud.
const passageWindow = 60

// passagePeople returns the people of the chapters the text cites whose
// book it names within passageWindow words before offset start: the
// passage a speaker is reading, or nil.
func (m *matcher) passagePeople(text string, start int) []soundedName {
	return m.passageOf(text, start, m.d.chapterPeople)
}

// passageOf returns the names of index, by the index of a chapter, of the
// chapters the text cites whose book it names within passageWindow words
// before offset start, or nil.
func (m *matcher) passageOf(text string, start int, index [][]soundedName) []soundedName {
	d := m.d
	var books [2]uint64
	var b [24]byte
	i := start
	for k := 0; k < passageWindow && i > 0; k++ {
		s := wordStartBefore(text, i)
		e := s
		for e < i && isWordByte(text[e]) {
			e++
		}
		if e-s >= 3 && e-s <= len(b) {
			if n := d.root[string(appendLower(b[:0], text[s:e]))]; n != nil && n.book != nil {
				if bk := d.bookOf(n.book.id); bk != 0 {
					books[bk>>6] |= 1 << (bk & 63)
				} else if n.book.pfam != nil {
					// "second samuel": the name of numbered books, each
					// of which may be the one whose chapter is cited.
					for _, fb := range n.book.pfam.books {
						if fb != nil {
							if bk := d.bookOf(fb.id); bk != 0 {
								books[bk>>6] |= 1 << (bk & 63)
							}
						}
					}
				}
			}
		}
		i = s
	}
	var out []soundedName
	for bk := 1; bk <= len(d.verses); bk++ {
		if books[bk>>6]&(1<<(bk&63)) == 0 {
			continue
		}
		lo := int(d.chapterBase[bk-1])
		for k := lo; k < lo+len(d.verses[bk-1].verses); k++ {
			if m.chapters[k>>6]&(1<<(k&63)) == 0 {
				continue
			}
			for _, p := range index[k] {
				if !containsPerson(out, p.name) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// listedPerson returns the person among people, those of the passage the
// text is reading (see passagePeople), that the word w, which no list holds and which the text
// says among names (see namesRead), is heard for, or "": as
// soundLostPerson, with a skeleton of two sounds or more, a sound lost
// from a word of five letters or more, and half the name's letters
// rounded up ("khita" for Kelita, "abaihu" for Abihu, "jezeb" for
// Jozabad): a list of names read is evidence a lone word is not.
func (m *matcher) listedPerson(people []soundedName, w string) string {
	if len(people) == 0 {
		return ""
	}
	var lb, kb, sb, pb [32]byte
	lw, key, ok := m.heardNameKey(w, &lb, &kb, 1)
	if !ok {
		return ""
	}
	return skeletonPerson(people, lw, skeleton(sb[:0], key), sameLetter, 2, len(lw)+2, 1, &pb)
}
