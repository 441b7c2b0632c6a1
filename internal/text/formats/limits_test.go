package formats

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
)

// bombDOCX returns a DOCX archive whose word/document.xml, one paragraph of text n bytes
// long, is deflated; with lie set its header claims 1 KB.
func bombDOCX(t testing.TB, n int, lie bool) []byte {
	t.Helper()
	head := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`
	tail := `</w:t></w:r></w:p></w:body></w:document>`
	xml := []byte(head + strings.Repeat("Revelations ", n/12) + tail)
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	fw.Write(xml)
	fw.Close()
	h := &zip.FileHeader{Name: docxMain, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(xml),
		CompressedSize64: uint64(deflated.Len()), UncompressedSize64: uint64(len(xml))}
	if lie {
		h.UncompressedSize64 = 1000
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(deflated.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtractRefusesDocumentsBeyondTheLimits(t *testing.T) {
	manyEntries := make([]docxEntry, 0, 30)
	for i := range 30 {
		manyEntries = append(manyEntries, docxEntry{fmt.Sprintf("word/media/%d.txt", i), "x", zip.Store})
	}
	manyEntries = append(manyEntries, docxEntry{docxMain, "<w:p><w:r><w:t>a</w:t></w:r></w:p>", zip.Deflate})
	small := Limits{MaxText: 1000, MaxRuns: 50, MaxEscapes: 50, MaxTokens: 200, MaxMarkdownTokens: 100,
		MaxMarkdownLinkCost: 10_000, MaxDepth: 10, MaxDocxXML: 4000, MaxEntries: 20}
	for _, tc := range []struct {
		name    string
		content []byte
		format  Format
		reason  string
		lim     func(*Limits)
	}{
		{"a text longer than the limit", bytes.Repeat([]byte("a"), 1001), TXT, "extracted text is longer than 1000 bytes", nil},
		{"HTML whose references decode to more bytes than they take", bytes.Repeat([]byte("&nGt;"), 190), HTML, "extracted text is longer than 1000 bytes", func(l *Limits) { l.MaxEscapes = 1000 }},
		{"VTT whose references decode to more bytes than they take", []byte("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n" + strings.Repeat("&nGt;", 190) + "\n"), VTT, "extracted text is longer than 1000 bytes", func(l *Limits) { l.MaxEscapes = 1000 }},
		{"SRT of many short lines", []byte("1\n00:00:01,000 --> 00:00:02,000\n" + strings.Repeat("a\n", 60)), SRT, "more than 50 text runs", nil},
		{"VTT repeating its lines in copies", []byte("WEBVTT\n\n" + strings.Repeat("00:00:01.000 --> 00:00:02.000\nab\nab\n\n", 30)), VTT, "more than 50 text runs", nil},
		{"JSON of many strings", []byte("[" + strings.Repeat(`{"text":"a"},`, 60) + "1]"), JSON, "more than 50 text runs", nil},
		{"JSON of many escapes", []byte(`{"text":"` + strings.Repeat(`\n`, 60) + `"}`), JSON, "more than 50 character references or escapes", nil},
		{"JSON nested too deep", []byte(strings.Repeat("[", 12) + strings.Repeat("]", 12)), JSON, "nest deeper than 10 levels", nil},
		{"HTML of many tags", bytes.Repeat([]byte("<i>"), 201), HTML, "more than 200 tags and text nodes", nil},
		{"HTML of many references", bytes.Repeat([]byte("&amp;"), 51), HTML, "more than 50 character references", nil},
		{"markdown of many lines", bytes.Repeat([]byte("a\n"), 101), Markdown, "more than 100 lines and inline delimiters", nil},
		{"markdown nesting block quotes deep", bytes.Repeat([]byte("> "), 11), Markdown, "nest deeper than 10 levels", nil},
		{"markdown nesting lists deep", []byte(strings.Repeat("- ", 6) + strings.Repeat("1. ", 6) + "a"), Markdown, "nest deeper than 10 levels", nil},
		{"markdown of many links in one paragraph", bytes.Repeat([]byte("[a]("), 60), Markdown, "too many links for its length", func(l *Limits) { l.MaxMarkdownTokens = 1000 }},
		{"a DOCX zip bomb", bombDOCX(t, 100_000, false), DOCX, "word/document.xml inflates to more than 4000 bytes", nil},
		{"a DOCX zip bomb whose header lies", bombDOCX(t, 100_000, true), DOCX, "", nil},
		{"a DOCX of many entries", makeZip(t, manyEntries), DOCX, "31 entries; the limit is 20", nil},
		{"a DOCX of many tags", makeDOCX(t, strings.Repeat("<w:p/>", 201)), DOCX, "more than 200 tags", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim := small
			if tc.lim != nil {
				tc.lim(&lim)
			}
			v, err := ExtractWithin(tc.content, tc.format, lim)
			if err == nil {
				t.Fatalf("Extract succeeded with %d bytes of text", len(v.Text))
			}
			if tc.reason == "" {
				return // refused, as the archive is corrupt; it was read only up to its claim
			}
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("error %q, want ErrTooLarge saying %q", err, tc.reason)
			}
		})
	}
}

func TestExtractKeepsDocumentsWithinTheLimits(t *testing.T) {
	small := Limits{MaxText: 1000, MaxRuns: 50, MaxEscapes: 50, MaxTokens: 200, MaxMarkdownTokens: 100,
		MaxMarkdownLinkCost: 10_000, MaxDepth: 10, MaxDocxXML: 4000, MaxEntries: 20}
	for _, tc := range []struct {
		name    string
		content []byte
		format  Format
	}{
		{"a text as long as the limit", bytes.Repeat([]byte("a"), 1000), TXT},
		{"SRT of fifty lines", []byte("1\n00:00:01,000 --> 00:00:02,000\n" + strings.Repeat("a\n", 50)), SRT},
		{"JSON nested ten deep", []byte(strings.Repeat("[", 10) + strings.Repeat("]", 10)), JSON},
		{"markdown with a few links", []byte("see [a](b) and [c](d)\n\n> > quoted\n"), Markdown},
		{"a small DOCX", bombDOCX(t, 900, false), DOCX},
		{"a VTT cue of many lines repeated", []byte("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n" + strings.Repeat("l\n", 20) + "\n00:00:02.000 --> 00:00:03.000\n" + strings.Repeat("l\n", 20)), VTT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ExtractWithin(tc.content, tc.format, small); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The defaults of Extract are those of package limits: a 300 KB archive that inflates to
// 200 MB is refused after at most 5 MB were inflated.
func TestExtractRefusesAZipBombWithTheDefaults(t *testing.T) {
	bomb := bombDOCX(t, 200<<20, false)
	if len(bomb) > 400<<10 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	_, err := Extract(bomb, DOCX)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "inflates to more than 5000000 bytes") {
		t.Fatalf("Extract: %v", err)
	}
	_, err = Extract(bombDOCX(t, 200<<20, true), DOCX)
	if err == nil {
		t.Fatal("Extract of a bomb whose header lies succeeded")
	}
}
