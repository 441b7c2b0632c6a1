package correction

// twoLostPerson returns the person among people, those of the chapters
// the text cites, whose long name the word w, which no list holds and no
// other rule of those chapters explains, is heard for with two of its
// sounds not heard, or "": a word of eight letters or more, a name of ten
// letters or more, the same first letter or two vowels (see sameOnset),
// the word's skeleton the name's with two sounds left out and nothing
// added, within half the name's letters ("aistarus" for Aristarchus in a
// sermon on Colossians 4).
func (m *matcher) twoLostPerson(people []soundedName, w string) string {
	if len(people) == 0 || len(w) < 8 {
		return ""
	}
	var lb, kb, sb, pb [32]byte
	lw, key, ok := m.heardName(w, &lb, &kb)
	if !ok {
		return ""
	}
	sk := skeleton(sb[:0], key)
	if len(sk) < 3 {
		return ""
	}
	best, bestD := "", len(lw)
	for _, p := range people {
		if len(p.lower) < 10 || !sameOnset(p.lower[0], lw[0]) {
			continue
		}
		name := skeleton(pb[:0], p.key)
		if len(name) != len(sk)+2 || !subsequence(sk, name) {
			continue
		}
		half := len(p.lower) / 2
		if dd := editDistance(lw, p.lower, half); dd <= half && dd < bestD && !szOnly(lw, p.lower) {
			best, bestD = p.name, dd
		}
	}
	return best
}

// subsequence reports whether the sounds of sk are those of name in their
// order, others of name between them.
func subsequence(sk, name []byte) bool {
	i := 0
	for j := 0; i < len(sk) && j < len(name); j++ {
		if sk[i] == name[j] {
			i++
		}
	}
	return i == len(sk)
}
