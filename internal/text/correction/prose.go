package correction

import (
	"slices"
	"strings"
)

// The engine never changes or suggests a word that is not prose: a word
// inside a URL, an e-mail address or social handle, a file path or file
// name, or a code span (Markdown backticks, a fenced block, an HTML
// <code> or <pre> element written in plain text).

// codeState follows the fenced code blocks and the HTML code elements of
// a text as the matcher moves forward through it. Changes are recorded in
// text order, so each byte is read at most once.
type codeState struct {
	pos   int  // bytes before pos have been read
	fence bool // inside a ``` block
	tags  int  // open <code> and <pre> elements
	tick  int  // 1 + the offset of the latest single backtick read, or 0
}

// inCode reports whether byte offset p lies in a fenced block or an HTML
// code element; p must not be smaller than in an earlier call.
func (cs *codeState) inCode(text string, p int) bool {
	for cs.pos < p {
		rest := text[cs.pos:p]
		k := strings.IndexByte(rest, '`')
		if l := strings.IndexByte(rest, '<'); l >= 0 && (k < 0 || l < k) {
			k = l
		}
		if k < 0 {
			cs.pos = p
			break
		}
		at := cs.pos + k
		cs.pos = at + 1
		if text[at] == '`' {
			if strings.HasPrefix(text[at:], "```") {
				cs.fence = !cs.fence
				cs.pos = at + 3
			} else {
				cs.tick = at + 1
			}
			continue
		}
		switch tail := text[at+1:]; {
		case hasFoldPrefix(tail, "code") || hasFoldPrefix(tail, "pre"):
			if n := len("code"); hasFoldPrefix(tail, "pre") {
				n = len("pre")
				cs.tags += tagOpens(tail[n:])
			} else {
				cs.tags += tagOpens(tail[n:])
			}
		case hasFoldPrefix(tail, "/code") || hasFoldPrefix(tail, "/pre"):
			if cs.tags > 0 {
				cs.tags--
			}
		}
	}
	return cs.fence || cs.tags > 0
}

// tagOpens returns 1 if s, which follows "<code" or "<pre", ends the tag
// name there ("<code>", "<pre class=…>"), and 0 for a longer name.
func tagOpens(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '>', ' ', '\t', '\n', '\r', '/':
		return 1
	}
	return 0
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// inlineCode reports whether start..end, read by inCode, lies in an
// inline code span: only when a backtick was seen earlier on its line.
func (cs *codeState) inlineCode(text string, start, end int) bool {
	if cs.tick == 0 || strings.IndexByte(text[cs.tick-1:start], '\n') >= 0 {
		return false
	}
	return inBackticks(text, start, end)
}

// closingPunct reports whether c is one of , . ; ? ! " ' ): a bit test,
// since notProse runs on every change.
func closingPunct(c byte) bool {
	const set uint64 = 1<<',' | 1<<'.' | 1<<';' | 1<<'?' | 1<<'!' | 1<<'"' | 1<<'\'' | 1<<')'
	return c < 64 && set>>c&1 != 0
}

// notProse reports whether the bytes start..end of text belong to a URL,
// an e-mail address, a handle, a path or a file name.
func notProse(text string, start, end int) bool {
	if start == 0 || isSpaceByte(text[start-1]) {
		// A word after a space and before closing punctuation and a space,
		// the common case, is prose.
		e := end
		for e < len(text) && closingPunct(text[e]) {
			e++
		}
		if e == len(text) || isSpaceByte(text[e]) {
			return false
		}
	}
	a, b := start, end
	for a > 0 && start-a < 2048 && !isSpaceByte(text[a-1]) {
		a--
	}
	for b < len(text) && b-end < 2048 && !isSpaceByte(text[b]) {
		b++
	}
	chunk := text[a:b]
	special := false
	for k := 0; k < len(chunk) && !special; k++ {
		switch chunk[k] {
		case '/', '\\', '@', '.', ':', '~':
			special = true
		}
	}
	if !special {
		return false // a word with its punctuation: the common case
	}
	if strings.Contains(chunk, "://") || hasFoldPrefix(strings.TrimLeft(chunk, "(<[\"'"), "www.") {
		return true
	}
	if at := strings.IndexByte(chunk, '@'); at >= 0 && at+1 < len(chunk) && letterIndex(chunk[at+1]) > 0 {
		return true // john@acts.org, @capernaum
	}
	if slashes := strings.Count(chunk, "/") + strings.Count(chunk, "\\"); slashes > 0 {
		// "and/or" is prose; "/usr/share/genesis", "notes/acts.txt", "~/acts" are paths.
		if slashes >= 2 || strings.ContainsAny(chunk, ".~_") {
			return true
		}
	}
	return fileName(chunk)
}

