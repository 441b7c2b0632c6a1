package correction

// shortListed appends to out the people of a passage's list that the
// words of four letters around text[start:end], a word read among names
// and found as one of people (see listedPerson), are heard for: a word of
// four letters no list holds is under the five letters every other rule
// of people reads, but in a list of names read aloud it is one more name
// ("aaron naab abaihu": Nadab beside Abihu, Exodus 24:9). people are the
// passage's people (see passagePeople) and those of many chapters (see
// frequentPerson); the word is compared as listedPerson compares, a
// sound of the name not heard allowed.
func (m *matcher) shortListed(out []personRec, text string, start, end int, people []soundedName) []personRec {
	try := func(s, e int) {
		if e-s != 4 || !isLetters(text[s:e]) {
			return
		}
		var lb, kb, sb, pb [32]byte
		lw := appendLower(lb[:0], text[s:e])
		if _, ok := m.d.kjvNames[string(lw)]; ok || isEnglishWord(string(lw)) {
			return
		}
		key := appendPhoneticKey(kb[:0], lw)
		if name := skeletonPerson(people, lw, skeleton(sb[:0], key), sameLetter, 2, 7, 1, &pb); name != "" {
			out = append(out, personRec{s, e, name, 0.6})
		}
	}
	eachNeighbour(text, start, end, listWindow, try)
	return out
}

// isLetters reports whether w is ASCII letters only.
func isLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
