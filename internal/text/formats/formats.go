// Package formats splits transcript documents into their correctable text
// and maps edits of that text back onto the original bytes.
//
// Extract returns a View whose Text holds only the prose of a document:
// caption text without cue numbers or timings, markdown prose without code
// or link targets, HTML text nodes without markup, the transcript strings
// of a JSON document, the text runs of a DOCX file. Rewrite applies edits
// made in View.Text coordinates to the original document; every byte
// outside a changed span is left exactly as it was.
//
// # Runs and separators
//
// View.Text is the concatenation of text runs. A run is one contiguous
// piece of the source (after decoding escapes such as JSON \u sequences or
// HTML entities). Between two runs Extract puts a separator that is not in
// the source:
//
//   - "\n" between lines, caption cues, paragraphs and blocks;
//   - " " between runs that are apart in the source but rendered on the
//     same line (for instance text either side of a skipped code span, a
//     bare URL or a DOCX tab);
//   - nothing between runs that are only divided by inline markup which
//     renders without a break (HTML <b>, markdown emphasis, YouTube's
//     inline <c> timing tags, a DOCX run boundary, the segs of one json3
//     event), so that a word split by markup is still one word.
//
// Words of adjacent runs are thus only joined where the rendered document
// joins them too. Separators are never written back: an edit that
// replaces only a separator inserts its replacement at the end of the run
// before it.
//
// # Formats
//
// What counts as text, per format (a UTF-8 byte order mark is never text):
//
//   - TXT: all of the content, as one run.
//   - SRT: the text lines of each cue, that is the non-blank lines after a
//     timing line ("... --> ...") up to a blank line or to the next cue
//     number followed by a timing line; inline tags (<i>, <font ...>,
//     {\an8}) are not text. Cue numbers, timings and blank lines are never
//     touched; CRLF line ends are kept.
//   - VTT: cue payload lines. The header block, NOTE, STYLE and REGION
//     blocks, cue identifiers, timing lines with their settings and inline
//     tags (<c>, <v Name>, <00:00:01.000>) are not text; character
//     references (&amp;) are decoded, and lines holding only white space
//     are skipped. A payload line whose text equals a line of the previous
//     cue, as in YouTube's rolling automatic captions, appears once in
//     View.Text; Rewrite applies the line's changes to every copy.
//   - Markdown (CommonMark, parsed with goldmark): the text of paragraphs,
//     headings, list items, block quotes, emphasis and link text. Front
//     matter ("---" or "+++" blocks at the start), code spans, fenced and
//     indented code blocks, HTML blocks and inline HTML tags, autolinks,
//     link and image targets, image descriptions and bare URLs (words
//     starting "http://", "https://" or "www.") are not text. Backslash
//     escapes and entities are left as they are in View.Text.
//   - HTML: text nodes, found with golang.org/x/net/html's tokenizer,
//     with character references decoded. Tags, attributes, comments, the
//     doctype and the contents of script, style and the other raw-text
//     elements except title and textarea are not text. Block-level tags
//     and <br> separate runs with "\n"; inline tags do not separate them;
//     white-space-only text nodes separate with " " or "\n".
//   - JSON: the string values of members named "text", "transcript" or
//     "content" at any depth (so Whisper's top-level text and
//     segments[].text) and the "utf8" strings of "segs" array elements
//     (YouTube json3 events[].segs[].utf8); white-space-only strings are
//     skipped. Keys, other values (such as "title") and the syntax are
//     never touched. View.Text holds the decoded strings; Rewrite keeps
//     unchanged escapes byte-identical and writes replacements with the
//     escapes JSON needs ('"', '\\' and control characters), other
//     characters as UTF-8.
//   - DOCX: the <w:t> runs of word/document.xml, with character
//     references decoded. Runs of one paragraph are joined without a
//     separator (Word splits words across runs freely); paragraphs, <w:br/>
//     and <w:cr/> give "\n" and <w:tab/> gives " ". Headers, footers,
//     footnotes, comments and deleted text are not text. Rewrite adds
//     xml:space="preserve" to each <w:t> it changes and copies every other
//     archive entry unchanged.
//
// # Edits across runs
//
// An edit may cross one or more separators or markup boundaries, as when a
// name is split across two caption cues ("... the first" | "corinthians
// thirteen ..."). Rewrite then applies it as follows: the replacement takes
// the place of the edited part of the first run; runs wholly inside the
// edit become empty; the edited prefix of the last run is removed, and
// when a non-empty separator precedes the last run, the spaces and tabs
// that follow the removed prefix (in that run and in the runs joined to it
// without a separator) are removed too, so the line does not start with a
// stray blank. In the example the first cue ends "... the 1 Corinthians"
// and the second starts "thirteen ...". Markup, cue timings and every
// other byte between the runs are kept. An edit whose replacement equals
// the text it covers changes nothing.
package formats

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Format names a document format accepted by the service.
type Format string

