// Command kjvrows writes the lists of names the King James Version says
// in a row ("Shadrach, Meshach, and Abed-nego", "Peter and James and
// John"), for the correction engine's names heard among the names said
// with them (data/kjv_name_rows.txt).
//
//	go run ./gen/kjvrows -kjv kjv.txt -people data/kjv_people.tsv -o data/kjv_name_rows.txt
//
// The KJV text is that of Debian's bible-kjv-text package (public domain),
// one verse a line as `bible -f Gen1:1-Rev22:21` prints it; without -kjv
// the command runs that program. A list is three names or more of
// data/kjv_people.tsv in one verse with nothing between them but commas,
// "and" or "of" ("Gedeon, and of Barak, and of Samson"); a hyphen inside a
// name is dropped, as the names' list writes it ("Abednego"). Each list is
// written once, its names separated by spaces, the lists in byte order.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"tcs.dev/tcs/internal/text/correction/gen/kjvtext"
)

// minList is the fewest names of a list.
const minList = 3

func main() {
	kjv := flag.String("kjv", "", "the KJV text, one verse a line as bible(1) prints it (default: run bible -f Gen1:1-Rev22:21)")
	people := flag.String("people", "data/kjv_people.tsv", "the KJV's names, the first column of a TSV")
	out := flag.String("o", "data/kjv_name_rows.txt", "output file")
	flag.Parse()
	if err := run(*kjv, *people, *out); err != nil {
		fmt.Fprintln(os.Stderr, "kjvrows:", err)
		os.Exit(1)
	}
}

func run(kjvFile, peopleFile, outFile string) error {
	text, err := kjvtext.Read(kjvFile)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(peopleFile)
	if err != nil {
		return fmt.Errorf("reading %s: %w", peopleFile, err)
	}
	names := map[string]bool{}
	for line := range strings.SplitSeq(string(data), "\n") {
		if name, _, _ := strings.Cut(line, "\t"); name != "" {
			names[name] = true
		}
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		_, verse, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		for _, l := range lists(verse, names) {
			seen[strings.Join(l, " ")] = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the KJV text: %w", err)
	}
	var b strings.Builder
	for _, l := range slices.Sorted(func(yield func(string) bool) {
		for l := range seen {
			if !yield(l) {
				return
			}
		}
	}) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(outFile, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", outFile, err)
	}
	return nil
}

// lists returns the runs of minList names or more of the verse with
// nothing between them but commas, "and" or "of".
func lists(verse string, names map[string]bool) [][]string {
	var out [][]string
	var cur []string
	joined := true // nothing but a joining word since the last name
	flush := func() {
		if len(cur) >= minList {
			out = append(out, cur)
		}
		cur = nil
	}
	for _, w := range words(verse) {
		switch {
		case names[w]:
			if !joined {
				flush()
			}
			cur = append(cur, w)
			joined = false
		case w == "," || w == "and" || w == "of":
			joined = len(cur) > 0
		default:
			flush()
			joined = true
		}
	}
	flush()
	return out
}

// words returns the words of a verse, hyphens inside them dropped, and its
// commas; other punctuation ends a run as a word does.
func words(verse string) []string {
	var out []string
	var w []byte
	end := func() {
		if len(w) > 0 {
			out = append(out, string(w))
			w = w[:0]
		}
	}
	for i := 0; i < len(verse); i++ {
		c := verse[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			w = append(w, c)
		case c == '-' && len(w) > 0 && i+1 < len(verse) && (verse[i+1] >= 'a' && verse[i+1] <= 'z' || verse[i+1] >= 'A' && verse[i+1] <= 'Z'):
			// "Abed-nego"
		case c == ',':
			end()
			out = append(out, ",")
		default:
			end()
			if c != ' ' {
				out = append(out, ".")
			}
		}
	}
	end()
	return out
}
