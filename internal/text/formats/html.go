package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/html"
)

// extractHTML takes the text nodes of an HTML document, found with the
// golang.org/x/net/html tokenizer. Tags with their attributes, comments,
// the doctype and the contents of script, style and other raw-text
// elements (except title and textarea) and of code elements (code, pre,
// kbd, samp, var, tt) are not text. Character references
// are decoded in View.Text and kept byte-exact in the source unless an
// edit covers them. Text nodes that hold only white space are not runs:
// they separate the runs around them with " " (or "\n" when they hold a
// line break). Block-level tags and <br> separate runs with "\n"; inline
// tags (b, i, em, span, a, ...) do not separate them.
func extractHTML(src []byte, lim Limits) (*View, error) {
	b := newBuilder(src, HTML, lim)
	pos := skipBOM(src)
	z := html.NewTokenizer(bytes.NewReader(src[pos:]))
	raw := false // the next text token is the content of a raw-text element
	code := 0    // open code elements: their text is not prose
	for tokens := 0; !b.full(); tokens++ {
		if tokens >= lim.MaxTokens {
			b.fail(tooLarge(HTML, "the document holds more than %d tags and text nodes", lim.MaxTokens))
			break
		}
		tt := z.Next()
		if tt == html.ErrorToken {
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("formats: html: %w", err)
			}
			break
		}
		tok := z.Raw()
		s0 := pos
		pos += len(tok)
		if pos > len(src) || !bytes.Equal(src[s0:pos], tok) {
			return nil, fmt.Errorf("formats: html: tokenizer lost track of the input at offset %d", s0)
		}
		switch tt {
		case html.TextToken:
			if raw {
				b.separate("\n")
				continue
			}
			if code > 0 {
				b.separate(" ")
				continue
			}
			if isBlank(tok) {
				if bytes.IndexByte(tok, '\n') >= 0 {
					b.separate("\n")
				} else {
					b.separate(" ")
				}
				continue
			}
			b.add(s0, pos, encEntity)
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			raw = false
			if tt == html.StartTagToken && isRawText(name) {
				raw = true
			}
			if isBlockTag(name) {
				b.separate("\n")
			}
			if isCodeTag(name) {
				switch tt {
				case html.StartTagToken:
					code++
				case html.EndTagToken:
					code = max(code-1, 0)
				}
			}
		}
	}
	if b.full() {
		return b.view()
	}
	if pos != len(src) {
		return nil, fmt.Errorf("formats: html: tokenizer stopped at offset %d of %d", pos, len(src))
	}
	return b.view()
}

// isCodeTag reports whether element name holds code, keyboard input or
// program output, whose text is never corrected: "<code>capernaum</code>"
// names a library, not a town.
func isCodeTag(name []byte) bool {
	switch string(name) {
	case "code", "pre", "kbd", "samp", "var", "tt":
		return true
	}
	return false
}

// isRawText reports whether the tokenizer reads the content of element
// name as raw text that is not prose.
func isRawText(name []byte) bool {
	switch string(name) {
	case "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext":
		return true
	}
	return false
}

// isBlockTag reports whether element name breaks the line of text.
func isBlockTag(name []byte) bool {
	switch string(name) {
	case "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details",
		"dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
		"h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "li",
		"main", "nav", "ol", "option", "p", "pre", "script", "section", "style", "summary",
		"table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul", "textarea", "select":
		return true
	}
	return false
}
