package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestQuotedVerseUnderAnotherBooksReference(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"an announced reading followed by another book's verse of that number suggests that book",
			captionSermon + "the foundation text was john chapter one verse eight and this is\nwhat we read this book of the law shall not depart out of thy mouth",
			[]string{"john>Joshua book.fuzzy review"}},
		{"the same punctuated",
			sermonOpening + "The foundation text was what? John chapter one, verse eight. And this is what we read. This book of the law shall not depart out of thy mouth.",
			[]string{"John>Joshua book.fuzzy review"}},
		{"the verse of the book cited leaves the book",
			captionSermon + "turn to joshua chapter one verse eight this book of the law shall not depart",
			[]string{"joshua>Joshua book.lowercase auto"}},
		{"a quotation further on is not read",
			captionSermon + "john chapter one verse eight and so we are going to see today what it is he wrote and then this book of the law shall not depart",
			[]string{"john>John book.lowercase auto"}},
		{"a reference written as numbers is read as before",
			captionSermon + "john 1 8 this book of the law shall not depart out of thy mouth",
			[]string{"john>John book.lowercase auto"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.Find(tc.in, Options{})
			checkChanges(t, tc.in, cs)
			var got []string
			for _, c := range cs {
				if c.Category == CategoryBible {
					got = append(got, compact(c))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Find(…%q) = %q, want %q", tc.in[max(0, len(tc.in)-80):], got, tc.want)
			}
		})
	}
}

func TestVerseStartsAreTheScannersHashes(t *testing.T) {
	// The generator hashes the opening words of each verse as the scanner
	// hashes a text's words; a quotation of the verse has the same hash.
	e := testEngine(t)
	d := e.d
	osis := func(id string) uint8 {
		for k, v := range d.verses {
			if v.osis == id {
				return uint8(k + 1)
			}
		}
		t.Fatalf("no book %s", id)
		return 0
	}
	for _, tc := range []struct {
		book    string
		ch, v   int
		opening string
	}{
		{"Gen", 1, 1, "In the beginning God created"},
		{"Josh", 1, 8, "This book of the law"},
		{"John", 3, 16, "For God so loved the"},
		{"Rev", 22, 21, "The grace of our Lord"},
	} {
		var h uint64
		for _, w := range strings.Fields(tc.opening) {
			h = mixWord(h, keyHash(w))
		}
		if got, want := uint32(h>>32), d.verseStart(osis(tc.book), tc.ch, tc.v); got != want {
			t.Errorf("%s %d:%d %q: hash %08x, the data has %08x", tc.book, tc.ch, tc.v, tc.opening, got, want)
		}
	}
	if len(d.verseStarts) != 31102 {
		t.Errorf("%d verses, want 31,102", len(d.verseStarts))
	}
}
