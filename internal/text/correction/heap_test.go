package correction

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// correctHeap returns the bytes allocated by one Correct call divided by
// the length of text. The collector is off during the call, so nothing
// allocated is freed: the figure bounds the peak extra heap of the call.
func correctHeap(e *Engine, text string, opts Options) float64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := e.Correct(text, opts)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(r)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text))
}

// BenchmarkCorrectPeakHeap reports the heap allocated by one Correct call
// of the 2 MB transcript per byte of input (heap/input), a bound of its
// peak extra heap; the target is below 3.
func BenchmarkCorrectPeakHeap(b *testing.B) {
	e, err := NewEngine()
	if err != nil {
		b.Fatal(err)
	}
	text := buildSermon(2 << 20)
	b.SetBytes(int64(len(text)))
	worst := 0.0
	for b.Loop() {
		worst = max(worst, correctHeap(e, text, Options{}))
	}
	b.ReportMetric(worst, "heap/input")
}

func TestCorrectPeakHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 2 MB transcript")
	}
	e := testEngine(t)
	text := buildSermon(2 << 20)
	// With NormalizeReferences each change of a book carries its
	// Reference (64 bytes and its OSIS id): on this text, with a
	// reference every 200 bytes, 0.8 times the input more.
	for _, tc := range []struct {
		opts  Options
		bound float64
	}{{Options{}, 3}, {Options{NormalizeReferences: true}, 4}} {
		opts := tc.opts
		if r := correctHeap(e, text, opts); r >= tc.bound {
			t.Errorf("Correct(%+v) allocated %.2f times its input, want < %g", opts, r, tc.bound)
		} else {
			t.Logf("Correct(%+v): heap/input %.2f", opts, r)
		}
	}
}

// TestScannerTokens checks the streaming scanner against tokenize: the
// same tokens with the same flags, whatever the window size.
func TestScannerTokens(t *testing.T) {
	e := testEngine(t)
	texts := []string{
		"", "a", "  ", "ab cd", "Revelations 21:4 and psalms 23 in jerusalem",
		"\xff\xfe romans 8 28 \xc3", "Ǆ romans Ǆ 1 jn 4:8", "song of\nsongs 2\n4",
		"ÄÖÜ äöü ß İstanbul \u212Aings 5 café naïve e\u0301t\u0301e 日本語 ١٢٣",
		"abcdefgh abcdefghi abcdefghijklmnopq 1234567890123 A1b2C3d4E5f6",
		"x\x00y\x7fz@[`{ AZaz09 /:", buildSermon(64 << 10),
	}
	for _, f := range []string{"captions", "notes", "traps", "whisper"} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", f+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for k := 0; k < 256; k++ {
		texts = append(texts, "ab"+string(rune(k))+"cd "+strconv.Itoa(k)+string([]byte{byte(k)})+"Z")
	}
	for n, text := range texts {
		checkScanner(t, e, n, text)
	}
}

// TestScannerRandom checks the scanner against tokenize on random texts
// of ASCII words, runes from 0x80 that are letters or not, invalid bytes
// and long words, so that words and runes cross the scanner's groups of
// 64 bytes and the text ends at a group's end.
func TestScannerRandom(t *testing.T) {
	e := testEngine(t)
	r := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"a", "Ab", "word", "Romans", "capernaum", "verylongwordofthirtytwoletters", "12", "3", " ", " ", " ",
		"\n", ", ", ".", "é", "日本", "\u2019", "\u2014", "\xff", "\xc3", "\u0301", "\u0130", "\u01c5", "\u212a", "x1", "\u0661\u0662"}
	for n := 0; n < 4000; n++ {
		var sb strings.Builder
		size := r.IntN(200)
		if n%10 == 0 {
			size = 64*(1+r.IntN(3)) - r.IntN(3)
		}
		for sb.Len() < size {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := sb.String()
		if n%7 == 0 && len(text) > 64 {
			text = text[:64*(len(text)/64)] // a cut rune, a word to the end of a group
		}
		checkScanner(t, e, n, text)
	}
}

