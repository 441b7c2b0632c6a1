package formats

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// docxMain is the archive entry that holds a DOCX document's body.
const docxMain = "word/document.xml"

// extractDOCX takes the <w:t> text runs of word/document.xml. Runs of one
// paragraph (<w:p>) are joined without a separator, as Word splits words
// across runs freely; paragraphs and <w:br/>/<w:cr/> are separated by
// "\n" and <w:tab/> by " ". Character references are decoded. Headers,
// footers, footnotes, comments and deleted text (<w:delText>) are not
// text. Rewrite adds xml:space="preserve" to each <w:t> it changes, so that
// Word keeps leading and trailing spaces, and copies every other archive
// entry unchanged.
//
// The archive may hold at most lim.MaxEntries entries, and word/document.xml
// may inflate to at most lim.MaxDocxXML bytes: it is read through a limit,
// whatever size its header claims, so a zip bomb costs no more than that.
func extractDOCX(content []byte, lim Limits) (*View, error) {
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return nil, fmt.Errorf("formats: docx: %w", err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, tooLarge(DOCX, "the archive holds %d entries; the limit is %d", len(zr.File), lim.MaxEntries)
	}
	var f *zip.File
	for _, zf := range zr.File {
		if zf.Name == docxMain {
			f = zf
			break
		}
	}
	if f == nil {
		return nil, errors.New("formats: docx: no " + docxMain + " in the archive")
	}
	if f.UncompressedSize64 > uint64(lim.MaxDocxXML) {
		return nil, tooLarge(DOCX, "%s inflates to more than %d bytes", docxMain, lim.MaxDocxXML)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("formats: docx: %w", err)
	}
	xml, err := io.ReadAll(io.LimitReader(rc, int64(lim.MaxDocxXML)+1))
	rc.Close()
	if len(xml) > lim.MaxDocxXML {
		return nil, tooLarge(DOCX, "%s inflates to more than %d bytes", docxMain, lim.MaxDocxXML)
	}
	if err != nil {
		return nil, fmt.Errorf("formats: docx: %w", err)
	}
	b := newBuilder(xml, DOCX, lim)
	para := 0
	for i, tags := 0, 0; i < len(xml) && !b.full(); tags++ {
		if tags >= lim.MaxTokens {
			return nil, tooLarge(DOCX, "%s holds more than %d tags", docxMain, lim.MaxTokens)
		}
		lt := bytes.IndexByte(xml[i:], '<')
		if lt < 0 {
			break
		}
		lt += i
		rest := xml[lt:]
		var end []byte
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			end = []byte("-->")
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			end = []byte("]]>")
		case bytes.HasPrefix(rest, []byte("<?")):
			end = []byte("?>")
		}
		if end != nil {
			j := bytes.Index(rest, end)
			if j < 0 {
				return nil, errors.New("formats: docx: unterminated markup in " + docxMain)
			}
			i = lt + j + len(end)
			continue
		}
		gt := tagEnd(xml, lt)
		if gt < 0 {
			return nil, errors.New("formats: docx: unterminated tag in " + docxMain)
		}
		i = gt + 1
		tag := xml[lt+1 : gt]
		if len(tag) > 0 && tag[0] == '/' {
			continue
		}
		selfClosing := len(tag) > 0 && tag[len(tag)-1] == '/'
		name := tag
		if k := bytes.IndexAny(name, " \t\r\n/"); k >= 0 {
			name = name[:k]
		}
		switch string(name) {
		case "w:p":
			para++
			b.separate("\n")
		case "w:br", "w:cr":
			b.separate("\n")
		case "w:tab":
			b.separate(" ")
		case "w:t":
			if selfClosing {
				continue
			}
			j := bytes.IndexByte(xml[i:], '<')
			if j < 0 {
				return nil, errors.New("formats: docx: unterminated <w:t> in " + docxMain)
			}
			if k := b.add(i, i+j, encEntity); k >= 0 {
				r := &b.runs[k]
				r.para = max(para, 1)
				if !bytes.Contains(tag, []byte("xml:space")) {
					r.tag = gt
				}
			}
			i += j
		}
	}
	v, err := b.view()
	if err != nil {
		return nil, err
	}
	v.format = DOCX
	v.orig = content
	return v, nil
}

// tagEnd returns the offset of the '>' closing the tag that starts at lt,
// skipping quoted attribute values, or -1.
func tagEnd(b []byte, lt int) int {
	var quote byte
	for i := lt + 1; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i
		}
	}
	return -1
}

// rezip returns the archive orig with word/document.xml replaced by xml
// and every other entry copied unchanged (compressed data and headers).
func rezip(orig, xml []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(orig), int64(len(orig)))
	if err != nil {
		return nil, fmt.Errorf("formats: docx: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(len(orig) + len(xml)/4)
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if f.Name == docxMain {
			h := f.FileHeader
			//nolint:staticcheck // the deprecated 32-bit sizes are zeroed too, so that no stale size is written
			h.CRC32, h.CompressedSize, h.UncompressedSize, h.CompressedSize64, h.UncompressedSize64 = 0, 0, 0, 0, 0
			if h.Method != zip.Store {
				h.Method = zip.Deflate
			}
			w, err := zw.CreateHeader(&h)
			if err != nil {
				return nil, fmt.Errorf("formats: docx: %w", err)
			}
			if _, err := w.Write(xml); err != nil {
				return nil, fmt.Errorf("formats: docx: %w", err)
			}
			continue
		}
		r, err := f.OpenRaw()
		if err != nil {
			return nil, fmt.Errorf("formats: docx: %w", err)
		}
		h := f.FileHeader
		w, err := zw.CreateRaw(&h)
		if err != nil {
			return nil, fmt.Errorf("formats: docx: %w", err)
		}
		if _, err := io.Copy(w, r); err != nil {
			return nil, fmt.Errorf("formats: docx: %w", err)
		}
	}
	if err := zw.SetComment(zr.Comment); err != nil {
		return nil, fmt.Errorf("formats: docx: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("formats: docx: %w", err)
	}
	return buf.Bytes(), nil
}
