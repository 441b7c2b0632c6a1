package correction

import "strings"

// This file holds the rules of issue 24's twelfth round (B), written for
// what two churches' Whisper sermons showed: a sentence's end or a word of
// address between a book's name and a number (see docs/performance.md,
// "Twelfth round B"). The round also widened round 12A's cues in
// r12a_cues.go: "or" joins places, and more prepositions open "the psalms".

// sentenceBetween reports whether the gap g before token k, the first of a
// reference after a book's name, ends a sentence: a period and then a word
// with its capital ("Thanks, John. Eight."). A recognizer writes a verse
// after a period without a space ("John 3.16"), never a chapter after a
// sentence's end.
func (sc *scanner) sentenceBetween(g gapInfo, k int) bool {
	return g.period && sc.firstUpper(k)
}

// addressed reports whether token i, a book's name that is also a
// person's, is said to that person: "thanks john", "thank you mark", "hey
// james". Whatever number follows is not the book's chapter ("thanks john
// eight", a child telling his age).
func (m *matcher) addressed(i int) bool {
	sc := m.sc
	return sc.isAny(i-1, "thanks", "hi", "hey", "hello", "bye", "goodbye") ||
		(sc.is(i-1, "you") && sc.is(i-2, "thank"))
}

// addressedName records the capital of tokens i..j, orig, the name of the
// book id said to a person (see addressed), as the name is written, name,
// and not the number after it: "thanks john eight" is "thanks John eight".
// It returns what evalBook returns.
func (m *matcher) addressedName(i, j int, id sref, orig, name string, upper bool) (int, bool) {
	if upper || !strings.EqualFold(orig, name) {
		return 0, false
	}
	return m.emitBook(i, j, id, ref{bk: m.d.bookOf(id)}, ruleBookLowercase, 0.86), true
}
