package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestANameOfACitedBookThatNoCitedChapterNamesIsSuggested(t *testing.T) {
	e := testEngine(t)
	filler := strings.Repeat("and so the lord is good to us and we will pray for the church today amen\n", 5)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a person of the cited book said far from its passage",
			captionSermon + "turn to isaiah 9 1 nevertheless the dimness shall not be\n" + filler + "the land of zebulun and the land of naphali",
			[]string{"isaiah>Isaiah book.lowercase auto", "naphali>Naphtali person.fuzzy review"}},
		{"the same word in a sermon that cites no book naming it is no name",
			captionSermon + "turn to john 3 2 nicodemus came to jesus by night\n" + filler + "and the tribe of naphali", // beside Zebulun and after "the land of" the rule of companions (round 12C) finds it
			[]string{"john>John book.lowercase auto"}},
		{"a people read from the cited chapter, which the chapter's rules leave out",
			captionSermon + "acts 2 9 parthians and medes and elummites\nand the dwellers in mesopotamia",
			[]string{"acts>Acts book.lowercase auto", "elummites>Elamites place.fuzzy review", "mesopotamia>Mesopotamia place.lowercase auto"}},
		{"a person of many chapters far from the passage's book",
			captionSermon + "turn to second samuel 18 9 and the servants of david\n" + filler + "and absolam rode upon a mule",
			[]string{"second samuel>2 Samuel book.spoken_ordinal auto", "absolam>Absalom person.fuzzy review"}},
		{"a place of the cited book two chapters from the cited one",
			captionSermon + "turn to colossians 3 1 if ye then be risen with christ\nseek those things like the church in colasse",
			[]string{"colossians>Colossians book.lowercase auto", "colasse>Colosse place.fuzzy review"}},
		{"a people of the cited book",
			captionSermon + "turn to genesis 1 1 in the beginning god created\nand his friend hira the adulamite went up",
			[]string{"genesis>Genesis book.lowercase auto", "adulamite>Adullamite place.fuzzy review"}},
		{"a long word within half the name's letters",
			captionSermon + "turn to john 1 1 in the beginning was the word\nhave i been so long with you and yet hast thou not known me philillip",
			[]string{"john>John book.lowercase auto", "philillip>Philip person.fuzzy review"}},
		{"a word of eight letters as far from the name is no name",
			captionSermon + "turn to john 1 1 in the beginning was the word\nhave i been so long with you and yet hast thou not known me phelyllp",
			[]string{"john>John book.lowercase auto"}},
		{"one of a people is the people's singular",
			captionSermon + "turn to revelation 1 1 the revelation of jesus christ\nlike the laeotisian church which said i am rich",
			[]string{"revelation>Revelation book.lowercase auto", "laeotisian>Laodicean place.fuzzy review"}},
		{"a b said as a v, as modern Hebrew says it",
			captionSermon + "turn to leviticus 10 1 and nadab and abihu\n" + filler + "when nadav and abahue were struck dead",
			[]string{"leviticus>Leviticus book.lowercase auto", "nadav>Nadab person.fuzzy review", "abahue>Abihu person.fuzzy review"}}, // Abihu by the rule of companions (round 12C)
		{"a name that begins with another name's letters",
			captionSermon + "turn to second samuel 1 1 now it came to pass\nwe don't see any of that johnadav's only concern",
			[]string{"second samuel>2 Samuel book.spoken_ordinal auto", "johnadav>Jonadab person.fuzzy review"}},
		{"a possessive whose name is heard wrong",
			captionSermon + "turn to genesis 1 1 in the beginning god created\nand hira the adulamite's sheep went up",
			[]string{"genesis>Genesis book.lowercase auto", "adulamite>Adullamite place.fuzzy review"}},
		{"the first part of a contraction is no name",
			captionSermon + "turn to genesis 1 1 in the beginning god created\nand hira the adulamite'll go up",
			[]string{"genesis>Genesis book.lowercase auto"}},
		{"a word after a name is a surname",
			captionSermon + "turn to genesis 1 1 in the beginning god created\nand david adulamite went up",
			[]string{"genesis>Genesis book.lowercase auto"}},
		{"a word explained as a word of another language is no name",
			captionSermon + "revelation 4 1 after this i looked\nthe greek word philadelphoi brotherly love",
			[]string{"revelation>Revelation book.lowercase auto"}},
		{"the same word said as a place",
			captionSermon + "revelation 4 1 after this i looked\nthe church in philadelphoi brotherly love",
			[]string{"revelation>Revelation book.lowercase auto", "philadelphoi>Philadelphia place.fuzzy review"}},
		{"a word of a people's form is no place",
			captionSermon + "acts 1 8 ye shall receive power\nsaying in the lycanian language",
			[]string{"acts>Acts book.lowercase auto"}},
		{"a people's name in its modern spelling is right as said",
			captionSermon + "revelation 4 1 after this i looked\nthe deeds of the nicolaitans",
			[]string{"revelation>Revelation book.lowercase auto"}},
		{"a KJV name with letters added is no name heard wrong",
			captionSermon + "turn to genesis 1 1 in the beginning god created\nand we pray for jason and abrahama",
			[]string{"genesis>Genesis book.lowercase auto"}},
		{"a word of the large English lists is no name",
			captionSermon + "turn to genesis 1 1 in the beginning god created\nwe went to aidan and to ashton",
			[]string{"genesis>Genesis book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAWordInCapitalsIsNoNameOfTheWholeBible(t *testing.T) {
	e := testEngine(t)
	text := sermonOpening + "Turn to Genesis 1:1. In the beginning God created.\n" +
		strings.Repeat("And so the Lord is good to us and we will pray for the church today. Amen.\n", 14)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a word in capitals", text + "Inside was an LLBAN dog.", []string{}},
		{"the same word with a capital", text + "Inside was an Llban dog.", []string{"Llban>Laban place.fuzzy review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range e.Correct(tt.in, Options{}).Changes {
				if c.Rule == "place.fuzzy" || c.Rule == "person.fuzzy" {
					got = append(got, compact(c))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSortedLinesFindsEveryLineAndNoOther(t *testing.T) {
	l := sortedLines("abel\nabiel\nadam\nzion")
	for _, w := range []string{"abel", "abiel", "adam", "zion"} {
		if !l.has(w) {
			t.Errorf("has(%q) = false, want true", w)
		}
	}
	for _, w := range []string{"", "a", "abe", "abelx", "adams", "zz", "aaa"} {
		if l.has(w) {
			t.Errorf("has(%q) = true, want false", w)
		}
	}
}