// The supported formats. The values are the accepted source_format values.
const (
	TXT      Format = "txt"
	SRT      Format = "srt"
	VTT      Format = "vtt"
	Markdown Format = "markdown"
	HTML     Format = "html"
	JSON     Format = "json"
	DOCX     Format = "docx"
)

// ErrUnknownFormat is returned (wrapped) by Parse and Extract for a format
// name that is not supported.
var ErrUnknownFormat = errors.New("formats: unknown format")

// Parse validates a source_format value. It accepts the names of the
// Format constants and, ignoring case and surrounding white space, the
// aliases "text" (TXT), "webvtt" (VTT), "md" (Markdown) and "htm" (HTML).
// The empty string is not valid.
func Parse(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "txt", "text":
		return TXT, nil
	case "srt":
		return SRT, nil
	case "vtt", "webvtt":
		return VTT, nil
	case "markdown", "md":
		return Markdown, nil
	case "html", "htm":
		return HTML, nil
	case "json":
		return JSON, nil
	case "docx":
		return DOCX, nil
	}
	return "", fmt.Errorf("%w %q", ErrUnknownFormat, s)
}

// Sniff guesses the format of content whose source_format was not given.
// It never fails; content that matches no rule is TXT. The rules, in order,
// after skipping a UTF-8 byte order mark and leading white space:
//
//   - a zip archive (starting "PK\x03\x04") that holds word/document.xml
//     is DOCX; any other zip archive is TXT;
//   - content starting with "WEBVTT" is VTT;
//   - content starting with '{' or '[' that is valid JSON is JSON;
//   - content whose first line is a cue number and whose second line is an
//     SRT timing line ("00:00:01,000 --> 00:00:02,000"), or whose first line
//     is such a timing line, is SRT;
//   - content starting with "<!doctype html", "<html", "<head", "<body" or
//     a common block tag ("<p", "<div", "<h1" ... "<h6", "<article",
//     "<section", "<main", "<ul", "<ol", "<table", "<meta", "<title",
//     "<!--"), case-insensitively, is HTML;
//   - content starting with a front matter line "---" or "+++", or having,
//     within its first 64 KiB, a line starting with an ATX heading ("# " to
//     "###### "), a code fence ("```" or "~~~") or an inline link (link
//     text in square brackets directly followed by "("), is Markdown;
//   - everything else is TXT.
func Sniff(content []byte) Format {
	if bytes.HasPrefix(content, []byte("PK\x03\x04")) {
		if zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content))); err == nil {
			for _, f := range zr.File {
				if f.Name == docxMain {
					return DOCX
				}
			}
		}
		return TXT
	}
	c := bytes.TrimPrefix(content, bom)
	c = bytes.TrimLeft(c, " \t\r\n")
	if len(c) == 0 {
		return TXT
	}
	if bytes.HasPrefix(c, []byte("WEBVTT")) {
		return VTT
	}
	if (c[0] == '{' || c[0] == '[') && validJSON(c) {
		return JSON
	}
	if sniffSRT(c) {
		return SRT
	}
	if c[0] == '<' && sniffHTML(c) {
		return HTML
	}
	if sniffMarkdown(c) {
		return Markdown
	}
	return TXT
}

var bom = []byte("\ufeff")

func sniffSRT(c []byte) bool {
	l1, rest := cutLine(c)
	if isTiming(l1) {
		return true
	}
	if !allDigits(bytes.TrimSpace(l1)) {
		return false
	}
	l2, _ := cutLine(rest)
	return isTiming(l2)
}

