// Command correction-eval runs the correction engine over a directory of
// whole documents, the way a new user sends them, and scores its changes
// against hand judgments kept as data.
//
//	go run ./hack/correction-eval -docs /tmp/eval/docs \
//	    -judgments internal/text/correction/testdata/eval/judgments.tsv \
//	    -errors internal/text/correction/testdata/eval/errors.tsv \
//	    -unjudged /tmp/eval/unjudged.tsv
//
// The documents sit in one subdirectory per source shape (captions: lowercase
// auto-captions without punctuation; asr: punctuated speech recognition;
// controls, and any shape whose name begins so: text that is not about the
// Bible). A document is named by the
// first 16 hex digits of the SHA-256 of its bytes, so judgments and known
// errors of documents that may not be kept in the repository hold no text of
// them: a judgment is "doc, start, end, replacement, right|wrong, note"
// (a line break or tab of the replacement written as \n or \t); a
// known error is "name, doc, start, end, expected name". On a control, a
// change without a judgment counts as wrong.
//
// It prints, per shape, the automatic changes right and wrong, the
// suggestions right and wrong, what is not judged yet, and the known errors
// applied or suggested. -byrule also prints every change, with the rule
// that made it and the evidence it had (a capital only or another
// spelling, a capital the text writes, a number after it), and per shape
// the changes of each rule and evidence, right, wrong and unjudged.
// -unjudged writes the changes still to judge with
// their context, for reading (that file stays outside the repository).
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"tcs.dev/tcs/internal/text/correction"
)

func main() {
	docs := flag.String("docs", "", "directory of documents, one subdirectory per source shape")
	judgments := flag.String("judgments", "", "TSV of judged changes (doc, start, end, replacement, right|wrong, note)")
	errorsFile := flag.String("errors", "", "TSV of known errors (name, doc, start, end, expected)")
	unjudged := flag.String("unjudged", "", "write the changes not judged yet, and the known errors missed, with context, to this TSV")
	normalize := flag.Bool("normalize", false, "run with NormalizeReferences")
	categories := flag.String("categories", "", "comma-separated categories (default: the engine's default)")
	byRule := flag.Bool("byrule", false, "also print every change with its rule, evidence and verdict, and per shape the count of each rule and evidence, automatic and suggested, right, wrong and unjudged")
	flag.Parse()
	if *docs == "" {
		fmt.Fprintln(os.Stderr, "correction-eval: -docs is required")
		os.Exit(2)
	}
	if err := run(*docs, *judgments, *errorsFile, *unjudged, *normalize, *categories, *byRule); err != nil {
		fmt.Fprintln(os.Stderr, "correction-eval:", err)
		os.Exit(1)
	}
}

// key names a change of a document without its text.
type key struct {
	doc        string
	start, end int
	repl       string
}

// tally counts the changes and known errors of one source shape.
type tally struct {
	docs, bytes                         int
	autoRight, autoWrong, autoUnjudged  int
	suggRight, suggWrong, suggUnjudged  int
	known, knownApplied, knownSuggested int
	misheard, misheardFound             int // known errors that are more than a name's capital
	references                          int // changes that carry a Reference
	wrongAuto                           []string
	rules                               map[string][2]int  // rule: automatic wrong, suggestion wrong
	classes                             map[string]*[6]int // rule and evidence: automatic right, wrong, unjudged; suggested right, wrong, unjudged
}

// evidence names what a change had to go on, as read from outside the
// engine: a capital only or another spelling, and whether a chapter
// number follows the name.
func evidence(text string, c correction.Change) string {
	ev := "spelling"
	if strings.EqualFold(c.Original, c.Replacement) {
		ev = "capital"
	} else if strings.EqualFold(strings.Join(strings.Fields(c.Original), " "), c.Replacement) {
		ev = "capital"
	}
	if c.Original != "" && c.Original[0] >= 'A' && c.Original[0] <= 'Z' {
		ev += ",upper"
	}
	if c.Reference != nil || numberFollows(text[c.End:]) {
		ev += ",number"
	}
	return ev
}

// numberFollows reports whether the next word of rest is a number, in
// digits or in words, or "chapter".
func numberFollows(rest string) bool {
	f := strings.FieldsFunc(rest[:min(len(rest), 40)], func(r rune) bool { return r == ' ' || r == '\n' || r == ',' || r == ':' })
	if len(f) == 0 {
		return false
	}
	w := strings.ToLower(f[0])
	if w[0] >= '0' && w[0] <= '9' {
		return true
	}
	switch strings.TrimRight(w, ".,;:!?") {
	case "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
		"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
		"thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "chapter", "chapters":
		return true
	}
	return false
}

