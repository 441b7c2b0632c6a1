package correction

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fullEditDistance is the unbanded optimal string alignment distance,
// the reference for editDistance.
func fullEditDistance(a []byte, b string, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	if len(a) > 40 || len(b) > 40 {
		return max + 1
	}
	var rows [3][41]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > max {
		return max + 1
	}
	return prev[len(b)]
}

// TestEditDistanceBand checks that the banded editDistance agrees with the
// full table on random words and on near copies (swaps, drops, changes).
func TestEditDistanceBand(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alpha := "abcde"
	for n := 0; n < 200000; n++ {
		la, lb := r.IntN(12), r.IntN(12)
		a := make([]byte, la)
		b := make([]byte, lb)
		for i := range a {
			a[i] = alpha[r.IntN(len(alpha))]
		}
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		if r.IntN(2) == 0 && la > 0 {
			b = append([]byte{}, a...)
			for k := r.IntN(4); k > 0 && len(b) > 1; k-- {
				p := r.IntN(len(b) - 1)
				switch r.IntN(4) {
				case 0:
					b[p], b[p+1] = b[p+1], b[p]
				case 1:
					b = append(b[:p], b[p+1:]...)
				case 2:
					b[p] = alpha[r.IntN(5)]
				case 3:
					b = append(b[:p], append([]byte{alpha[r.IntN(5)]}, b[p:]...)...)
				}
			}
		}
		for max := 0; max <= 4; max++ {
			if g, w := editDistance(a, string(b), max), fullEditDistance(a, string(b), max); g != w {
				t.Fatalf("%q %q %d: %d, want %d", a, b, max, g, w)
			}
		}
	}
}

// TestASCIIEqualFold checks the word-at-a-time asciiEqualFold against a
// byte loop, for every length the fast paths split on, with one byte
// changed or its case bit flipped at each position.
func TestASCIIEqualFold(t *testing.T) {
	plain := func(a, b string) bool {
		if len(a) != len(b) {
			return false
		}
		for i := 0; i < len(a); i++ {
			if a[i]|0x20 != b[i]|0x20 {
				return false
			}
		}
		return true
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 40; n++ {
		for rep := 0; rep < 50; rep++ {
			a := make([]byte, n)
			for i := range a {
				a[i] = byte(r.IntN(256))
			}
			for p := -1; p < n; p++ {
				for _, flip := range []byte{0x20, 0x01, 0x80} {
					b := append([]byte{}, a...)
					if p >= 0 {
						b[p] ^= flip
					}
					if g, w := asciiEqualFold(string(a), string(b)), plain(string(a), string(b)); g != w {
						t.Fatalf("asciiEqualFold(%q, %q) = %v, want %v", a, b, g, w)
					}
				}
			}
			if g, w := asciiEqualFold(string(a), string(a)+"x"), false; g != w {
				t.Fatalf("lengths %d and %d: %v", n, n+1, g)
			}
		}
	}
}

// TestIsAnyFold checks that is and isAny, which compare bytes, agree with
// strings.EqualFold on tokens of every kind, non-ASCII letters that fold
// to ASCII ones included ("ſ", "K" as the Kelvin sign).
func TestIsAnyFold(t *testing.T) {
	e := testEngine(t)
	words := []string{"to", "in", "chapter", "chapters", "ch", "v", "vs", "according", "thousand", "s", "k"}
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"t", "T", "o", "O", "ſ", "\u212A", "k", "s", "c", "h", "ch", "apter", "APTER", "v", "1", "é", "according", "thousand"}
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := r.IntN(4) + 1; k > 0; k-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := "x " + sb.String() + " y"
		sc := new(scanner)
		sc.init(e.d, text)
		if !sc.has(1) || sc.tok(1).e() != len(text)-2 {
			continue // not one token
		}
		tok := text[2 : len(text)-2]
		any := false
		for _, w := range words {
			want := len(tok) == len(w) && strings.EqualFold(tok, w)
			any = any || want
			if got := sc.is(1, w); got != want {
				t.Fatalf("is(%q, %q) = %v, want %v", tok, w, got, want)
			}
		}
		if got := sc.isAny(1, words...); got != any {
			t.Fatalf("isAny(%q) = %v, want %v", tok, got, any)
		}
	}
}

// TestCorrectMatchesApply checks that Correct, which applies and counts
// the changes of Find itself, gives the content and summary of Apply and
// Summarize.
func TestCorrectMatchesApply(t *testing.T) {
	e := testEngine(t)
	texts := []string{"", "nothing here", "Revelations 21 4 and capernum", buildSermon(64 << 10)}
	for _, f := range []string{"captions", "notes", "traps", "whisper"} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", f+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for n, text := range texts {
		for _, opts := range []Options{{}, {NormalizeReferences: true}, {Categories: []string{CategoryPlace}}} {
			r := e.Correct(text, opts)
			changes := e.Find(text, opts)
			if !reflect.DeepEqual(r.Changes, changes) {
				t.Fatalf("text %d %+v: Correct's changes differ from Find's", n, opts)
			}
			if want := Apply(text, changes); r.Content != want {
				t.Errorf("text %d %+v: content differs from Apply's", n, opts)
			}
			if want := Summarize(changes); !reflect.DeepEqual(r.Summary, want) {
				t.Errorf("text %d %+v: summary %+v, want %+v", n, opts, r.Summary, want)
			}
		}
	}
}
