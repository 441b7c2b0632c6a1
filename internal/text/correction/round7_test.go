package correction

import (
	"slices"
	"testing"
)

func TestABookThatIsAlsoAVerbStaysTheVerb(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"acts before like is the verb after the sermon cites Acts",
			sermonOpening + "in acts 2 they prayed and when the other person acts like they do not care",
			[]string{"acts>Acts book.lowercase auto"}},
		{"judges after god is the verb after the sermon cites Judges",
			sermonOpening + "in judges 2 it is dark and god judges the heart",
			[]string{"judges>Judges book.lowercase auto"}},
		{"the bare return of a cited book is the book after a preposition",
			sermonOpening + "in acts 2 they prayed and later in acts we see the church grow",
			[]string{"acts>Acts book.lowercase auto", "acts>Acts book.lowercase auto"}},
		{"the end of judges is the book",
			sermonOpening + "in judges 2 it is dark and the end of judges is darker",
			[]string{"judges>Judges book.lowercase auto", "judges>Judges book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAModernNameIsNoPersonOfTheCitedChapters(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"a woman of the congregation named like Stephen of Acts 6",
			captionSermon + "in acts 6 5 they chose stephen a man full of faith\nokay i'm going to ask ernan and stephanie\nstephanie come out",
			[]string{"acts>Acts book.lowercase auto"}},
		{"a name no list holds is still the person of the cited chapter",
			captionSermon + "the leader of the synagogue\ngyrus came to his house\nand we read in mark 5 22 that he fell at his feet",
			[]string{"gyrus>Jairus person.fuzzy review", "mark>Mark book.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, Options{}).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