func run(dir, judgmentsFile, errorsFile, unjudgedFile string, normalize bool, categories string, byRule bool) error {
	judged := map[key]bool{}
	if judgmentsFile != "" {
		rows, err := readTSV(judgmentsFile, 5)
		if err != nil {
			return err
		}
		for _, r := range rows {
			start, err1 := strconv.Atoi(r[1])
			end, err2 := strconv.Atoi(r[2])
			if err1 != nil || err2 != nil || (r[4] != "right" && r[4] != "wrong") {
				return fmt.Errorf("%s: bad row %q", judgmentsFile, r)
			}
			judged[key{r[0], start, end, r[3]}] = r[4] == "right"
		}
	}
	type knownErr struct {
		start, end int
		want       string
	}
	known := map[string][]knownErr{}
	if errorsFile != "" {
		rows, err := readTSV(errorsFile, 5)
		if err != nil {
			return err
		}
		for _, r := range rows {
			start, err1 := strconv.Atoi(r[2])
			end, err2 := strconv.Atoi(r[3])
			if err1 != nil || err2 != nil {
				return fmt.Errorf("%s: bad row %q", errorsFile, r)
			}
			known[r[1]] = append(known[r[1]], knownErr{start, end, r[4]})
		}
	}
	e, err := correction.NewEngine()
	if err != nil {
		return err
	}
	opts := correction.Options{NormalizeReferences: normalize}
	if categories != "" {
		opts.Categories = strings.Split(categories, ",")
	}
	var out *bufio.Writer
	if unjudgedFile != "" {
		f, err := os.Create(unjudgedFile)
		if err != nil {
			return err
		}
		defer f.Close()
		out = bufio.NewWriter(f)
		defer out.Flush()
		fmt.Fprintln(out, "doc\tstart\tend\treplacement\tverdict\tnote\tfile\tstatus\trule\tcontext")
	}
	shapes, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	tallies := map[string]*tally{}
	var names []string
	for _, sh := range shapes {
		if !sh.IsDir() {
			continue
		}
		shape := sh.Name()
		t := &tally{rules: map[string][2]int{}, classes: map[string]*[6]int{}}
		tallies[shape] = t
		names = append(names, shape)
		files, err := filepath.Glob(filepath.Join(dir, shape, "*"))
		if err != nil {
			return err
		}
		slices.Sort(files)
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			doc := hex.EncodeToString(sum[:8])
			text := string(data)
			t.docs++
			t.bytes += len(data)
			changes := e.Find(text, opts)
			for _, c := range changes {
				if c.Reference != nil {
					t.references++
				}
				k := key{doc, c.Start, c.End, escapeTSV(c.Replacement)}
				right, ok := judged[k]
				control := strings.HasPrefix(shape, "controls")
				if !ok && control {
					ok, right = true, false
				}
				auto := c.Status == correction.StatusAutoApplied
				if byRule {
					cl := c.Rule + " " + evidence(text, c)
					if t.classes[cl] == nil {
						t.classes[cl] = new([6]int)
					}
					i := 0
					switch {
					case !ok:
						i = 2
					case !right:
						i = 1
					}
					if !auto {
						i += 3
					}
					t.classes[cl][i]++
					verdict := [6]string{"right", "wrong", "unjudged", "right", "wrong", "unjudged"}[i]
					fmt.Printf("change, %s\t%s\t%s\t%s\t%s\t%q\t%q\t%s\n", shape, filepath.Base(path), c.Status, cl, verdict,
						c.Original, c.Replacement, context(text, c.Start, c.End))
				}
				switch {
				case !ok && auto:
					t.autoUnjudged++
				case !ok:
					t.suggUnjudged++
				case auto && right:
					t.autoRight++
				case auto:
					t.autoWrong++
					t.wrongAuto = append(t.wrongAuto, fmt.Sprintf("%s %q -> %q (%s)", filepath.Base(path), c.Original, c.Replacement, c.Rule))
					r := t.rules[c.Rule]
					r[0]++
					t.rules[c.Rule] = r
				case right:
					t.suggRight++
				default:
					t.suggWrong++
					r := t.rules[c.Rule]
					r[1]++
					t.rules[c.Rule] = r
				}
				if out != nil && (!ok || (control && !hasKey(judged, k))) {
					fmt.Fprintf(out, "%s\t%d\t%d\t%s\t\t\t%s\t%s\t%s\t%s\n", doc, c.Start, c.End, k.repl,
						filepath.Base(path), c.Status, c.Rule, context(text, c.Start, c.End))
				}
			}
			for _, ke := range known[doc] {
				t.known++
				misheard := !strings.EqualFold(text[ke.start:ke.end], ke.want)
				if misheard {
					t.misheard++
				}
				found := false
				for _, c := range changes {
					if c.Start <= ke.start && ke.end <= c.End && strings.Contains(c.Replacement, ke.want) {
						if c.Status == correction.StatusAutoApplied {
							t.knownApplied++
						} else {
							t.knownSuggested++
						}
						found = true
						if misheard {
							t.misheardFound++
						}
						break
					}
				}
				if !found && out != nil {
					fmt.Fprintf(out, "%s\t%d\t%d\t%s\tmissed\t\t%s\t\t\t%s\n", doc, ke.start, ke.end, ke.want,
						filepath.Base(path), context(text, ke.start, ke.end))
				}
			}
		}
	}
	slices.Sort(names)
	fmt.Printf("%-9s %5s %9s | %-23s | %-23s | %s\n", "shape", "docs", "bytes", "automatic right/wrong(?)", "suggested right/wrong(?)", "known errors applied+suggested/all")
	for _, n := range names {
		t := tallies[n]
		rec := "-"
		if t.known > 0 {
			rec = fmt.Sprintf("%d+%d/%d = %.1f%%", t.knownApplied, t.knownSuggested, t.known,
				100*float64(t.knownApplied+t.knownSuggested)/float64(t.known))
		}
		fmt.Printf("%-9s %5d %9d | %6d / %4d (%4d)     | %6d / %4d (%4d)     | %s\n", n, t.docs, t.bytes,
			t.autoRight, t.autoWrong, t.autoUnjudged, t.suggRight, t.suggWrong, t.suggUnjudged, rec)
	}
	var mh, mf int
	for _, n := range names {
		mh += tallies[n].misheard
		mf += tallies[n].misheardFound
	}
	if mh > 0 {
		fmt.Printf("misheard (known errors that are more than a capital): %d / %d = %.1f%%;", mf, mh, 100*float64(mf)/float64(mh))
		for _, n := range names {
			if t := tallies[n]; t.misheard > 0 {
				fmt.Printf(" %s %d/%d", n, t.misheardFound, t.misheard)
			}
		}
		fmt.Println()
	}
	if normalize {
		for _, n := range names {
			fmt.Printf("references reported, %s: %d\n", n, tallies[n].references)
		}
	}
	for _, n := range names {
		t := tallies[n]
		for _, w := range t.wrongAuto {
			fmt.Printf("wrong automatic change, %s: %s\n", n, w)
		}
		rules := make([]string, 0, len(t.rules))
		for r := range t.rules {
			rules = append(rules, r)
		}
		slices.Sort(rules)
		for _, r := range rules {
			fmt.Printf("wrong by rule, %s: %-18s automatic %d, suggested %d\n", n, r, t.rules[r][0], t.rules[r][1])
		}
	}
	if byRule {
		for _, n := range names {
			t := tallies[n]
			for _, cl := range slices.Sorted(maps.Keys(t.classes)) {
				v := t.classes[cl]
				fmt.Printf("by rule, %s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", n, cl, v[0], v[1], v[2], v[3], v[4], v[5])
			}
		}
	}
	return nil
}

