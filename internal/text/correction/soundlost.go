package correction

// skeleton appends to out the phonetic key key with each run of one sound
// kept once, across the vowels the key leaves out: "beltesar" and
// "belteshazzar" have one skeleton.
func skeleton[K string | []byte](out []byte, key K) []byte {
	for i := range len(key) {
		if c := key[i]; i == 0 || c != key[i-1] {
			out = append(out, c)
		}
	}
	return out
}

// soundLostPerson returns the person among people, those of the
// chapters the text cites, that the word w, which no list holds, is
// heard for when chapterPerson found none, or "": the same first letter
// or two vowels (see sameOnset), a skeleton of three sounds or more heard
// for the name's (see skeletonHeard), and within half the name's letters
// of it ("potterer" for Potiphar in a sermon on Genesis 39, "beltesar"
// for Belteshazzar in one on Daniel 4).
func (m *matcher) soundLostPerson(people []soundedName, w string) string {
	if len(people) == 0 {
		return ""
	}
	var lb, kb, sb, pb [32]byte
	lw, key, ok := m.heardName(w, &lb, &kb)
	if !ok {
		return ""
	}
	return skeletonPerson(people, lw, skeleton(sb[:0], key), sameOnset, 3, len(lw), 0, &pb)
}

// skeletonPerson returns the person of people nearest the word lw whose skeleton is sk: one
// whose first letter may be heard as lw's (onset), whose skeleton sk may be heard for in a word of n letters (see
// skeletonHeard), within half the name's letters (plus roundUp, 0 or 1, before halving), sk of
// minSounds sounds or more; or "". pb is scratch space for the names' skeletons.
func skeletonPerson(people []soundedName, lw []byte, sk []byte, onset func(name, heard byte) bool, minSounds, n, roundUp int, pb *[32]byte) string {
	if len(sk) < minSounds {
		return ""
	}
	best, bestD := "", len(lw)
	for _, p := range people {
		if !onset(p.lower[0], lw[0]) || !skeletonHeard(sk, skeleton(pb[:0], p.key), n) {
			continue
		}
		half := (len(p.lower) + roundUp) / 2
		if dd := editDistance(lw, p.lower, half); dd <= half && dd < bestD && !szOnly(lw, p.lower) {
			best, bestD = p.name, dd
		}
	}
	return best
}

// skeletonHeard reports whether a word of n letters whose skeleton is sk
// may be heard for a name whose skeleton is name: the same, or, for a
// word of seven letters or more, the name's with one sound not heard
// ("potterer", PTR, for Potiphar, PTFR). A sound heard that the name
// lacks, or heard for another, is a different word ("christos" is not
// Crispus).
func skeletonHeard(sk, name []byte, n int) bool {
	if string(sk) == string(name) {
		return true
	}
	if n < 7 || len(name) != len(sk)+1 {
		return false
	}
	i := 0
	for i < len(sk) && sk[i] == name[i] {
		i++
	}
	return string(sk[i:]) == string(name[i+1:])
}

// possessivePerson returns the person of people, those of the chapters the
// text cites, that the word w is heard for with the apostrophe of its
// possessive lost ("potterers wives": Potiphar's), as chapterPerson or
// soundLostPerson reads the word without its final s, or "".
func (m *matcher) possessivePerson(people []soundedName, w string) string {
	if len(w) < 6 || w[len(w)-1] != 's' {
		return ""
	}
	stem := w[:len(w)-1]
	name := m.chapterPerson(people, stem)
	if name == "" {
		name = m.soundLostPerson(people, stem)
	}
	if name == "" {
		return ""
	}
	return name + "'s"
}
