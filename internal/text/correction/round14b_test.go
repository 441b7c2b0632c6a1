package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (B): the YouTube auto-captions of
// a Los Angeles deliverance ministry's services (see docs/performance.md,
// "Fourteenth round B").

func TestPalmsIsNotThePsalmsWhereTheDocumentSpeaksOfPalms(t *testing.T) {
	e := testEngine(t)
	cited := "i was led to psalms 26 and i read it that night "
	tests := []changeCase{
		{"the palms of palm sunday", cited + "happy palm sunday everyone more powerful than that moment of the palms but that is how it is",
			[]string{"psalms>Psalm psalm.singular auto"}},
		{"the palms of the palm branches", cited + "they waved palm branches and we read of the palms they laid down",
			[]string{"psalms>Psalm psalm.singular auto"}},
		{"the palms without a palm", cited + "and so we read of the palms every morning",
			[]string{"psalms>Psalm psalm.singular auto", "palms>Psalms book.abbreviation auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestActsAfterAnAdjectiveOfADeterminerAreDeeds(t *testing.T) {
	e := testEngine(t)
	cited := "it says in the book of acts that the apostles were ministering "
	tests := []changeCase{
		{"those wicked acts", cited + "but those wicked acts cannot keep going",
			[]string{"acts>Acts book.lowercase auto"}},
		{"their evil acts", cited + "and their evil acts will come to an end",
			[]string{"acts>Acts book.lowercase auto"}},
		{"wicked acts", cited + "they do wicked acts in the dark",
			[]string{"acts>Acts book.lowercase auto"}},
		{"in acts", cited + "and in acts we see the church grow",
			[]string{"acts>Acts book.lowercase auto", "acts>Acts book.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestActsBeforeChurchIsTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"like the acts church", "this is like the bible come alive like the acts church that i have been reading my whole life",
			[]string{"acts>Acts book.lowercase auto"}},
		{"an acts church", "we want to be an acts church in this city", []string{"acts>Acts book.lowercase auto"}},
		{"he acts church", "he acts church every sunday like a deacon", []string{}},
		{"those acts", "those acts of kindness at church", []string{}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}
