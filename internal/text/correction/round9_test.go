package correction

import (
	"slices"
	"testing"
)

func TestANumberWordBeforeOfCountsAndNamesNoChapter(t *testing.T) {
	e := testEngine(t)
	norm := Options{NormalizeReferences: true}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one of the things after a book's name is no chapter",
			"As we walk through the book of Isaiah, one of the things we will see is hope.",
			[]string(nil)},
		{"one of the disciples after a person who is also a book is no reference",
			"Did you touch him? And Peter, one of Jesus's disciples, speaks up.",
			[]string(nil)},
		{"a lowercase book before one of keeps its capital and gets no chapter",
			captionSermon + "the gospel of john one of the things we explore",
			[]string{"john>John book.lowercase auto"}},
		{"the word chapter still names the chapter before of",
			"Turn to Isaiah chapter one of your Bibles.",
			[]string{"Isaiah chapter one>Isaiah 1 reference.normalize auto"}},
		{"a number word not before of is still the chapter",
			"The book of Isaiah one says come now, let us reason together.",
			[]string{"Isaiah one>Isaiah 1 reference.normalize auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactAll(e.Correct(tt.in, norm).Changes); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
