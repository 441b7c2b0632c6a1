package correction

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// benchGlossary returns n entries shaped as a church's glossary: people's
// names with a title, church and ministry names, local places and hymn
// titles, each with two or three misheard forms; half of them match by
// sound too.
func benchGlossary(n int) []GlossaryEntry {
	r := rand.New(rand.NewPCG(3, 4))
	syl := []string{"ko", "nk", "wo", "ba", "de", "mi", "lo", "ze", "ri", "tu", "na", "ye", "chi", "fo", "la", "su", "ke", "ndu", "ga", "bo", "ji", "mba", "ro", "te"}
	name := func() string {
		var sb strings.Builder
		for k := 2 + r.IntN(3); k > 0; k-- {
			sb.WriteString(syl[r.IntN(len(syl))])
		}
		return sb.String()
	}
	title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
	titles := []string{"Pastor", "Deacon", "Elder", "Sister", "Brother", "Bishop"}
	kinds := []string{"Tabernacle", "Assembly", "Chapel", "Fellowship", "Youth", "Choir"}
	seen := map[string]bool{}
	var out []GlossaryEntry
	for i := 0; len(out) < n; i++ {
		a, b := name(), name()
		var e GlossaryEntry
		switch i % 4 {
		case 0, 1:
			e = GlossaryEntry{Term: titles[r.IntN(len(titles))] + " " + title(a), Category: "name"}
		case 2:
			e = GlossaryEntry{Term: title(a) + " " + kinds[r.IntN(len(kinds))], Category: "church"}
		default:
			e = GlossaryEntry{Term: "The " + title(a) + " " + title(b) + " Hymn", Category: "hymn"}
		}
		words := strings.Fields(strings.ToLower(e.Term))
		for k := 0; k < 2+r.IntN(2); k++ {
			w := slices.Clone(words)
			j := r.IntN(len(w))
			w[j] = w[j][:len(w[j])-1] + string(rune('a'+r.IntN(26))) + "h"
			e.Forms = append(e.Forms, strings.Join(w, " "))
		}
		e.SoundsLike = i%2 == 0
		e.Auto = i%3 != 0
		key := strings.ToLower(e.Term)
		dup := seen[key]
		for _, f := range e.Forms {
			dup = dup || seen[f]
		}
		if dup {
			continue
		}
		seen[key] = true
		for _, f := range e.Forms {
			seen[f] = true
		}
		out = append(out, e)
	}
	return out
}

func BenchmarkCorrectWithGlossary(b *testing.B) {
	e, err := NewEngine()
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewGlossary(benchGlossary(MaxGlossaryEntries))
	if err != nil {
		b.Fatal(err)
	}
	text := buildSermon(2 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	cpu := startThreadCPU()
	for b.Loop() {
		e.Correct(text, Options{Glossary: g})
	}
	cpu.report(b, len(text))
}

func BenchmarkNewGlossary(b *testing.B) {
	entries := benchGlossary(MaxGlossaryEntries)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewGlossary(entries); err != nil {
			b.Fatal(err)
		}
	}
}
