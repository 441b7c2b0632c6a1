package correction

import (
	"fmt"
	"strings"
	"testing"
)

// The synthetic ASR set plants misspellings of books and places, made by
// the edits a speech recognizer makes (a vowel heard as another, a
// consonant heard as its sound-alike, a letter dropped), into sentences
// taken from the real transcripts of testdata/realworld. None of the
// misspellings is looked up in a list: the engine has to find them by
// context. It reports the share applied or suggested, and fails on an
// automatic change the planting does not explain.

// asrBookFrames are real sentences with %s for a book name.
var asrBookFrames = []string{
	"Let's go to the word, go back to %s chapter 5, we are taking time to remind you.",
	"So I want to focus on this, but we're in the book of %s right now.",
	"And so let's go to %s chapter five, we're going to read from verse one to five.",
	"Here is how %s 10, 14 puts it, for by one offering he has perfected those who are sanctified.",
	"All right, go to %s chapter two and the verses that we're going to focus on are verse 10 and verse 11.",
	"Media, if you can help me, %s 21, 15 to 22.",
	"because scripture says in the book of %s, I think it's chapter 23 for seven",
	"i'm going to start with a reading from the book of %s chapter 3 and verses 12 to 14",
}

// asrPlaceFrames are real sentences with %s for a place name.
var asrPlaceFrames = []string{
	"I think it was in %s, at the church there, when a lady was sharing how she had done something.",
	"Then the word of the Lord came to him, saying, get away from here and go to %s.",
	"they walked from jerusalem, bethany and %s to the lake",
}

// asrBooks are the books of five letters or more; "first" is put before
// the numbered ones.
var asrBooks = []struct{ spoken, want string }{
	{"genesis", "Genesis"}, {"exodus", "Exodus"}, {"leviticus", "Leviticus"}, {"numbers", "Numbers"},
	{"deuteronomy", "Deuteronomy"}, {"joshua", "Joshua"}, {"judges", "Judges"},
	{"first samuel", "1 Samuel"}, {"first kings", "1 Kings"}, {"first chronicles", "1 Chronicles"},
	{"nehemiah", "Nehemiah"}, {"esther", "Esther"}, {"proverbs", "Proverbs"},
	{"ecclesiastes", "Ecclesiastes"}, {"isaiah", "Isaiah"}, {"jeremiah", "Jeremiah"},
	{"lamentations", "Lamentations"}, {"ezekiel", "Ezekiel"}, {"daniel", "Daniel"}, {"hosea", "Hosea"},
	{"obadiah", "Obadiah"}, {"jonah", "Jonah"}, {"micah", "Micah"}, {"nahum", "Nahum"},
	{"habakkuk", "Habakkuk"}, {"zephaniah", "Zephaniah"}, {"haggai", "Haggai"},
	{"zechariah", "Zechariah"}, {"malachi", "Malachi"}, {"matthew", "Matthew"}, {"romans", "Romans"},
	{"first corinthians", "1 Corinthians"}, {"galatians", "Galatians"}, {"ephesians", "Ephesians"},
	{"philippians", "Philippians"}, {"colossians", "Colossians"},
	{"first thessalonians", "1 Thessalonians"}, {"first timothy", "1 Timothy"}, {"titus", "Titus"},
	{"philemon", "Philemon"}, {"hebrews", "Hebrews"}, {"james", "James"}, {"first peter", "1 Peter"},
	{"revelation", "Revelation"},
}

// asrPlaces are well-known places of six letters or more.
var asrPlaces = []string{
	"Jerusalem", "Bethlehem", "Nazareth", "Capernaum", "Galilee", "Jericho", "Samaria",
	"Gethsemane", "Babylon", "Damascus", "Antioch", "Corinth", "Ephesus", "Philippi",
	"Thessalonica", "Hebron", "Beersheba", "Gilgal", "Shechem", "Shiloh", "Caesarea", "Emmaus",
	"Golgotha", "Nineveh", "Macedonia", "Bethsaida", "Jezreel", "Gibeah", "Lebanon", "Mizpah",
}

