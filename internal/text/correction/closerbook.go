package correction

// closerSpelled returns the book whose name is one letter from the
// lowercase word w when the nearest book by sound, best, is two or more
// letters from it: the recognizer heard the first sound of "Hosea" as the
// J of a Spanish speller ("josea 14 1"), which the phonetic key reads as
// Joshua's. Only a book at one edit is taken, and only where a book was
// found already, so no word becomes a book that was none.
func (d *dict) closerSpelled(w []byte, best *bookTarget, dist int) *bookTarget {
	if best == nil || dist < 2 || len(w) < 5 {
		return nil
	}
	for k := range d.bookTargets {
		t := &d.bookTargets[k]
		if t == best || len(t.lower) != len(w) || t.lower[1:] != string(w[1:]) {
			continue
		}
		return t // the same letters but the first
	}
	return nil
}
