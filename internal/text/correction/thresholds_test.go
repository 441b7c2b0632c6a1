package correction

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestThresholds(t *testing.T) {
	e := testEngine(t)
	// Confidences of the engine on these texts: "first corinthians" 0.98,
	// "revelations" 0.86 (both applied), "genesis" 0.55 (suggested).
	const text = "turn to first corinthians 13 4 and revelations 21, in genesis god"
	tests := []struct {
		name    string
		th      Thresholds
		content string
		changes []string
	}{
		{"the zero value keeps the engine's decisions", Thresholds{},
			"turn to 1 Corinthians 13 4 and Revelation 21, in genesis god",
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal auto", "revelations>Revelation book.misspelling auto", "genesis>Genesis book.lowercase review"}},
		{"bounds below the engine's change nothing", Thresholds{AutoApply: 0.5, Suggest: 0.5},
			"turn to 1 Corinthians 13 4 and Revelation 21, in genesis god",
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal auto", "revelations>Revelation book.misspelling auto", "genesis>Genesis book.lowercase review"}},
		{"an automatic change below auto_apply becomes a suggestion", Thresholds{AutoApply: 0.9},
			"turn to 1 Corinthians 13 4 and revelations 21, in genesis god",
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal auto", "revelations>Revelation book.misspelling review", "genesis>Genesis book.lowercase review"}},
		{"auto_apply of 1 applies nothing", Thresholds{AutoApply: 1},
			text,
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal review", "revelations>Revelation book.misspelling review", "genesis>Genesis book.lowercase review"}},
		{"suggest alone drops and demotes nothing else", Thresholds{Suggest: 0.6},
			"turn to 1 Corinthians 13 4 and Revelation 21, in genesis god",
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal auto", "revelations>Revelation book.misspelling auto"}},
		{"a change below suggest is dropped", Thresholds{AutoApply: 0.9, Suggest: 0.6},
			"turn to 1 Corinthians 13 4 and revelations 21, in genesis god",
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal auto", "revelations>Revelation book.misspelling review"}},
		{"an automatic change below suggest is dropped too", Thresholds{AutoApply: 0.9, Suggest: 0.9},
			"turn to 1 Corinthians 13 4 and revelations 21, in genesis god",
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal auto"}},
		{"a suggestion above auto_apply is not promoted", Thresholds{AutoApply: 0.5},
			"turn to 1 Corinthians 13 4 and Revelation 21, in genesis god",
			[]string{"first corinthians>1 Corinthians book.spoken_ordinal auto", "revelations>Revelation book.misspelling auto", "genesis>Genesis book.lowercase review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Correct(text, Options{Thresholds: tt.th})
			if r.Content != tt.content {
				t.Errorf("content\n got %q\nwant %q", r.Content, tt.content)
			}
			if got := compactAll(r.Changes); !reflect.DeepEqual(got, tt.changes) {
				t.Errorf("changes\n got %q\nwant %q", got, tt.changes)
			}
			checkIDs(t, r.Changes)
			if want := Summarize(r.Changes); !reflect.DeepEqual(r.Summary, want) {
				t.Errorf("summary %+v, want the final statuses counted: %+v", r.Summary, want)
			}
			if found := e.Find(text, Options{Thresholds: tt.th}); !reflect.DeepEqual(found, r.Changes) {
				t.Errorf("Find and Correct differ:\n%v\n%v", found, r.Changes)
			}
		})
	}
}

// checkIDs checks that the changes are numbered chg_0001 … in order.
func checkIDs(t *testing.T, cs []Change) {
	t.Helper()
	ids := newChangeIDs(len(cs))
	for i, c := range cs {
		if want := ids.next(); c.ID != want {
			t.Errorf("change %d has ID %q, want %q", i, c.ID, want)
		}
	}
}

// TestThresholdsBelowEngineAreTheEngine runs the real-world files and the
// benchmark's sermon with bounds that change nothing through the path
// that applies them: its result is the engine's own, field for field.
func TestThresholdsBelowEngineAreTheEngine(t *testing.T) {
	e := testEngine(t)
	files, err := filepath.Glob(filepath.Join("testdata", "realworld", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"sermon": buildSermon(256 << 10)}
	for _, path := range files {
		if strings.HasSuffix(path, ".tsv") || filepath.Base(path) == "README.md" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(path)] = string(b)
	}
	all := []string{CategoryBible, CategoryPlace, CategoryPerson}
	for name, text := range texts {
		for _, opts := range []Options{{}, {NormalizeReferences: true, Categories: all}} {
			want := e.Correct(text, opts)
			opts.Thresholds = Thresholds{AutoApply: autoThreshold, Suggest: 0}
			got := e.Correct(text, opts)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %+v: the result with bounds below the engine's differs", name, opts)
			}
		}
	}
}

func TestThresholdsValidate(t *testing.T) {
	tests := []struct {
		name  string
		th    Thresholds
		field string // "" for valid
		msg   string
	}{
		{"the zero value is valid", Thresholds{}, "", ""},
		{"equal bounds are valid", Thresholds{AutoApply: 0.7, Suggest: 0.7}, "", ""},
		{"both ends are valid", Thresholds{AutoApply: 1, Suggest: 0}, "", ""},
		{"suggest alone is valid", Thresholds{Suggest: 0.7}, "", ""},
		{"auto_apply alone is valid", Thresholds{AutoApply: 0.9}, "", ""},
		{"auto_apply above 1", Thresholds{AutoApply: 1.5}, "auto_apply", "auto_apply: must be a confidence from 0 to 1, got 1.5"},
		{"auto_apply below 0", Thresholds{AutoApply: -0.1}, "auto_apply", "auto_apply: must be a confidence from 0 to 1, got -0.1"},
		{"auto_apply not a number", Thresholds{AutoApply: math.NaN()}, "auto_apply", "auto_apply: must be a confidence from 0 to 1, got NaN"},
		{"suggest above 1", Thresholds{AutoApply: 1, Suggest: 2}, "suggest", "suggest: must be a confidence from 0 to 1, got 2"},
		{"suggest below 0", Thresholds{AutoApply: 0.5, Suggest: -1}, "suggest", "suggest: must be a confidence from 0 to 1, got -1"},
		{"suggest infinite", Thresholds{AutoApply: 0.5, Suggest: math.Inf(1)}, "suggest", "suggest: must be a confidence from 0 to 1, got +Inf"},
		{"suggest above auto_apply", Thresholds{AutoApply: 0.6, Suggest: 0.8}, "suggest", "suggest: must not be above auto_apply (0.8 > 0.6)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.th.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			}
			if fe.Field != tt.field || err.Error() != tt.msg {
				t.Errorf("Validate() = %q (field %q), want %q (field %q)", err, fe.Field, tt.msg, tt.field)
			}
		})
	}
}
