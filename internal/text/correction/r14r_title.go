package correction

import (
	"math/bits"
	"strings"
)

// The evidence of issue 24's fourteenth round (R): bare, lowercase books
// whose names are English words, where a Bible teacher's sentence puts a
// title (see docs/performance.md, "Fourteenth round R").

// titleSpot reports whether tokens i..j, form f, the bare, lowercase own
// name of a book that is also an English word, stand where a title stands
// in a text that has named three books or more before them (booksNamed):
// after a verb of studying or preaching ("when we studied revelation"),
// after "the lens of" ("through the lens of chronicles"), at the end of a
// span of books ("from genesis through to revelation"), or, for a word a
// misheard phrase gives, after "in" once the text has named that very book
// (namedBook). The books named are the whole document's evidence that it
// teaches the Bible; the place is the sentence's. Never before "of" ("the
// lens of revelation of god"). A suggestion only (see match.go).
func (m *matcher) titleSpot(i, j int, f *bookForm) bool {
	sc := m.sc
	if i != j || f.kind == kNone || i < 1 || !sc.has(i-1) {
		return false
	}
	// The word before, by its length first: the rule asks about few words
	// and runs for every bare book no other cue takes.
	t := sc.tok(i - 1)
	n := t.e() - t.s()
	if n != 2 && (n < 6 || n > 9) {
		return false
	}
	var at bool
	switch {
	case n > 2:
		at = sc.isAny(i-1, "studied", "studying", "preached", "preaching", "taught", "teaching")
	case sc.is(i-1, "of") && sc.is(i-2, "lens") && sc.is(i-3, "the"):
		at = true
	case sc.is(i-1, "to") && sc.is(i-2, "through"):
		at = m.bookWordAt(i-3) != nil && !sentenceBreak(sc, i-2)
	case f.garbled && sc.is(i-1, "in"):
		// "in numbers god shapes his partner" after "genesis exodus
		// leviticus numbers deuteronomy": a word a misheard phrase gives
		// ("in numbers", "in acts" for "in fact") is the book once the
		// text has named that book where the engine applied it.
		at = !sc.isAny(i-2, "safety", "strength", "great", "large", "small", "big", "huge", "growing", "record") &&
			m.namedBook(f.name)
	}
	return at && !sc.is(j+1, "of") && strings.EqualFold(sc.str(i), f.name) && m.booksNamed() >= 3
}

// booksNamed returns how many books the text has named so far, counting
// no further than three: those it has cited with a reference, or else the
// lowercase names the engine has applied, counted once each.
func (m *matcher) booksNamed() int {
	if n := bits.OnesCount64(m.citedBooks[0]) + bits.OnesCount64(m.citedBooks[1]); n >= 3 {
		return n
	}
	m.readAppliedBooks()
	n := len(m.appliedBooks.words)
	if w, ok := m.lastAppliedBookWord(); ok {
		if _, seen := m.appliedBooks.words[w]; !seen {
			n++
		}
	}
	return min(n, 3)
}

// namedBook reports whether the engine has applied name, a book's, in
// lowercase earlier in the text, as a book on its own ("genesis exodus
// leviticus numbers").
func (m *matcher) namedBook(name string) bool {
	m.readAppliedBooks()
	if _, ok := m.appliedBooks.words[strings.ToLower(name)]; ok {
		return true
	}
	w, ok := m.lastAppliedBookWord()
	return ok && strings.EqualFold(w, name)
}

// appliedBooks is what booksNamed and namedBook have read of the records:
// the lowercase names of the books applied on their own in the first read
// records. The last record is read anew each time, as a rule may still mark
// it; the others are read once, so that the cost stays linear in the text.
type appliedBooks struct {
	read  int
	words map[string]struct{}
}

// readAppliedBooks reads the records found since it last read them, all
// but the last, into m.appliedBooks.
func (m *matcher) readAppliedBooks() {
	ab := &m.appliedBooks
	idx := 0 // the index of the block's first record
	for _, blk := range m.found.blocks {
		if idx+len(blk) <= ab.read {
			idx += len(blk)
			continue
		}
		for j := max(ab.read-idx, 0); j < len(blk) && idx+j+1 < m.found.n; j++ {
			if w, ok := m.appliedBookWord(blk[j]); ok {
				if ab.words == nil {
					ab.words = map[string]struct{}{}
				}
				ab.words[w] = struct{}{}
			}
			ab.read = idx + j + 1
		}
		idx += len(blk)
	}
}

// lastAppliedBookWord is appliedBookWord of the last record, which
// readAppliedBooks leaves unread.
func (m *matcher) lastAppliedBookWord() (string, bool) {
	if m.found.n == 0 || m.found.n <= m.appliedBooks.read {
		return "", false
	}
	return m.appliedBookWord(m.found.last())
}

// appliedBookWord returns the lowercase name of record x if it applies a
// book's name on its own, lowercase in the text.
func (m *matcher) appliedBookWord(x rec) (string, bool) {
	if x.rule != ruleBookLowercase || x.conf < confPct(autoThreshold) || x.n == longN {
		return "", false
	}
	return strings.ToLower(m.sc.text[x.start : int(x.start)+int(x.n)]), true
}