// fileName reports whether chunk, less its closing punctuation, ends in a
// file extension or a domain: "genesis.txt", "capernaum.org".
func fileName(chunk string) bool {
	chunk = strings.TrimRight(chunk, ".,;:!?)]}\"'")
	dot := strings.LastIndexByte(chunk, '.')
	if dot <= 0 || dot == len(chunk)-1 {
		return false
	}
	if c := chunk[dot-1]; letterIndex(c) == 0 && (c < '0' || c > '9') {
		return false
	}
	switch strings.ToLower(chunk[dot+1:]) {
	case "txt", "md", "go", "py", "js", "ts", "json", "yaml", "yml", "toml", "html", "htm", "css",
		"pdf", "doc", "docx", "mp3", "mp4", "wav", "m4a", "srt", "vtt", "csv", "xml", "zip", "exe",
		"sh", "rs", "java", "rb", "php", "png", "jpg", "jpeg", "gif", "svg", "log", "cfg", "ini",
		"com", "org", "net", "io", "dev", "app", "edu", "gov", "church", "tv", "fm", "co", "uk", "be", "ly":
		return true
	}
	return false
}

// inBackticks reports whether start..end lies between two backticks of
// one line, as an inline code span does.
func inBackticks(text string, start, end int) bool {
	before := 0
	for p := start - 1; p >= 0 && start-p < 4096 && text[p] != '\n'; p-- {
		if text[p] == '`' {
			before++
		}
	}
	if before%2 == 0 {
		return false
	}
	for p := end; p < len(text) && p-end < 4096 && text[p] != '\n'; p++ {
		if text[p] == '`' {
			return true
		}
	}
	return false
}

// ProseGuard tells whether spans of one text are prose the engine may
// change, by the rules the engine itself follows. Other reviewers of the
// engine's changes (the AI pass's rules) use it to reject what the engine
// would not touch. Spans are best given in increasing order; a guard is
// not safe for concurrent use.
type ProseGuard struct {
	text string
	code codeState
}

// NewProseGuard returns a guard over text.
func NewProseGuard(text string) *ProseGuard {
	return &ProseGuard{text: text}
}

// NotProse returns what the span text[start:end] belongs to if it is not
// prose ("a URL", "an e-mail address", "a file path", "code"), or "".
func (g *ProseGuard) NotProse(start, end int) string {
	if start < 0 || end > len(g.text) || start > end {
		return ""
	}
	if start < g.code.pos {
		g.code = codeState{}
	}
	if g.code.inCode(g.text, start) || g.code.inlineCode(g.text, start, end) {
		return "code"
	}
	if !notProse(g.text, start, end) {
		return ""
	}
	a, b := start, end
	for a > 0 && !isSpaceByte(g.text[a-1]) {
		a--
	}
	for b < len(g.text) && !isSpaceByte(g.text[b]) {
		b++
	}
	switch chunk := g.text[a:b]; {
	case strings.Contains(chunk, "://") || strings.Contains(strings.ToLower(chunk), "www."):
		return "a URL"
	case strings.Contains(chunk, "@"):
		return "an e-mail address or handle"
	case strings.ContainsAny(chunk, "/\\"):
		return "a file path"
	}
	return "a file or domain name"
}

// IsBookAdjective reports whether the lowercase word w is a book form that
// is also an English adjective or demonym ("galatian", "roman"): the
// engine changes it only before a reference or after "the book of".
func IsBookAdjective(w string) bool {
	return slices.Contains(bookAdjectiveWords(), w)
}

// NotQualified reports whether the lowercase word w, after a book's
// adjective form, leaves it a book name rather than an adjective: a verb
// or function word that follows a book as often ("the letter to the
// Galatian says", "the book of Galatian about freedom"). Any other
// lowercase word of three letters or more may be the noun the adjective
// qualifies ("the Galatian believers").
func NotQualified(w string) bool {
	if len(w) < 3 {
		return true
	}
	switch w {
	case "says", "say", "tells", "teaches", "writes", "reads", "is", "are", "has", "have",
		"chapter", "verse", "also", "then", "but", "for", "that", "which", "where", "when",
		"about", "with", "from", "because", "before", "after", "again", "this", "there", "you",
		"they", "she", "not",
		// personAfter's words: "first john said".
		"said", "asked", "told", "went", "came", "replied", "answered", "who", "and", "was", "had":
		return true
	}
	return false
}

// IsCommonPlaceWord reports whether the lowercase word w is an ordinary
// word of multi-word place names ("holy", "city", "place"): the engine
// leaves a phrase alone when only such words would take a capital.
func IsCommonPlaceWord(w string) bool {
	return slices.Contains(commonPlaceWords(), w)
}
