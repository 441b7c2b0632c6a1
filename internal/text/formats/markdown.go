package formats

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// extractMarkdown takes the prose of a CommonMark document, parsed with
// goldmark: the text of paragraphs, headings, list items, block quotes,
// emphasis and link text. Not text: front matter (a first line "---" or
// "+++" up to the matching closing line), fenced and indented code blocks,
// code spans, HTML blocks and inline HTML, autolinks, link and image
// targets, image descriptions, and bare URLs (words starting with
// "http://", "https://" or "www."). Backslash escapes and entities stay as
// they are in View.Text. Runs are separated by "\n" where the source has a
// line break between them, by " " where skipped content (a code span, a
// URL) lies between them on one line, and by nothing where only emphasis
// or link markup does.
func extractMarkdown(src []byte, lim Limits) (*View, error) {
	b := newBuilder(src, Markdown, lim)
	off := skipBOM(src)
	off = skipFrontMatter(src, off)
	body := src[off:]
	if err := markdownCost(body, lim); err != nil {
		return nil, err
	}
	doc := goldmark.DefaultParser().Parse(text.NewReader(body))
	var (
		lastBlock ast.Node
		skipped   bool
		lastEnd   = off
	)
	addText := func(s0, s1 int, block ast.Node) {
		if s0 >= s1 || s0 < lastEnd || s1 > len(src) {
			return
		}
		if bytes.IndexByte(src[lastEnd:s0], '\n') >= 0 {
			b.separate("\n")
		} else if skipped || block != lastBlock {
			b.separate(" ")
		}
		skipped = false
		lastBlock = block
		splitURLs(src, s0, s1, func(x, y int, url bool) {
			if url {
				b.separate(" ")
				return
			}
			b.add(x, y, encRaw)
		})
		lastEnd = s1
	}
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan, ast.KindCodeBlock, ast.KindFencedCodeBlock, ast.KindHTMLBlock,
			ast.KindRawHTML, ast.KindAutoLink, ast.KindImage, ast.KindString:
			skipped = true
			return ast.WalkSkipChildren, nil
		case ast.KindText:
			t := n.(*ast.Text)
			block := n.Parent()
			for block != nil && block.Type() != ast.TypeBlock {
				block = block.Parent()
			}
			addText(off+t.Segment.Start, off+t.Segment.Stop, block)
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, err
	}
	return b.view()
}

// markdownCost checks, before goldmark parses body, that its parse is bounded: its lines
// and inline delimiters (each may become a node of the parse tree) are at most
// lim.MaxMarkdownTokens, no line opens more than lim.MaxDepth containers (block quotes
// and list items), whose parse takes time quadratic in their depth, and the link
// openings of each paragraph times its size, summed, are at most lim.MaxMarkdownLinkCost
// (each opening may have the parser scan the rest of its paragraph).
func markdownCost(body []byte, lim Limits) error {
	tokens := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\n', '*', '_', '`', '[', ']', '<', '!':
			tokens++
		}
	}
	if tokens > lim.MaxMarkdownTokens {
		return tooLarge(Markdown, "the document holds more than %d lines and inline delimiters", lim.MaxMarkdownTokens)
	}
	// cost sums, per paragraph (lines up to a blank one), its link openings times its size.
	cost, links, para := 0, 0, 0
	for rest := body; len(rest) > 0; {
		var l []byte
		l, rest = cutLine(rest)
		if d := containerDepth(l, lim.MaxDepth+1); d > lim.MaxDepth {
			return tooLarge(Markdown, "block quotes and lists nest deeper than %d levels", lim.MaxDepth)
		}
		if isBlank(l) {
			cost, links, para = cost+links*para, 0, 0
			continue
		}
		links += bytes.Count(l, []byte("](")) + bytes.Count(l, []byte("]:"))
		para += len(l) + 1
		if cost+links*para > lim.MaxMarkdownLinkCost {
			return tooLarge(Markdown, "a paragraph holds too many links for its length (%d link openings in %d bytes)", links, para)
		}
	}
	return nil
}

// containerDepth counts the block quote and list item markers that open line, up to limit.
func containerDepth(l []byte, limit int) int {
	depth, i := 0, 0
	for depth < limit {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		if i >= len(l) {
			break
		}
		switch c := l[i]; {
		case c == '>':
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(l) && (l[i+1] == ' ' || l[i+1] == '\t'):
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(l) && j-i < 10 && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j+1 >= len(l) || (l[j] != '.' && l[j] != ')') || (l[j+1] != ' ' && l[j+1] != '\t') {
				return depth
			}
			i = j + 1
		default:
			return depth
		}
		depth++
	}
	return depth
}

// skipFrontMatter returns the offset after a front matter block that
// starts at off, or off.
func skipFrontMatter(src []byte, off int) int {
	first, rest := cutLine(src[off:])
	delim := string(bytes.TrimRight(first, " \t"))
	if delim != "---" && delim != "+++" {
		return off
	}
	for len(rest) > 0 {
		var l []byte
		l, rest = cutLine(rest)
		s := string(bytes.TrimRight(l, " \t"))
		if s == delim || delim == "---" && s == "..." {
			return len(src) - len(rest)
		}
	}
	return off
}

// splitURLs calls fn for the pieces of src[s0:s1], telling which are bare
// URLs. A URL starts a word with "http://", "https://" or "www." and runs
// to the next white space or '<'; trailing punctuation is not part of it.
func splitURLs(src []byte, s0, s1 int, fn func(a, b int, url bool)) {
	last := s0
	for i := s0; i < s1; i++ {
		c := src[i]
		if c != 'h' && c != 'w' && c != 'H' && c != 'W' {
			continue
		}
		if i > s0 && !isSpace(src[i-1]) && src[i-1] != '(' && src[i-1] != '"' {
			continue
		}
		rest := src[i:s1]
		if !hasPrefixFold(rest, "http://") && !hasPrefixFold(rest, "https://") && !hasPrefixFold(rest, "www.") {
			continue
		}
		j := i
		for j < s1 && !isSpace(src[j]) && src[j] != '<' {
			j++
		}
		for j > i && strings.IndexByte(".,;:!?)\"'", src[j-1]) >= 0 {
			j--
		}
		fn(last, i, false)
		fn(i, j, true)
		last = j
		i = j - 1
	}
	fn(last, s1, false)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func hasPrefixFold(b []byte, p string) bool {
	return len(b) >= len(p) && bytes.EqualFold(b[:len(p)], []byte(p))
}