// asrEdits returns up to three misspellings of the lowercase word w, each
// made by one kind of recognition error.
func asrEdits(w string) []string {
	var out []string
	add := func(s string) {
		if s != w && len(s) >= 5 && !strings.Contains(strings.Join(out, " "), s) {
			out = append(out, s)
		}
	}
	// A vowel heard as another (not the first letter).
	swap := map[byte]byte{'a': 'e', 'e': 'i', 'i': 'e', 'o': 'u', 'u': 'o', 'y': 'i'}
	for k := len(w) / 2; k < len(w); k++ {
		if r, ok := swap[w[k]]; ok {
			add(w[:k] + string(r) + w[k+1:])
			break
		}
	}
	// A consonant heard as its sound-alike.
	for _, p := range [][2]string{{"ph", "f"}, {"th", "t"}, {"ck", "k"}, {"kk", "k"}, {"c", "k"}, {"k", "c"},
		{"ss", "s"}, {"s", "z"}, {"z", "s"}, {"ch", "k"}, {"x", "ks"}, {"v", "f"}, {"j", "g"}} {
		if k := strings.Index(w[1:], p[0]); k >= 0 {
			add(w[:k+1] + p[1] + w[k+1+len(p[0]):])
			break
		}
	}
	// A letter dropped: a doubled one, else an unstressed vowel near the end.
	dropped := false
	for k := 1; k < len(w); k++ {
		if w[k] == w[k-1] {
			add(w[:k] + w[k+1:])
			dropped = true
			break
		}
	}
	if !dropped {
		for k := len(w) - 2; k > 1; k-- {
			if strings.IndexByte("aeiou", w[k]) >= 0 {
				add(w[:k] + w[k+1:])
				break
			}
		}
	}
	return out
}

// plant returns frame with the name in it, the name capitalised when the
// frame is, and the byte offset of the name.
func plant(frame, name string) (string, int) {
	at := strings.Index(frame, "%s")
	if frame[0] >= 'A' && frame[0] <= 'Z' {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return frame[:at] + name + frame[at+2:], at
}

func TestSyntheticASR(t *testing.T) {
	e := testEngine(t)
	type tally struct{ planted, applied, suggested int }
	var books, places tally
	var missed []string
	try := func(tl *tally, frame, clean, spoken, want string) {
		if w := strings.Fields(spoken); e.d.root[w[len(w)-1]] != nil {
			return // a spelling the dictionary knows, not a misspelling
		}
		sentence, at := plant(frame, spoken)
		base, _ := plant(frame, clean)
		baseChanges := map[string]bool{}
		for _, c := range e.Find(base, Options{}) {
			baseChanges[c.Original+">"+c.Replacement] = true
		}
		tl.planted++
		hit := false
		for _, c := range e.Find(sentence, Options{}) {
			if c.Start <= at && at < c.End && c.Replacement == want {
				hit = true
				if c.Status == StatusAutoApplied {
					tl.applied++
				} else {
					tl.suggested++
				}
				continue
			}
			if c.Status == StatusAutoApplied && !baseChanges[c.Original+">"+c.Replacement] {
				t.Errorf("%q: automatic change %q -> %q (%s) is not the planted error", sentence, c.Original, c.Replacement, c.Rule)
			}
		}
		if !hit {
			missed = append(missed, fmt.Sprintf("%q (want %s)", sentence, want))
		}
	}
	for _, b := range asrBooks {
		words := strings.Fields(b.spoken)
		last := words[len(words)-1]
		for _, bad := range asrEdits(last) {
			spoken := strings.Join(append(words[:len(words)-1:len(words)-1], bad), " ")
			for _, f := range asrBookFrames {
				want := b.want
				if want == "Psalms" {
					want = "Psalm"
				}
				try(&books, f, b.spoken, spoken, want)
			}
		}
	}
	for _, p := range asrPlaces {
		for _, bad := range asrEdits(strings.ToLower(p)) {
			for _, f := range asrPlaceFrames {
				try(&places, f, strings.ToLower(p), bad, p)
			}
		}
	}
	for _, m := range missed {
		t.Logf("missed %s", m)
	}
	report := func(what string, tl tally) float64 {
		r := float64(tl.applied+tl.suggested) / float64(tl.planted)
		t.Logf("%s: %d planted, %d applied, %d suggested: recall %.1f%%", what, tl.planted, tl.applied, tl.suggested, 100*r)
		return r
	}
	rb, rp := report("books", books), report("places", places)
	all := tally{books.planted + places.planted, books.applied + places.applied, books.suggested + places.suggested}
	if r := report("all", all); r < 0.95 || rb < 0.9 || rp < 0.9 {
		t.Errorf("synthetic recall %.1f%% (books %.1f%%, places %.1f%%), want at least 95%%", 100*r, 100*rb, 100*rp)
	}
}
