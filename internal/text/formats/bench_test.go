package formats

import (
	"bytes"
	"strings"
	"testing"
)

// benchInputs returns documents of about size bytes in every format.
func benchInputs(b *testing.B, size int) map[Format][]byte {
	repeat := func(head, unit, tail []byte) []byte {
		var buf bytes.Buffer
		buf.Write(head)
		for buf.Len() < size {
			buf.Write(unit)
		}
		buf.Write(tail)
		return buf.Bytes()
	}
	after := func(s []byte, sep string) []byte {
		_, rest, _ := bytes.Cut(s, []byte(sep))
		return rest
	}
	srt := readTestdata(b, "sermon.srt")
	yt := readTestdata(b, "youtube_auto.vtt")
	md := readTestdata(b, "sermon_notes.md")
	html := readTestdata(b, "sermon.html")
	seg := []byte(`{"id": 1, "seek": 0, "start": 3.2, "end": 6.8, "text": " corinthians thirteen. Paul wrote from ephesus \u2014 \"love never fails\".", "tokens": [50524, 1181, 13], "no_speech_prob": 0.02},`)
	var body strings.Builder
	for body.Len() < size {
		body.WriteString(`<w:p><w:r><w:t>Turn to first</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve"> corinthians &amp; ephesus</w:t></w:r></w:p>`)
	}
	return map[Format][]byte{
		TXT:      repeat(nil, srt, nil),
		SRT:      repeat(nil, append(srt, "\n\n"...), nil),
		VTT:      repeat([]byte("WEBVTT\n\n"), append(after(yt, "Language: en\n\n"), '\n'), nil),
		Markdown: repeat(nil, append(after(md, "---\n\n"), '\n'), nil),
		HTML:     repeat([]byte("<html><body>"), after(html, "<body>"), []byte("</body></html>")),
		JSON:     repeat([]byte(`{"segments": [`), seg, []byte(`{}]}`)),
		DOCX:     makeDOCX(b, body.String()),
	}
}

func BenchmarkExtract(b *testing.B) {
	inputs := benchInputs(b, 2<<20)
	for _, f := range []Format{TXT, SRT, VTT, Markdown, HTML, JSON, DOCX} {
		b.Run(string(f), func(b *testing.B) {
			in := inputs[f]
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Extract(in, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRewrite(b *testing.B) {
	inputs := benchInputs(b, 2<<20)
	for _, f := range []Format{TXT, SRT, VTT, Markdown, HTML, JSON, DOCX} {
		b.Run(string(f), func(b *testing.B) {
			in := inputs[f]
			v, err := Extract(in, f)
			if err != nil {
				b.Fatal(err)
			}
			edits := findNames(v.Text, sermonNames)
			if len(edits) == 0 {
				b.Fatalf("no edits in %s", f)
			}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Rewrite(edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
