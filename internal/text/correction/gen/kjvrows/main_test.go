package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheRowsOfNamesAreCurrent(t *testing.T) {
	if _, err := exec.LookPath("bible"); err != nil {
		t.Skip("the KJV text (Debian's bible-kjv) is not installed")
	}
	out := filepath.Join(t.TempDir(), "rows.txt")
	if err := run("", "../../data/kjv_people.tsv", out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../data/kjv_name_rows.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("data/kjv_name_rows.txt is not current: run go generate in internal/text/correction")
	}
}

func TestARowIsARunOfNamesJoinedByCommasAndOrOf(t *testing.T) {
	names := map[string]bool{"Shadrach": true, "Meshach": true, "Abednego": true, "Gedeon": true, "Barak": true, "Samson": true, "Jephthae": true, "David": true}
	tests := []struct {
		verse string
		want  int // lists found
		first string
	}{
		{"Then Nebuchadnezzar spake, saying, Blessed be the God of Shadrach, Meshach, and Abed-nego, who hath sent his angel", 1, "Shadrach Meshach Abednego"},
		{"for the time would fail me to tell of Gedeon, and of Barak, and of Samson, and of Jephthae; of David also", 1, "Gedeon Barak Samson Jephthae"},
		{"Shadrach and Meshach went, and Abed-nego stayed", 0, ""},
		{"David and Barak", 0, ""},
	}
	for _, tc := range tests {
		got := lists(tc.verse, names)
		if len(got) != tc.want {
			t.Errorf("lists(%q) = %q, want %d", tc.verse, got, tc.want)
			continue
		}
		if tc.want > 0 && strings.Join(got[0], " ") != tc.first {
			t.Errorf("lists(%q)[0] = %q, want %q", tc.verse, got[0], tc.first)
		}
	}
}
