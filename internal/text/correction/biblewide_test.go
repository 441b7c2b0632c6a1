package correction

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// wideNearHeader heads data/words_near_bible_names.txt.
const wideNearHeader = "# Words of SCOWL's large lists (Debian wamerican-huge and wbritish-huge 2020.12.07, /usr/share/dict/american-english-huge and british-english-huge: English words, their inflections, given names, surnames and places of any case, and the first part of each contraction, \"couldn\" of \"couldn't\"), five to 20 letters a to z, that are no KJV name and that the rule of the names of the whole Bible would take for a KJV name heard wrong (see matcher.widePerson), or that the rule of the names said beside a name may (see matcher.companionCandidates): a word of the language or a modern name, not a misheard biblical one. Regenerate with TCS_WRITE_WIDE_NEAR=1 go test -run TestWordsNearBibleNamesAreCurrent; see NOTICE.\n"

// wideNearFiles are the large word lists data/words_near_bible_names.txt
// derives from.
var wideNearFiles = []string{"/usr/share/dict/american-english-huge", "/usr/share/dict/british-english-huge"}

// wordsNearBibleNames derives the list of data/words_near_bible_names.txt
// from the words of the large dictionary files.
func wordsNearBibleNames(e *Engine, lists []string) []string {
	d := *e.d
	d.wideNear = "" // the list derives itself from the other lists
	m := &matcher{d: &d}
	m.citedBooks = [2]uint64{^uint64(0), ^uint64(0)} // near a name of any book
	var out []string
	for _, list := range lists {
		for w := range strings.SplitSeq(list, "\n") {
			if stem, _, ok := strings.Cut(w, "'"); ok {
				w = stem // "couldn't", "Aaron's": the part a caption may keep
			}
			lw := strings.ToLower(w)
			if len(lw) < 5 || len(lw) > 20 || strings.ContainsFunc(lw, func(r rune) bool { return r < 'a' || r > 'z' }) {
				continue
			}
			if _, ok := d.kjvNames[lw]; ok {
				continue
			}
			if m.widePerson(lw) != "" || len(m.companionCandidates(lw)) > 0 {
				out = append(out, lw)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestWordsNearBibleNamesAreCurrent(t *testing.T) {
	var lists []string
	for _, f := range wideNearFiles {
		words, err := os.ReadFile(f)
		if err != nil {
			t.Skipf("no %s (Debian wamerican-huge, wbritish-huge) to derive the list from", f)
		}
		lists = append(lists, string(words))
	}
	e := testEngine(t)
	want := wideNearHeader + strings.Join(wordsNearBibleNames(e, lists), "\n") + "\n"
	if os.Getenv("TCS_WRITE_WIDE_NEAR") == "1" {
		if err := os.WriteFile("data/words_near_bible_names.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile("data/words_near_bible_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != want {
		t.Fatal("data/words_near_bible_names.txt is not what the dictionaries give; regenerate it (see its header)")
	}
}
