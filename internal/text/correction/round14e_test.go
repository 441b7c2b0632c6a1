package correction

import (
	"testing"
)

// The tests of issue 24's fourteenth round (E): a Hebrew or Greek word being
// explained that is also the name of a rarely named place (see
// docs/performance.md, "Fourteenth round E").

func TestAWordOfHebrewBeingExplainedIsNotARarePlace(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"adamah in hebrew", "he was drawn up from the ground\nadamah in hebrew and so he is adam",
			nil},
		{"the hebrew word adamah", "the hebrew word adamah means the ground",
			nil},
		{"the rare place said as a place", "and the fenced cities are ziddim and hammath rakkath and chinnereth and adamah and ramah",
			[]string{"ziddim>Ziddim place.lowercase auto", "hammath>Hammath place.lowercase auto",
				"rakkath>Rakkath place.lowercase auto", "chinnereth>Chinnereth place.lowercase auto", "adamah>Adamah place.lowercase auto",
				"ramah>Ramah place.lowercase auto"}},
		{"a well-known place explained is still the place", "bethel means the house of god",
			[]string{"bethel>Bethel place.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestAKindOfRevelationIsNotTheBook(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"progressive revelation, the book written with its capital elsewhere", "as John writes in Revelation 21 and in Revelation 22\nfor old testament believers there was a progressive revelation\nthat's the theological term for it",
			nil},
		{"with that progressive revelation", "as John writes in Revelation 21 and in Revelation 22\nspecifically new testament passages with that\nprogressive revelation that god has seen fit to give",
			nil},
		{"natural and special revelation", "as John writes in Revelation 21 and in Revelation 22\ngod gives natural revelation in creation and special revelation in scripture",
			nil},
		{"the book still", "as we read in revelation when john was on patmos",
			[]string{"revelation>Revelation book.lowercase review", "patmos>Patmos place.lowercase auto"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestANumberWordBeforeOutOfIsAShareNotAChapter(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []changeCase{
		{"one out of every six verses", "matthew mark and luke one out of every six verses are the same",
			[]string{"mark>Mark book.lowercase auto", "luke>Luke book.lowercase auto"}},
		{"a chapter still", "turn to luke one and read the first verse",
			[]string{"luke one>Luke 1 book.lowercase auto"}},
	}
	checkCaptionCases(t, e, norm, tests)
}
