package formats

import (
	"archive/zip"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .golden files in testdata")

// name is a correction the tests make, standing in for the correction
// engine: the words of from, matched case-insensitively at word
// boundaries with any white space between them, become to.
type name struct {
	from []string
	to   string
}

var sermonNames = []name{
	{[]string{"first", "corinthians"}, "1 Corinthians"},
	{[]string{"jerry", "maya"}, "Jeremiah"},
	{[]string{"capernum"}, "Capernaum"},
	{[]string{"ephesus"}, "Ephesus"},
	{[]string{"corinth"}, "Corinth"},
}

func isWordByte(c byte) bool { return isAlnum(c) || c >= 0x80 }

// findNames returns the edits that apply names to text, sorted.
func findNames(text string, names []name) []Edit {
	var edits []Edit
	for i := 0; i < len(text); {
		if i > 0 && isWordByte(text[i-1]) || !isWordByte(text[i]) {
			i++
			continue
		}
		matched := false
		for _, n := range names {
			j := i
			ok := true
			for w, word := range n.from {
				if w > 0 {
					k := j
					for k < len(text) && isSpace(text[k]) {
						k++
					}
					if k == j {
						ok = false
						break
					}
					j = k
				}
				if j+len(word) > len(text) || !strings.EqualFold(text[j:j+len(word)], word) {
					ok = false
					break
				}
				j += len(word)
			}
			if !ok || j < len(text) && isWordByte(text[j]) {
				continue
			}
			if text[i:j] != n.to {
				edits = append(edits, Edit{i, j, n.to})
			}
			i, matched = j, true
			break
		}
		if !matched {
			for i < len(text) && isWordByte(text[i]) {
				i++
			}
		}
	}
	return edits
}

// editAt returns an edit replacing the nth (0-based) occurrence of old in
// v.Text.
func editAt(t *testing.T, v *View, old string, nth int, repl string) Edit {
	t.Helper()
	off := 0
	for k := 0; ; k++ {
		i := strings.Index(v.Text[off:], old)
		if i < 0 {
			t.Fatalf("%q (occurrence %d) not in text %q", old, nth, v.Text)
		}
		if k == nth {
			return Edit{off + i, off + i + len(old), repl}
		}
		off += i + len(old)
	}
}

func readTestdata(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustExtract(t testing.TB, content []byte, f Format) *View {
	t.Helper()
	v, err := Extract(content, f)
	if err != nil {
		t.Fatalf("Extract(%s): %v", f, err)
	}
	return v
}

func mustRewrite(t testing.TB, v *View, edits []Edit) []byte {
	t.Helper()
	out, err := v.Rewrite(edits)
	if err != nil {
		t.Fatalf("Rewrite: %v", err)
	}
	return out
}

// crlfBOM returns b with "\r\n" line endings and a UTF-8 byte order mark.
func crlfBOM(b []byte) []byte {
	return append([]byte("\ufeff"), bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))...)
}

// docxEntry is one file of a test DOCX archive.
type docxEntry struct {
	name, body string
	method     uint16
}

// makeDOCX builds a minimal DOCX archive whose word/document.xml has the
// given body inside <w:body>.
func makeDOCX(t testing.TB, body string) []byte {
	t.Helper()
	return makeZip(t, []docxEntry{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`, zip.Deflate},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`, zip.Deflate},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body + `<w:sectPr/></w:body></w:document>`, zip.Deflate},
		{"word/media/note.txt", "first corinthians, stored uncompressed", zip.Store},
	})
}

func makeZip(t testing.TB, entries []docxEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipEntries returns the names, contents and raw compressed bytes of the
// entries of a zip archive.
func zipEntries(t testing.TB, b []byte) (names []string, content, raw map[string][]byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip archive: %v", err)
	}
	content, raw = map[string][]byte{}, map[string][]byte{}
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if _, err := c.ReadFrom(rc); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		rc.Close()
		content[f.Name] = c.Bytes()
		rr, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		var r bytes.Buffer
		if _, err := r.ReadFrom(rr); err != nil {
			t.Fatal(err)
		}
		raw[f.Name] = r.Bytes()
	}
	return names, content, raw
}