// escapeTSV writes a replacement for a TSV field: a change across a caption
// line ("city\nof david") keeps its line break, written as \n.
func escapeTSV(s string) string {
	return strings.NewReplacer("\\", `\\`, "\n", `\n`, "\t", `\t`).Replace(s)
}

func hasKey(m map[key]bool, k key) bool {
	_, ok := m[k]
	return ok
}

// context returns the text around a change on one line, the change in
// brackets.
func context(text string, start, end int) string {
	a, b := max(0, start-70), min(len(text), end+70)
	s := text[a:start] + "[" + text[start:end] + "]" + text[end:b]
	return strings.NewReplacer("\n", " / ", "\t", " ").Replace(strings.ToValidUTF8(s, "?"))
}

// readTSV reads a TSV file with a header into rows of at least n fields.
func readTSV(name string, n int) ([][]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows [][]string
	s := bufio.NewScanner(f)
	for line := 1; s.Scan(); line++ {
		if line == 1 || strings.TrimSpace(s.Text()) == "" || strings.HasPrefix(s.Text(), "#") {
			continue
		}
		row := strings.Split(s.Text(), "\t")
		if len(row) < n {
			return nil, fmt.Errorf("%s line %d: %d fields, want %d", name, line, len(row), n)
		}
		rows = append(rows, row)
	}
	return rows, s.Err()
}
