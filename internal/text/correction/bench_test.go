package correction

import (
	"bufio"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func BenchmarkNewEngine(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewEngine(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCorrect(b *testing.B) {
	e, err := NewEngine()
	if err != nil {
		b.Fatal(err)
	}
	text := buildSermon(2 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	cpu := startThreadCPU()
	for b.Loop() {
		e.Correct(text, Options{})
	}
	cpu.report(b, len(text))
}

// threadCPU measures the CPU time of the benchmark's thread, which on a
// busy shared machine says more about one core's throughput than the
// wall clock: time spent waiting for a core is not counted.
type threadCPU struct {
	start time.Duration
	ok    bool
}

func startThreadCPU() threadCPU {
	runtime.LockOSThread()
	d, ok := threadTime()
	return threadCPU{start: d, ok: ok}
}

// report adds the cpu-MB/s metric and unlocks the thread.
func (c threadCPU) report(b *testing.B, size int) {
	defer runtime.UnlockOSThread()
	end, ok := threadTime()
	if !c.ok || !ok || end <= c.start {
		return
	}
	b.ReportMetric(float64(size)*float64(b.N)/(end-c.start).Seconds()/1e6, "cpu-MB/s")
}

// threadTime returns the user and system CPU time of the calling thread.
func threadTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// rusageThread is RUSAGE_THREAD of Linux.
const rusageThread = 1

func BenchmarkCorrectNormalize(b *testing.B) {
	e, err := NewEngine()
	if err != nil {
		b.Fatal(err)
	}
	text := buildSermon(2 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		e.Correct(text, Options{NormalizeReferences: true})
	}
}

// baselineDict returns every dictionary variant with a replacement: book
// variants to their canonical names, place spellings to their names.
func baselineDict(tb testing.TB) map[string]string {
	m := map[string]string{}
	read := func(name string, fn func(f []string)) {
		f, err := dataFS.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		s := bufio.NewScanner(f)
		s.Scan()
		for s.Scan() {
			fn(strings.Split(s.Text(), "\t"))
		}
	}
	read("data/bible_book_variants_detailed.tsv", func(f []string) {
		m[strings.ToLower(f[0])] = f[1]
	})
	read("data/bible_places.tsv", func(f []string) {
		m[strings.ToLower(f[0])] = f[0]
		for _, v := range strings.Split(f[1], "|") {
			if v != "" {
				m[strings.ToLower(v)] = f[0]
			}
		}
	})
	return m
}

// BenchmarkRegexpBaseline is the naive yardstick: one case-insensitive
// alternation of every dictionary variant and a map lookup per match.
func BenchmarkRegexpBaseline(b *testing.B) {
	m := baselineDict(b)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, regexp.QuoteMeta(k))
	}
	slices.SortFunc(keys, func(x, y string) int { return len(y) - len(x) })
	re := regexp.MustCompile(`(?i)\b(?:` + strings.Join(keys, "|") + `)\b`)
	// The baseline is about 10,000 times slower than the engine: it runs
	// on the first 64 KiB of the same text so that one iteration takes
	// seconds, not minutes. MB/s stays comparable.
	text := buildSermon(64 << 10)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		re.ReplaceAllStringFunc(text, func(s string) string {
			if r, ok := m[strings.ToLower(s)]; ok {
				return r
			}
			return s
		})
	}
}
