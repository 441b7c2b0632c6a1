package correction

import (
	"slices"
	"strings"
	"testing"
)

func TestANameSaidBesideNamesOfItsChaptersIsSuggested(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"a person with a sound lost beside two people of its chapters",
			"paul sends greetings from luke and onesimus and deeus as well",
			[]string{"deeus>Demas person.fuzzy review"}},
		{"a place beside two places of its chapter, its k written c",
			"not the powerful kulna not the great hamath not even gath",
			[]string{"kulna>Calneh place.fuzzy review", "hamath>Hamath place.lowercase auto", "gath>Gath place.lowercase auto"}},
		{"a person of the same sound beside one person of a few chapters",
			"and judah had three sons er onan and shalah and they grew up",
			[]string{"judah>Judah place.lowercase auto", "shalah>Shelah person.fuzzy review"}},
		{"a person beside a person found heard wrong and a person of many chapters",
			"in the book of leviticus when nadav and abahue were struck dead aaron held his peace",
			[]string{"leviticus>Leviticus book.lowercase auto", "nadav>Nadab person.fuzzy review", "abahue>Abihu person.fuzzy review"}},
		{"a list of names of the cited chapter read far from its book",
			"nehemiah 8 7 the levites read the law\n" + strings.Repeat("and so the lord is good to us and we will pray for the church today amen\n", 5) + "\nalso jeshua and bani sheriah\njamin akkub and the levites",
			[]string{"nehemiah>Nehemiah book.lowercase auto", "sheriah>Sherebiah person.fuzzy review"}},
		{"a people with a c heard as a k beside a person of the cited chapter whose s is not heard",
			"turn to colossians 4 15 salute the brethren\ngreet nympha and have it read in the church of ludicans",
			[]string{"colossians>Colossians book.lowercase auto", "ludicans>Laodiceans place.fuzzy review"}},
		{"the same word beside no name",
			"turn to colossians 4 15 salute the brethren\ngreet the sisters and have it read in the church of ludicans",
			[]string{"colossians>Colossians book.lowercase auto"}},
		{"a name of the cited chapter after the temple of, with a sound lost",
			"turn to judges 16 23 then the lords of the philistines\nand he tore down the temple of deeon and they all died",
			[]string{"judges>Judges book.lowercase auto", "philistines>Philistines place.lowercase auto", "deeon>Dagon person.fuzzy review"}},
		{"the same word after other words",
			"turn to judges 16 23 then the lords of the philistines\nand he tore down the temple and deeon and they all died",
			[]string{"judges>Judges book.lowercase auto", "philistines>Philistines place.lowercase auto"}},
		{"a name of no cited book after the land of and beside a name it is said with",
			"turn to john 3 2 nicodemus came to jesus by night\n" + strings.Repeat("and so the lord is good to us and we will pray for the church today amen\n", 5) + "the land of zebulun and the land of naphali",
			[]string{"john>John book.lowercase auto", "naphali>Naphtali person.fuzzy review"}},
		{"the same word with no name beside it is no name",
			"come to me soon for deeus in love with this present world has deserted me",
			nil},
		{"a person is no evidence of a place, nor a place of a person",
			"we thank misha and jonathan for the coffee and vahid came to us from ethiopia",
			[]string{"ethiopia>Ethiopia place.lowercase auto"}},
		{"two names of many chapters are one name's evidence",
			"turn to genesis 1 1 in the beginning\nand abraham called the place jireh and isaac was spared",
			[]string{"genesis>Genesis book.lowercase auto"}},
		{"the second part of a name said in two is no other name",
			"turn to hebrews 11 8 by faith abraham\nand abraham called the place jehovah jireh and isaac was spared",
			[]string{"hebrews>Hebrews book.lowercase auto", "jehovah>Jephthae person.fuzzy review"}},
		{"the same word alone beside a name of the cited chapter",
			"turn to hebrews 11 8 by faith abraham\nand abraham called the place jireh and isaac was spared",
			[]string{"hebrews>Hebrews book.lowercase auto", "jireh>Jericho place.fuzzy review"}},
		{"a word after a or an is a noun",
			"turn to genesis 22 20 and it came to pass\nit came to me like a rhema from the lord as abraham heard about isaac",
			[]string{"genesis>Genesis book.lowercase auto"}},
		{"a modern translation's spelling without the KJV's s is right as said",
			"turn to philippians 4 2 i beseech\ngreet euodia and syntyche and clement for me",
			[]string{"philippians>Philippians book.lowercase auto"}},
		{"places are no evidence of a person",
			"our friends moved to elam and then to babylon derees and his wife",
			[]string{"elam>Elam place.lowercase auto", "babylon>Babylon place.lowercase auto"}},
		{"a name of more than a hundred chapters is no evidence",
			"and she sat at the entrance to enahim on the road to timnah when judah saw her", // Enaim, Genesis 38:14 as modern translations write it
			[]string{"judah>Judah place.lowercase auto"}},
		{"a word after a modern given name is a surname",
			"paul sends greetings from luke and onesimus and adrian deeus as well",
			nil},
		{"a word after a name of other chapters is a surname",
			"paul sends greetings from luke and onesimus and abraham deeus as well",
			nil},
		{"one name beside it is evidence only of a word within a third of the name's letters",
			"and judah had three sons er onan and shalaiah and they grew up",
			[]string{"judah>Judah place.lowercase auto"}},
		{"the first part of a contraction is no name",
			"paul sends greetings from luke and onesimus and deeus'll come too",
			nil},
		{"a book's name is no evidence of a person",
			"nehemiah and ezra and sheriah said hello to everyone",
			[]string{"nehemiah>Nehemiah book.lowercase review"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestCompanionSkeletonAllowsOneSoundLostOrAPHeardForAnF(t *testing.T) {
	tests := []struct {
		sk, name string
		want     bool
	}{
		{"TS", "TNS", true},
		{"TNS", "TNS", true},
		{"PNR", "PNFR", true},
		{"PRKS", "FRKS", true},
		{"RTKNS", "RTSNS", true},
		{"RTSNS", "RTKNS", false},
		{"TS", "TNSS", false},
		{"TNSK", "TNS", false},
		{"PRKS", "FRKT", false},
	}
	for _, tt := range tests {
		if got := companionSkeleton([]byte(tt.sk), tt.name); got != tt.want {
			t.Errorf("companionSkeleton(%q, %q) = %v, want %v", tt.sk, tt.name, got, tt.want)
		}
	}
}

func TestFoldSpellingWritesAWordAsItSounds(t *testing.T) {
	for in, want := range map[string]string{"tychicus": "tikikus", "pamphylia": "pamfilia", "calneh": "kalneh", "cyrene": "cirene", "abbott": "abot"} {
		if got := string(foldSpelling(nil, []byte(in))); got != want {
			t.Errorf("foldSpelling(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestANameTheKJVWritesOnlyAtAVersesStartIsOneOfItsNames(t *testing.T) {
	e := testEngine(t)
	for _, tt := range []struct {
		word string
		want bool
	}{
		{"parthians", true}, // "Parthians, and Medes, and Elamites", Acts 2:9
		{"cretes", true},    // "Cretes and Arabians", Acts 2:11
		{"halhul", true},    // "Halhul, Bethzur, and Gedor", Joshua 15:58
		{"endeavouring", false},
		{"enflaming", false},
	} {
		if _, got := e.d.kjvNames[tt.word]; got != tt.want {
			t.Errorf("%q is a KJV name: %v, want %v", tt.word, got, tt.want)
		}
	}
	in := captionSermon + "turn to acts 2 1 and when the day\nin our native language parththeians and medes and elamites"
	want := []string{"acts>Acts book.lowercase auto", "parththeians>Parthians person.fuzzy review", "elamites>Elamites place.lowercase auto"}
	if got := compactAll(e.Correct(in, Options{}).Changes); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTheWordsNearBibleNamesAreInByteOrder(t *testing.T) {
	prev := ""
	for line := range strings.SplitSeq(strings.TrimSuffix(string(wideNearList()), "\n"), "\n") {
		if line <= prev {
			t.Fatalf("data/words_near_bible_names.txt is not in byte order at %q", line)
		}
		prev = line
	}
}

func TestTheNameOfTheMostEvidenceIsTakenBeforeTheNearestInLetters(t *testing.T) {
	e := testEngine(t)
	m := &matcher{d: e.d}
	ci := &e.d.companions
	index := func(name string) int32 {
		k, ok := ci.lookup([]byte(strings.ToLower(name)))
		if !ok {
			t.Fatalf("%s is no name of the index", name)
		}
		return k
	}
	text := "luke and onesimus and tychicus and aristarchus deeus"
	start := strings.Index(text, "deeus")
	for _, tt := range []struct {
		name  string
		cands []companionCand
		want  string
	}{
		// Demas shares Colossians 4 with the four names said before;
		// Tychicus, nearer in letters here, with three of them.
		{"more evidence", []companionCand{{index("Tychicus"), 1, true}, {index("Demas"), 2, false}}, "Demas"},
		{"the same evidence, nearer", []companionCand{{index("Demas"), 2, false}, {index("Demas"), 1, false}}, "Demas"},
		{"no evidence", []companionCand{{index("Darius"), 0, true}}, ""},
	} {
		if got := m.companionName(tt.cands, text, start, start+len("deeus"), nil); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
