package correction

import (
	"slices"
	"testing"
)

// The tests of issue 24's fourteenth round (H): a control of speeches in
// English mixed with Tagalog, in the caption shape (see
// docs/performance.md, "Fourteenth round H").

func TestATagalogWordThatNamesAPlaceIsTheWordOnATagalogLine(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"magdala, to bring, in a speech",
			podcastText + "\nyou can have one or two ngayon magdala ka magpractice ka kung hindi ka marunong\n",
			[]string{}},
		{"magdala, to bring, in a sermon",
			captionSermon + "ngayon magdala ka ng bibliya kung hindi ka pa nakabasa\n",
			[]string{}},
		{"function words written with an apostrophe count",
			captionSermon + "sabi ko 'yung magdala 'yan ng tubig\n",
			[]string{}},
		{"mary of magdala on an English line is the place",
			captionSermon + "mary of magdala was there ngayon\n",
			[]string{"magdala>Magdala place.lowercase auto"}},
		{"a country on a Tagalog line keeps its capital",
			podcastText + "\nlook what happened to libya look what happened to syria nauubos ang\n",
			[]string{"libya>Libya place.lowercase auto", "syria>Syria place.lowercase auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compactAll(e.Correct(tt.in, Options{}).Changes)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	for w, want := range map[string]bool{"magdala": true, "kain": true, "anim": true, "jerusalem": false, "syria": false} {
		if got := tagalogPlaceWord(w); got != want {
			t.Errorf("tagalogPlaceWord(%q) = %v, want %v", w, got, want)
		}
	}
}
