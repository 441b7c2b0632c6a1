package correction

import (
	"slices"
	"testing"
)

func TestAWordOfALineOfAnotherLanguageIsSuggestedAsNoNameOrPlace(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name   string
		in     string
		want   []string
		people []string // the changes with the people asked for, when not want
	}{
		{"a person on a line of Swedish function words",
			"turn to romans 16 12\nsaker men de fick en regel och nu\nska ni få samma regel grapparna vet precis vad det kommer komma\nväldigt enkel regel de hävdar ibland att det",
			[]string{"romans>Romans book.lowercase auto"}, nil},
		{"a place on a line of Swedish function words",
			"att kunna fullgöra det här uppdraget vi tackar\ner för det jesus när du talade om jorden så sa du\njag och också andra får det finns en jord här men",
			nil, nil},
		{"a place on a line of another script",
			"turn to psalm 22 12\noh oh oh oh come 옆е\nи abandonос и neredintе busan come\n옆е и земляс и н dietary heute platя и желño come",
			[]string{"psalm>Psalm book.lowercase auto"}, nil},
		{"a place on a cue of one Swedish word between cues of Swedish",
			"turn to joshua 15 38\när att i det här redaktionsrådet så har vi en\nbra bredd av skribenter från den stora delen\nav friska frikirkeligheten så det är vi väldigt tacksamma",
			[]string{"joshua>Joshua book.lowercase auto"}, nil},
		{"places on a cue of one Swedish word after a cue of Swedish",
			"turn to joshua 15 3\nmammor då har betytt något otroligt\nför sina familjer i gamla karga\nsovjettsiden deras pappor många gånger har suttit i fängelse för",
			[]string{"joshua>Joshua book.lowercase auto"}, nil},
		{"a place on a cue with an accented letter beside a cue of Swedish",
			"så med den thank god jesus\nis from berlin jesus derge bor jesus medt i mörket\nin for varje finne jesus for familie du",
			nil, nil},
		{"a lowercase place's name suggested on a line of Swedish",
			"så vi pridikade om lovets offera och tänk hur\ndet var när paulus och silla sitter där i fängelsecellen\nlängst in i mörkret apostoläringarna 16 för",
			nil, []string{"paulus>Paulus person.lowercase auto"}},
		{"the automatic capitals of a line of Swedish are kept",
			"att kunna fullgöra det här uppdraget\ngå över jordan och in i jericho\njag och också andra får det finns",
			[]string{"jordan>Jordan place.lowercase auto", "jericho>Jericho place.lowercase auto"}, nil},
		{"a line of English between lines of Swedish keeps its suggestion",
			"det är så att vi har\ncolossians 4 7 ticus will tell you all about my activities\noch det är så att vi",
			[]string{"colossians>Colossians book.lowercase auto", "ticus>Tychicus person.fuzzy review"}, nil},
		{"a long line with one word of Spanish is no cue",
			"We give you glory and praise and honor through our Lord Jesus Christ. Amen. Please remain standing as you're able for the reading of God's word from the book of Colossians 4:es 7-18. Ticus will tell you all about my activities. He is a beloved brother and faithful minister and fellow servant in the Lord.",
			[]string{"Ticus>Tychicus person.fuzzy review"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(captionSermon+tt.in, Options{}).Changes); !slices.Equal(got, nonNil(tt.want)) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			want := tt.want
			if tt.people != nil {
				want = tt.people
			}
			opts := Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}}
			if got := compactAll(e.Correct(captionSermon+tt.in, opts).Changes); !slices.Equal(got, nonNil(want)) {
				t.Errorf("with the people: got %q, want %q", got, want)
			}
		})
	}
}

func TestAFunctionWordOfSwedishNorwegianDanishOrDutchIsAWordOfAnotherLanguage(t *testing.T) {
	tests := []struct {
		word string
		want bool
	}{
		{"och", true},
		{"Att", true},
		{"också", true},
		{"ikke", true},
		{"niet", true},
		{"que", true}, // Spanish, as before
		{"the", false},
		{"av", false},   // audio-visual
		{"dina", false}, // Dinah
		{"hos", false},
		{"sina", false}, // mount Sina
		{"het", false},
		{"heel", false},
		{"precis", false}, // a word a rule may take for a name: a function word only is read
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := foreignWord(tt.word); got != tt.want {
				t.Errorf("foreignWord(%q) = %v, want %v", tt.word, got, tt.want)
			}
		})
	}
}

// nonNil returns s, or an empty slice for nil, as compactAll returns none.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestAnEnglishWordIsSuggestedAsNoNameByItsSpellingAlone(t *testing.T) {
	e := testEngine(t)
	tests := []changeCase{
		{"an English word heard for a place of the cited chapter",
			"turn to deuteronomy 3 10\nto be skeptical and you have to learn how to interpret\nscripture right you have to learn how to be a berean and\nsearch the scriptures to see\nwhether the things which are",
			[]string{"deuteronomy>Deuteronomy book.lowercase auto", "berean>Berean place.lowercase auto"}},
		{"a word of no English heard for a place of the cited chapter",
			"turn to deuteronomy 3 10\nto be skeptical and you have to learn how to interpret\nscripture right you have to learn how to be a berean and\nsalca the scriptures to see\nwhether the things which are",
			[]string{"deuteronomy>Deuteronomy book.lowercase auto", "berean>Berean place.lowercase auto", "salca>Salcah place.fuzzy review"}},
	}
	checkCaptionCases(t, e, Options{}, tests)
}

func TestANameOfTheKJVWithAnSIsSuggestedAsNoOtherName(t *testing.T) {
	e := testEngine(t)
	people := Options{Categories: []string{CategoryBible, CategoryPlace, CategoryPerson}}
	tests := []changeCase{
		{"the plural of a name, two letters",
			"as we see in the timothys paul is the last place\ni want to be is in prison\nbut paul finds himself in prison and you\nwouldn't expect letters of encouragement really coming",
			[]string{}},
		{"a surname made of a name",
			"in here for pastor brad sullivan come on\nup here sir\ncome on give it up for pastor chas\nstephens\ncome on give it up for jesus isn't he",
			[]string{}},
		{"a name heard wrong with no name before its s",
			"turn to colossians 4 7\ntychius will tell you all about my activities",
			[]string{"colossians>Colossians book.lowercase auto", "tychius>Tychicus person.fuzzy review"}},
	}
	checkCaptionCases(t, e, people, tests)
}
