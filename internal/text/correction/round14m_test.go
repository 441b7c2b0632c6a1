package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (M): more churches' podcast feed
// transcripts in the caption shape (see docs/performance.md, "Fourteenth
// round M").

func TestABookNamedBeforeTheSermonCitesItIsTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"a study of proverbs that reads proverbs 7 further on",
			"welcome back to our study of\nproverbs and we're going to end the chapter today\nso let's read proverbs 7 verse 24 through the end",
			[]string{"proverbs>Proverbs book.lowercase auto", "proverbs>Proverbs book.lowercase auto"}},
		{"a bare book after a verb, cited later with chapter and a number",
			"i taught proverbs to my children over and over\nand then we read proverbs chapter 3 together",
			[]string{"proverbs>Proverbs book.lowercase auto", "proverbs>Proverbs book.lowercase auto"}},
		{"a chapter the book does not have is no citation",
			"i taught proverbs to my children over and over\nand then we read proverbs 40 together",
			nil},
		{"the word used as a common noun somewhere stays the noun",
			"i taught proverbs to my children over and over\nthese proverbs are old and we read proverbs 3 together",
			[]string{"proverbs>Proverbs book.lowercase auto"}},
		{"numbers before a number are often a count",
			"he was crunching numbers all week long\nand the numbers 20 years ago were smaller",
			nil},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestCitesChapterInReadsTheWholeText(t *testing.T) {
	has := func(ch int) bool { return ch >= 1 && ch <= 31 }
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"the name before a chapter", "we read Proverbs 7 today", true},
		{"the name, chapter and a number across a line end", "we read proverbs chapter\n3 today", true},
		{"a number the book has no chapter of", "we read proverbs 40 today", false},
		{"a longer number", "proverbs 2024 was a good year", false},
		{"the name inside another word", "reproverbs 7", false},
		{"no number after", "proverbs are short sayings", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := citesChapterIn(tt.text, "Proverbs", has); got != tt.want {
				t.Errorf("citesChapterIn(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}
