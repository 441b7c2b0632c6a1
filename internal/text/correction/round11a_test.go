package correction

import (
	"slices"
	"testing"
)

func TestABookSpeltOtherwiseWithNoReferenceOrCueIsSuggested(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a listed spelling after the, no reference: the psalmist, suggested",
			"remember what the psalma said about the length of our days",
			[]string{"psalma>Psalm book.misspelling review"}},
		{"the same in a sentence of its own",
			"Well, the psalma says we are dust. And so we number our days.",
			[]string{"psalma>Psalm book.misspelling review"}},
		{"the same spelling before a chapter and verse is applied",
			"turn with me to psalma 90 verse 12 so teach us to number our days",
			[]string{"psalma>Psalm book.misspelling auto"}},
		{"the same spelling after the book of is applied",
			"the book of psalma says we are dust",
			[]string{"psalma>Psalms book.misspelling auto"}},
		{"a capital the text writes is applied",
			"Phillipians is a letter of joy",
			[]string{"Phillipians>Philippians book.misspelling auto"}},
		{"a name of several words keeps its evidence",
			"the song of songs is a love poem",
			[]string{"song of songs>Song of Solomon book.alt_name auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestARareNameThatIsAnOrdinaryWordButForAVowelNeedsItsBookCited(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"harem heard as the name harim, no book of harim cited: suggested",
			captionSermon + "the pagan kings kept wanting her to join their harim because she was beautiful",
			[]string{"harim>Harim place.lowercase review"}},
		{"the same in a text that cites nehemiah: applied",
			captionSermon + "in nehemiah 3 11 the son of harim repaired the other piece and the tower",
			[]string{"nehemiah>Nehemiah book.lowercase auto", "harim>Harim place.lowercase auto"}},
		{"a book cited after the name counts too",
			captionSermon + "the children of harim three hundred and twenty as ezra 2 32 counts them",
			[]string{"harim>Harim place.lowercase auto", "ezra>Ezra book.lowercase auto"}},
		{"crete is crate but for a vowel: applied in a sermon on acts 27",
			captionSermon + "in acts 27 7 they sailed under crete over against salmone",
			[]string{"acts>Acts book.lowercase auto", "crete>Crete place.lowercase auto", "salmone>Salmone place.lowercase auto"}},
		{"crete suggested where no book that names it is cited",
			captionSermon + "we went on holiday to crete last summer and came back rested",
			[]string{"crete>Crete place.lowercase review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAVerseReadOnThinEvidenceIsSuggested(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a number word after chapter two with no verse: suggested",
			"the same passages talk about the unity of mind like philippians chapter two one mind one soul one heart",
			[]string{"philippians chapter two one>Philippians 2:1 book.lowercase review"}},
		{"with the word verse: applied",
			"the same passages talk about the unity of mind like philippians chapter two verse one",
			[]string{"philippians chapter two verse one>Philippians 2:1 book.lowercase auto"}},
		{"in digits: applied",
			"we read it in philippians chapter 4 19 my god shall supply all your need",
			[]string{"philippians chapter 4 19>Philippians 4:19 book.lowercase auto"}},
		{"a verse the text goes on from with a colon and a number: suggested",
			"see Jesus spoke. John 4 4:50, go your way, your son lives. He spoke and it was done",
			[]string{"John 4 4>John 4:4 reference.normalize review"}},
		{"a chapter and verse with a colon: applied",
			"see Jesus spoke. John 4:50, go your way, your son lives. He spoke and it was done",
			nil},
		{"a chapter and verse after chapter: applied",
			"and Hebrews chapter 10 verse 17 is quoting Jeremiah on the new covenant",
			[]string{"Hebrews chapter 10 verse 17>Hebrews 10:17 reference.normalize auto"}},
		{"without normalizing the capital is applied",
			"like philippians chapter two one mind one soul one heart",
			[]string{"philippians>Philippians book.lowercase auto"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := norm
			if i == len(tests)-1 {
				opts = Options{}
			}
			if got := compactAll(e.Correct(tt.in, opts).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
