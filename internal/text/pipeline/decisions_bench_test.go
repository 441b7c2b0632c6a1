package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

// BenchmarkDecide applies a decision on every change of a long sermon's captions.
func BenchmarkDecide(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("..", "formats", "testdata", "sermon.srt"))
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(strings.Repeat(string(one)+"\n", 200))
	engine, err := correction.NewEngine()
	if err != nil {
		b.Fatal(err)
	}
	res, err := New(engine, nil).Correct(doc, formats.SRT, correction.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var decisions []Decision
	for i, c := range res.Changes {
		if i%2 == 0 {
			decisions = append(decisions, reject(c.ID))
		} else {
			decisions = append(decisions, accept(c.ID))
		}
	}
	changes := plain(res.Changes)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := Decide(doc, formats.SRT, changes, nil, decisions); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(changes)), "changes")
}
