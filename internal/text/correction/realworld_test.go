package correction

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The real-world set: excerpts of Whisper transcripts of sermons and, as
// a control, transcripts of NASA podcasts (sources and licences in
// testdata/realworld/README.md and NOTICE). Every change the engine makes
// on it was judged by hand once; judgments.tsv keeps the verdicts, and
// errors.tsv the real misspellings found by reading the excerpts.

// judgment is one hand verdict on a change.
type judgment struct {
	right bool
	note  string
}

// changeKey names a change of a real-world file.
func changeKey(file string, start int, orig, repl string) string {
	return file + "\t" + strconv.Itoa(start) + "\t" + orig + "\t" + repl
}

// readTable reads a TSV file with a header into rows of at least n fields.
func readTable(t *testing.T, name string, n int) [][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	s := bufio.NewScanner(f)
	for line := 1; s.Scan(); line++ {
		if line == 1 || strings.TrimSpace(s.Text()) == "" {
			continue
		}
		row := strings.Split(s.Text(), "\t")
		if len(row) < n {
			t.Fatalf("%s line %d: %d fields, want %d", name, line, len(row), n)
		}
		rows = append(rows, row)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestRealWorld(t *testing.T) {
	e := testEngine(t)
	dir := filepath.Join("testdata", "realworld")
	judged := map[string]judgment{}
	for _, row := range readTable(t, filepath.Join(dir, "judgments.tsv"), 6) {
		start, err := strconv.Atoi(row[1])
		if err != nil || (row[4] != "right" && row[4] != "wrong") {
			t.Fatalf("judgments.tsv: bad row %q", row)
		}
		judged[changeKey(row[0], start, row[2], row[3])] = judgment{right: row[4] == "right", note: row[5]}
	}
	type known struct{ found, applied bool }
	errs := map[string]*known{}
	for _, row := range readTable(t, filepath.Join(dir, "errors.tsv"), 4) {
		start, err := strconv.Atoi(row[1])
		if err != nil {
			t.Fatalf("errors.tsv: bad row %q", row)
		}
		errs[changeKey(row[0], start, row[2], row[3])] = &known{}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	var auto, autoRight, review, reviewRight, reviewWrong, unjudged, size, nFiles int
	for _, path := range files {
		if strings.HasSuffix(path, ".tsv") || strings.HasSuffix(path, "README.md") {
			continue
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		size += len(text)
		nFiles++
		file := filepath.Base(path)
		cs := e.Find(string(text), Options{})
		checkChanges(t, string(text), cs)
		for _, c := range cs {
			k := changeKey(file, c.Start, c.Original, c.Replacement)
			if ke := errs[k]; ke != nil {
				ke.found = true
				ke.applied = c.Status == StatusAutoApplied
			}
			j, ok := judged[k]
			if c.Status == StatusAutoApplied {
				auto++
				switch {
				case !ok:
					t.Errorf("%s: automatic change %q -> %q at %d (%s) is not judged: judge it in judgments.tsv", file, c.Original, c.Replacement, c.Start, c.Rule)
				case !j.right:
					t.Errorf("%s: wrong automatic change %q -> %q at %d (%s): %s", file, c.Original, c.Replacement, c.Start, c.Rule, j.note)
				default:
					autoRight++
				}
				continue
			}
			review++
			switch {
			case !ok:
				unjudged++
				t.Logf("%s: suggestion %q -> %q at %d (%s) is not judged yet", file, c.Original, c.Replacement, c.Start, c.Rule)
			case j.right:
				reviewRight++
			default:
				reviewWrong++
			}
		}
	}
	found, applied := 0, 0
	for k, ke := range errs {
		if ke.found {
			found++
		} else {
			t.Logf("known error not found: %s", strings.ReplaceAll(k, "\t", " "))
		}
		if ke.applied {
			applied++
		}
	}
	t.Logf("real-world set: %d bytes in %d files", size, nFiles)
	if auto > 0 {
		t.Logf("automatic precision %d/%d = %.1f%%", autoRight, auto, 100*float64(autoRight)/float64(auto))
	} else {
		t.Logf("automatic precision: no automatic change")
	}
	t.Logf("suggestions judged right %d/%d (wrong %d, not judged %d)", reviewRight, review, reviewWrong, unjudged)
	if len(errs) > 0 {
		t.Logf("recall on the known real errors: applied or suggested %d/%d = %.1f%%, applied %d",
			found, len(errs), 100*float64(found)/float64(len(errs)), applied)
	}
}
