package correction

// verbBook reports whether tokens i..j, the name of book b that is also
// a verb in the third person ("acts", "judges", "numbers"), are that verb:
// after a subject ("the other person acts like they don't care", "he
// judges", "god judges the heart") or before "like". A sermon that has
// cited Acts says "acts" for the verb as readily as any speaker.
func verbBook(sc *scanner, i, j int, b *book) bool {
	switch b.osis {
	case "Acts", "Judg", "Num":
	default:
		return false
	}
	return sc.is(j+1, "like") || sc.isAny(i-1, "he", "she", "it", "who", "one", "someone", "somebody", "everyone",
		"everybody", "nobody", "person", "man", "woman", "god", "lord", "jesus", "christ")
}