// checkScanner checks the scanner on text against tokenize: the same
// tokens with the same hash, and the flags refFlags computes.
func checkScanner(t *testing.T, e *Engine, n int, text string) {
	t.Helper()
	want := tokenize(text, nil)
	sc := new(scanner)
	sc.init(e.d, text)
	i := 0
	var prev token
	for ; sc.has(i); i++ {
		sc.keep = i - 2
		got := sc.tok(i)
		if i >= len(want) {
			t.Fatalf("text %d: extra token %d %q", n, i, text[got.s():got.e()])
		}
		w := want[i]
		const same = tUpper | tDigits
		if got.start != w.start || got.end != w.end || got.flags&same != w.flags&same {
			t.Fatalf("text %d token %d: got %q %b, want %q %b", n, i, text[got.s():got.e()], got.flags, text[w.s():w.e()], w.flags)
		}
		if got.flags&tMulti == 0 && got.h != keyHash(string(appendLower(nil, text[got.s():got.e()]))) {
			t.Fatalf("text %d token %d %q: hash differs from keyHash", n, i, text[got.s():got.e()])
		}
		if wf := refFlags(e.d, text, w, prev, i > 0); got.flags != wf {
			t.Fatalf("text %d token %d %q: flags %06b, want %06b", n, i, text[got.s():got.e()], got.flags, wf)
		}
		prev = got
	}
	if i != len(want) {
		t.Fatalf("text %d: %d tokens, want %d", n, i, len(want))
	}
}

// refFlags computes the flags of token w of text (from tokenize) plainly,
// as the scanner should: prev is the token before it, if any (hasPrev).
func refFlags(d *dict, text string, w token, prev token, hasPrev bool) uint8 {
	word := text[w.s():w.e()]
	f := w.flags & (tUpper | tDigits)
	multi := !isASCII(word)
	if multi {
		f |= tMulti
	}
	full := multi || d.keyBit(keyHash(string(appendLower(nil, word)))) == 1
	if full {
		f |= tFull
	}
	hasDigit := strings.ContainsAny(word, "0123456789")
	size := len(word)
	k := (min(size, 31)*27+letterIndex(word[0]))*27 + letterIndex(word[size-1])
	sh := d.scanShape(k)
	cue := hasPrev && d.placeCueBit(prev.h) == 1
	if !full && !hasDigit && (sh&1 == 1 || cue && sh&2 == 2) {
		f |= tFuzzy
	}
	if f&tDigits != 0 && (!hasPrev || prev.flags&tDigits == 0 && prev.e()-prev.s() >= 5) {
		f |= tNumTry
	}
	return f
}

// TestConfidenceRoundTrip checks that every confidence with two decimals
// survives the compact form of the matcher's records.
func TestConfidenceRoundTrip(t *testing.T) {
	for p := 0; p <= 100; p++ {
		want, err := strconv.ParseFloat(fmt.Sprintf("%d.%02d", p/100, p%100), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := pctConf(confPct(want)); got != want || math.IsNaN(got) {
			t.Fatalf("%v became %v", want, got)
		}
	}
}

func TestRecsLongOriginal(t *testing.T) {
	var r recs
	r.add(5, 9, 1, ruleBookLowercase, 90)
	r.add(10, 10+70000, 2, ruleBookLowercase, 90)
	r.add(70010, 70012, dynRef|3, rulePlaceFuzzy, 60)
	var ends []int
	for _, b := range r.blocks {
		for _, x := range b {
			ends = append(ends, r.end(x))
		}
	}
	if fmt.Sprint(ends) != "[9 70010 70012]" || r.n != 3 {
		t.Fatalf("ends %v, n %d", ends, r.n)
	}
	if size := unsafe.Sizeof(rec{}); size != 12 {
		t.Errorf("rec is %d bytes, want 12", size)
	}
}

func TestChangeIDs(t *testing.T) {
	for _, n := range []int{1, 9, 10, 9999, 10000, 10001, 100123} {
		ids := newChangeIDs(n)
		for i := 1; i <= n; i++ {
			want := fmt.Sprintf("chg_%04d", i)
			if got := ids.next(); got != want {
				t.Fatalf("n=%d: ID %d is %q, want %q", n, i, got, want)
			}
		}
		if ids.pos != len(ids.all) {
			t.Fatalf("n=%d: %d bytes left", n, len(ids.all)-ids.pos)
		}
	}
}