// isTiming reports whether line looks like an SRT or VTT timing line.
func isTiming(line []byte) bool {
	i := bytes.Index(line, []byte("-->"))
	if i < 0 {
		return false
	}
	a := bytes.TrimSpace(line[:i])
	return len(a) >= 5 && a[0] >= '0' && a[0] <= '9' && bytes.IndexByte(a, ':') > 0
}

func sniffHTML(c []byte) bool {
	n := len(c)
	if n > 16 {
		n = 16
	}
	head := strings.ToLower(string(c[:n]))
	for _, p := range []string{"<!doctype html", "<html", "<head", "<body", "<!--"} {
		if strings.HasPrefix(head, p) {
			return true
		}
	}
	for _, t := range []string{"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "article", "section", "main", "ul", "ol", "table", "meta", "title"} {
		if strings.HasPrefix(head, "<"+t) && len(head) > len(t)+1 {
			switch head[len(t)+1] {
			case '>', ' ', '\t', '\n', '\r', '/':
				return true
			}
		}
	}
	return false
}

func sniffMarkdown(c []byte) bool {
	if bytes.HasPrefix(c, []byte("---")) || bytes.HasPrefix(c, []byte("+++")) {
		l, _ := cutLine(c)
		if s := string(bytes.TrimRight(l, " \t\r")); s == "---" || s == "+++" {
			return true
		}
	}
	if len(c) > 64<<10 {
		c = c[:64<<10]
	}
	for len(c) > 0 {
		var line []byte
		line, c = cutLine(c)
		line = bytes.TrimLeft(line, " ")
		if bytes.HasPrefix(line, []byte("```")) || bytes.HasPrefix(line, []byte("~~~")) {
			return true
		}
		if h := len(line) - len(bytes.TrimLeft(line, "#")); h >= 1 && h <= 6 && len(line) > h && line[h] == ' ' {
			return true
		}
		if i := bytes.Index(line, []byte("](")); i > 0 && bytes.LastIndexByte(line[:i], '[') >= 0 {
			return true
		}
	}
	return false
}

// cutLine returns the first line of b without its line terminator, and the
// rest of b after the terminator.
func cutLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line = b[:i]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, b[i+1:]
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Extract returns the correctable text of content in format f within the
// default Limits. The package documentation tells what each format counts
// as text and how runs are joined. Extract fails on malformed JSON, HTML
// the tokenizer cannot read and DOCX archives without word/document.xml,
// and on documents beyond the limits (the error then matches ErrTooLarge);
// it never fails otherwise for TXT, SRT, VTT and Markdown. Extract keeps
// its own copy of content.
func Extract(content []byte, f Format) (*View, error) {
	return ExtractWithin(content, f, Limits{})
}

// ExtractWithin is Extract within lim: a document whose text, runs, escapes,
// markup tokens, nesting or (DOCX) inflated size or entries go beyond lim
// fails with a *LimitError, and Extract stops reading it at that point.
func ExtractWithin(content []byte, f Format, lim Limits) (*View, error) {
	lim = lim.withDefaults()
	src := bytes.Clone(content)
	if src == nil {
		src = []byte{}
	}
	var (
		v   *View
		err error
	)
	switch f {
	case TXT:
		v, err = extractTXT(src, lim)
	case SRT:
		v, err = extractSRT(src, lim)
	case VTT:
		v, err = extractVTT(src, lim)
	case Markdown:
		v, err = extractMarkdown(src, lim)
	case HTML:
		v, err = extractHTML(src, lim)
	case JSON:
		v, err = extractJSON(src, lim)
	case DOCX:
		return extractDOCX(src, lim)
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownFormat, string(f))
	}
	if err != nil {
		return nil, err
	}
	v.format = f
	v.newlines = newlineIndex(src)
	return v, nil
}

func newlineIndex(src []byte) []int {
	nl := make([]int, 0, bytes.Count(src, []byte{'\n'}))
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return nl
		}
		nl = append(nl, i+j)
		i += j + 1
	}
}

// skipBOM returns the offset of the first byte after a UTF-8 byte order
// mark, or 0.
func skipBOM(src []byte) int {
	if bytes.HasPrefix(src, bom) {
		return len(bom)
	}
	return 0
}
