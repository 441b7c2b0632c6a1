package glossary

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

func TestCellsASpreadsheetWouldReadAsFormulasAreEscapedAndReadBack(t *testing.T) {
	for _, tc := range []struct {
		cell, written string
	}{
		{"Zorbanath", "Zorbanath"},
		{"=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		{"+1 555", "'+1 555"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tZorbanath", "'\tZorbanath"},
		{"\rZorbanath", "'\rZorbanath"},
		{"'Tis So Sweet", "'Tis So Sweet"},
		{"'=x", "''=x"},
		{"''Tis", "'''Tis"},
		{"'", "'"},
		{"", ""},
		{"a=b", "a=b"},
	} {
		got := escapeCell(tc.cell)
		if got != tc.written {
			t.Errorf("escapeCell(%q) = %q, want %q", tc.cell, got, tc.written)
		}
		if got != "" && strings.IndexByte(formulaStarts, got[0]) >= 0 {
			t.Errorf("escapeCell(%q) = %q begins a formula", tc.cell, got)
		}
		if back := unescapeCell(got); back != tc.cell {
			t.Errorf("unescapeCell(%q) = %q, want %q", got, back, tc.cell)
		}
	}
}

func TestReadCSVReadsWhatWriteCSVWrote(t *testing.T) {
	entries := []tcsv1.GlossaryEntry{
		{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo", "=oconquo"}, SoundsLike: true, Auto: true, Category: "name"},
		{Term: "@Bethel, \"the\" Tabernacle", Forms: []string{"beth el\ntabernacle"}},
		{Term: "'Tis So Sweet", Category: "hymn"},
		{Term: "-Zorbanath", Auto: true},
	}
	var b strings.Builder
	if err := WriteCSV(&b, entries); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("ReadCSV of\n%s: %v", b.String(), err)
	}
	want := make([]Input, len(entries))
	for i, e := range entries {
		want[i] = InputOf(e)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadCSV(WriteCSV(e)) = %+v, want %+v", got, want)
	}
}

func TestReadCSVReadsWhatPeopleWrite(t *testing.T) {
	got, err := ReadCSV(strings.NewReader("\ufeffTerm, Forms ,SOUNDS_LIKE,auto,category\r\nPastor Okonkwo,pastor okonquo|pastor oconquo,Yes,1,name\r\n\r\nBethel,,no,FALSE,\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Input{
		{Term: "Pastor Okonkwo", Forms: []string{"pastor okonquo", "pastor oconquo"}, SoundsLike: true, Auto: true, Category: "name"},
		{Term: "Bethel"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadCSV = %+v, want %+v", got, want)
	}
}

func TestReadCSVNamesTheLineAndColumnOfWhatItRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		csv  string
		want CSVError // Message is a part of the message
	}{
		{"an empty file", "", CSVError{Line: 1, Message: "the file is empty"}},
		{"another header", "term,forms,auto,sounds_like,category\n", CSVError{Line: 1, Column: 3, Message: `the header is "auto", want "sounds_like"`}},
		{"a short header", "term,forms\n", CSVError{Line: 1, Column: 1, Message: "wrong number of cells"}},
		{"a line of too few cells", CSVHeader + "\nZorbanath,,true\n", CSVError{Line: 2, Column: 1, Message: "wrong number of cells"}},
		{"a line of too many cells", CSVHeader + "\nZorbanath,,,,,x\n", CSVError{Line: 2, Column: 1, Message: "wrong number of cells"}},
		{"a bad boolean", CSVHeader + "\nZorbanath,,,maybe,\n", CSVError{Line: 2, Column: 4, Name: "auto", Message: `"maybe" is not true or false`}},
		{"a bare quote", CSVHeader + "\nZor\"banath,,,,\n", CSVError{Line: 2, Column: 4, Message: "bare \" in non-quoted-field"}},
		{"a quote left open", CSVHeader + "\n\"Zorbanath,,,,\n", CSVError{Line: 2, Column: 16, Message: "extraneous or missing \""}},
		{"too many entries", CSVHeader + "\n" + strings.Repeat("Zorbanath,,,,\n", tcsv1.MaxGlossaryEntries+1),
			CSVError{Line: tcsv1.MaxGlossaryEntries + 2, Message: "at most 1000 entries"}},
		{"a file too large", CSVHeader + "\n" + strings.Repeat("x", MaxCSVBytes), CSVError{Line: 1, Message: "larger than 1048576 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.csv))
			var ce *CSVError
			if !errors.As(err, &ce) || ce.Line != tc.want.Line || ce.Column != tc.want.Column || ce.Name != tc.want.Name ||
				!strings.Contains(ce.Message, tc.want.Message) {
				t.Fatalf("ReadCSV = %#v (%v), want line %d, column %d (%s) mentioning %q", ce, err, tc.want.Line, tc.want.Column, tc.want.Name, tc.want.Message)
			}
		})
	}
}
