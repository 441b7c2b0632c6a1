package dashboard

import (
	"strings"
	"testing"

	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

func TestWithContext(t *testing.T) {
	long := strings.Repeat("word ", 30)
	content := "Turn to 1 Corinthians 13.\n" + long + "and Revelation 21 " + long + "\nthe capernum line"
	rows := []changeRow{
		{Change: pipeline.Change{Change: correction.Change{Original: "first corinthians", Replacement: "1 Corinthians", Line: 1}}, Applied: true},
		{Change: pipeline.Change{Change: correction.Change{Original: "revelations", Replacement: "Revelation", Line: 2}}, Applied: true},
		{Change: pipeline.Change{Change: correction.Change{Original: "capernum", Replacement: "Capernaum", Line: 3}}, Applied: false},
		{Change: pipeline.Change{Change: correction.Change{Original: "x", Replacement: "y", Line: 9}}, Applied: true},
	}
	withContext(rows, content)
	want := []struct{ before, match, after string }{
		{"Turn to ", "1 Corinthians", " 13."},
		{"…" + (long + "and ")[len(long)+4-contextRunes:], "Revelation", (" 21 " + long)[:contextRunes] + "…"},
		{"the ", "capernum", " line"},
		{"", "", ""},
	}
	for i, w := range want {
		r := rows[i]
		if r.Before != w.before || r.Match != w.match || r.After != w.after {
			t.Errorf("row %d: %q|%q|%q, want %q|%q|%q", i, r.Before, r.Match, r.After, w.before, w.match, w.after)
		}
	}
}
