package correction

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// modernNamesHeader heads data/modern_names_near_people.txt.
const modernNamesHeader = "# Given names and surnames of SCOWL (Debian wamerican 2020.12.07, /usr/share/dict/american-english: its capitalised words of letters only, five to 20 letters) that are no KJV name and that the rules of the people of the cited chapters and of the quoted verses would take for a KJV person heard wrong (the same phonetic key, within half the name's letters; see chapterPerson): a modern name said in a sermon (\"ernan and stephanie\"), not a misheard biblical one. Regenerate with TCS_WRITE_MODERN_NAMES=1 go test -run TestModernNamesNearPeopleAreCurrent; see NOTICE.\n"

// modernNamesNearPeople derives the list of data/modern_names_near_people.txt
// from the words of a dictionary file.
func modernNamesNearPeople(e *Engine, dictWords string) []string {
	d := *e.d
	d.modernNames = nil // the list derives itself from the other lists
	m := &matcher{d: &d}
	var people []soundedName
	seen := map[string]bool{}
	for _, ps := range slices.Concat(d.chapterPeople, d.chapterFrequent) {
		for _, p := range ps {
			if !seen[p.lower] {
				seen[p.lower] = true
				people = append(people, p)
			}
		}
	}
	var out []string
	for w := range strings.SplitSeq(dictWords, "\n") {
		if len(w) < 5 || len(w) > 20 || w[0] < 'A' || w[0] > 'Z' || strings.ToLower(w[:1])+w[1:] != strings.ToLower(w) {
			continue
		}
		lw := strings.ToLower(w)
		if strings.ContainsFunc(lw, func(r rune) bool { return r < 'a' || r > 'z' }) {
			continue
		}
		if _, ok := d.kjvNames[lw]; ok {
			continue
		}
		var lb, kb [32]byte
		_, key, ok := m.heardName(w, &lb, &kb)
		if !ok {
			continue
		}
		for _, p := range people {
			if p.key == string(key) && !szOnly([]byte(lw), p.lower) {
				if half := len(p.lower) / 2; editDistance([]byte(lw), p.lower, half) <= half {
					out = append(out, lw)
					break
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestModernNamesNearPeopleAreCurrent(t *testing.T) {
	words, err := os.ReadFile("/usr/share/dict/american-english")
	if err != nil {
		t.Skip("no /usr/share/dict/american-english (Debian wamerican) to derive the list from")
	}
	e := testEngine(t)
	want := modernNamesHeader + strings.Join(modernNamesNearPeople(e, string(words)), "\n") + "\n"
	if os.Getenv("TCS_WRITE_MODERN_NAMES") == "1" {
		if err := os.WriteFile("data/modern_names_near_people.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile("data/modern_names_near_people.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != want {
		t.Fatal("data/modern_names_near_people.txt is not what the dictionary gives; regenerate it (see its header)")
	}
}
