package correction

import (
	"slices"
	"testing"
)

func TestASentencesEndBetweenABookAndANumberIsNoReference(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a child's age said after his name is no chapter",
			sermonOpening + "And he's older than that. Eight. Thanks, John. Eight. We went to this place called Dinosaur World.",
			[]string{}},
		{"a number after a period and a capital begins the next sentence",
			sermonOpening + "We read the letter of James. Twelve of us stayed after the service.",
			[]string{}},
		{"the same numbers without the period are the reference",
			sermonOpening + "Turn with me to John eight, where Jesus says he is the light of the world.",
			[]string{"John eight>John 8 reference.normalize auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestABooksNameSaidToAPersonTakesNoChapter(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"thanks before the name",
			captionSermon + "he's older than that eight thanks john eight we went to this place",
			[]string{"john>John book.lowercase auto"}},
		{"thank you before the name",
			captionSermon + "thank you mark four we loved the piano this morning",
			[]string{"mark>Mark book.lowercase auto"}},
		{"hey before the name",
			captionSermon + "hey james 2 minutes and we start the second service",
			[]string{"james>James book.lowercase auto"}},
		{"the book after turn to is still the book",
			captionSermon + "turn to john eight where jesus says he is the light of the world",
			[]string{"john eight>John 8 book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAPlaceThatIsAlsoAnEnglishWordIsThePlaceBesideAnother(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"before and and a place",
			captionSermon + "it will be more bearable on the day of judgment for tyre and sidon than for you",
			[]string{"tyre>Tyre place.lowercase auto", "sidon>Sidon place.lowercase auto"}},
		{"between two places and or",
			captionSermon + "more severe than that of sodom or tyre or sidon or any of those pagan cities",
			[]string{"sodom>Sodom place.lowercase auto", "tyre>Tyre place.lowercase auto", "sidon>Sidon place.lowercase auto"}},
		{"after a place and or",
			captionSermon + "he will judge the city whether it is sidon or tyre in that day",
			[]string{"sidon>Sidon place.lowercase auto", "tyre>Tyre place.lowercase auto"}},
		{"beside no place it is the English word",
			captionSermon + "we had a flat tyre and a broken window on the way to church",
			[]string{}},
		{"beside a word that is no place it is the English word",
			captionSermon + "the news media and the press were there for the baptism",
			[]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestThePsalmsAsAWholeAreTheBookInASermon(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"reading through the psalms",
			captionSermon + "you'll find daily readings through the psalms with fresh biblical insight",
			[]string{"psalms>Psalms book.lowercase auto"}},
		{"as the psalms say",
			captionSermon + "they were willing to lie for payment as the psalms would say",
			[]string{"psalms>Psalms book.lowercase auto"}},
		{"the psalms as a subject are the songs",
			captionSermon + "the psalms were the songbook of the church for centuries",
			[]string{}},
		{"psalms sung are the common noun",
			captionSermon + "and then we sang the psalms together before the sermon",
			[]string{}},
		{"a kind of psalms is the common noun",
			captionSermon + "in seasons of sorrow have been the psalms of lament for me",
			[]string{}},
		{"some psalms are the common noun",
			captionSermon + "the tongues the interpretations the psalms that we bring to god",
			[]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
