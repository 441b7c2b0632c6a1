package correction

import "strings"

// sermonSample is how much of a text sermon reads: the evidence of its
// first 64 KB (some 12,000 words, most of a sermon) stands for the whole
// of a longer document.
const sermonSample = 64 << 10

// sermonWords is how many words of the sample a text must have before its
// words can tell that it is no sermon; a shorter text is taken as it
// comes.
const sermonWords = 500

// docKind is what the words of a whole document say it is.
type docKind uint8

const (
	docUnread  docKind = iota // not read yet
	docSermon                 // a sermon or a text about scripture
	docOther                  // long enough, and not about scripture
	docUnknown                // too short to tell
)

// sermon reports whether the text is plainly about scripture: at least
// five words in a thousand of its sample are "god", "jesus", "lord",
// "bible", "verse", "church", "amen" and their like (sermons have 13 to 60,
// podcasts, lectures and meetings 0 to 1.3). It reads the text once, the
// first time a rule asks.
func (m *matcher) sermon() bool {
	return m.kind() == docSermon
}

// notSermon reports whether the text is long enough to tell and is not
// about scripture.
func (m *matcher) notSermon() bool {
	return m.kind() == docOther
}

func (m *matcher) kind() docKind {
	if m.doc == docUnread {
		m.doc = readDocKind(m.sc.text[:min(len(m.sc.text), sermonSample)])
	}
	return m.doc
}

// IsSermon reports whether text is plainly about scripture by the words of
// its first 64 KB, as the engine reads a document before its rules that
// need the whole text (see the package documentation).
func IsSermon(text string) bool {
	return readDocKind(text[:min(len(text), sermonSample)]) == docSermon
}

// readDocKind counts the words of text and those of them that speak of
// scripture.
func readDocKind(text string) docKind {
	words, hits := 0, 0
	for i := 0; i < len(text); {
		c := text[i] | 0x20
		if c < 'a' || c > 'z' {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (text[j]|0x20 >= 'a' && text[j]|0x20 <= 'z') {
			j++
		}
		words++
		if n := j - i; n >= 3 && n <= 9 && scriptureWord(text[i:j]) {
			hits++
		}
		i = j
	}
	switch {
	case hits >= 3 && hits*1000 >= 5*words:
		return docSermon
	case words >= sermonWords:
		return docOther
	}
	return docUnknown
}

// captionCase reports whether the text is lowercase throughout, as
// auto-captions are: fewer than one word in a hundred of its first 16 KB
// begins with a capital ("I" and its contractions aside), among 200 words
// or more. There a capital tells nothing, and a rule that wants one to
// know a name from an English word may read the word's spelling instead.
// It reads the text once, the first time a rule asks.
func (m *matcher) captionCase() bool {
	if !m.caseRead {
		m.caseRead = true
		text := m.sc.text[:min(len(m.sc.text), 16<<10)]
		words, upper := 0, 0
		for i := 0; i < len(text); {
			c := text[i]
			if !isWordByte(c) {
				i++
				continue
			}
			j := i + 1
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			words++
			if c >= 'A' && c <= 'Z' && !(c == 'I' && (j == i+1 || text[i+1] == '\'')) {
				upper++
			}
			i = j
		}
		m.lowerCase = words >= 200 && upper*100 < words
	}
	return m.lowerCase
}

// scriptureWord reports whether w is one of the words sermons are full of.
func scriptureWord(w string) bool {
	switch len(w) {
	case 3:
		return strings.EqualFold(w, "god")
	case 4:
		return strings.EqualFold(w, "lord") || strings.EqualFold(w, "amen") || strings.EqualFold(w, "holy") || strings.EqualFold(w, "pray")
	case 5:
		return strings.EqualFold(w, "jesus") || strings.EqualFold(w, "bible") || strings.EqualFold(w, "verse") || strings.EqualFold(w, "psalm")
	case 6:
		return strings.EqualFold(w, "christ") || strings.EqualFold(w, "gospel") || strings.EqualFold(w, "church") || strings.EqualFold(w, "verses") || strings.EqualFold(w, "prayer") || strings.EqualFold(w, "spirit")
	case 7:
		return strings.EqualFold(w, "chapter")
	case 9:
		return strings.EqualFold(w, "scripture")
	}
	return false
}

// sermonCue reports whether the words around tokens i..j, a book's name
// that is also an English word, read as the book's in a sermon: after a
// preposition that leads to a book ("in acts", "through judges", "from
// genesis", "on revelation", "turn to revelation") or before a verb a book takes ("revelation
// says", "proverbs puts it"); never after an article or a determiner ("a
// revelation", "the numbers", "his acts") nor before "of" ("acts of
// kindness").
func (m *matcher) sermonCue(i, j int) bool {
	sc := m.sc
	if sc.is(j+1, "of") {
		return false
	}
	if sc.isAny(i-1, "in", "through", "from", "into", "on", "after") &&
		!sc.isAny(i-2, "interested", "believe", "believes", "faith", "trust", "involved", "engaged") {
		return true
	}
	if sc.is(i-1, "to") && sc.is(i-3, "from") && m.found.n > 0 {
		// "from genesis to revelation": the book after a book the engine
		// has just read, the span of the whole Bible or of a part of it.
		if last := m.found.last(); last.rule < rulePlaceLowercase && m.found.end(last) == sc.tok(i-2).e() &&
			!strings.EqualFold(sc.str(i-2), sc.str(i)) {
			return true
		}
	}
	if sc.is(i-1, "to") && sc.isAny(i-2, "turn", "turning", "go", "going", "went", "back", "over", "flip", "skip", "jump", "move", "forward") {
		return true // "turn to revelation", but "a day to mark"
	}
	if sc.is(j+1, "series") {
		return !sc.isAny(i-1, "a", "an") // "our revelation series"
	}
	return m.bookVerbAfter(j) &&
		!sc.isAny(i-1, "a", "an", "the", "his", "her", "their", "our", "your", "my", "its", "these", "those", "this", "that", "some", "many", "no")
}

// garbledCue reports whether tokens i..j, a book's name that a misheard
// everyday phrase also gives ("in acts" for "in fact"), are read, studied
// or preached as a book, which the phrase is not: "did you read in acts",
// "what we saw in acts", "a series on acts"; but "a chapter of numbers"
// in a life.
func (m *matcher) garbledCue(i, j int) bool {
	sc := m.sc
	if sc.is(j+1, "of") {
		return false
	}
	switch {
	case sc.is(i-1, "in"):
		return sc.isAny(i-2, "read", "reading", "saw", "see", "find", "found", "preached", "preaching", "studied", "studying")
	case sc.is(i-1, "on"):
		return sc.isAny(i-2, "series", "sermon", "sermons", "study", "studies", "message", "messages", "teaching")
	}
	return false
}

// nounBook reports whether the book of OSIS id osis is named by a noun
// speakers use for what it holds: a revelation, psalms, proverbs,
// lamentations.
func nounBook(osis string) bool {
	switch osis {
	case "Rev", "Ps", "Prov", "Lam":
		return true
	}
	return false
}

// hymnsAfter reports whether "hymns" or "spiritual songs" follows token j
// within four tokens: psalms sung, as Ephesians 5:19 and Colossians 3:16 name
// them.
func (m *matcher) hymnsAfter(j int) bool {
	sc := m.sc
	for k := j + 1; k <= j+4 && sc.has(k); k++ {
		if sc.isAny(k, "hymns", "hymn") || sc.is(k, "spiritual") && sc.is(k+1, "songs") {
			return true
		}
	}
	return false
}

// bookVerbAfter reports whether token j, a book's name, is followed by a
// verb a book takes ("revelation says", "proverbs puts it") or by "series".
func (m *matcher) bookVerbAfter(j int) bool {
	return m.sc.isAny(j+1, "says", "said", "puts", "tells", "teaches", "ends", "begins", "opens", "closes", "depicts", "describes", "series")
}

// citedCue reports whether tokens i..j name book b, which the text has
// already cited with a reference, as the book's name is used: "the
// psalms", "the end of judges", "in acts" after "Psalm 46", "Judges 2" or
// "Acts 2" earlier in the document; not after "a" or "an", and not
// before "of" but in "the psalms of ascent".
func (m *matcher) citedCue(i, j int, b *book) bool {
	sc := m.sc
	if b == nil || m.d.bookOf(b.id) == 0 || !strings.EqualFold(sc.text[sc.tok(i).s():sc.tok(j).e()], b.name) && b.osis != "Ps" {
		return false // only the book's own name: not "palms", not "lamentation"
	}
	if sc.in(i-1, &sc.d.ws.determiner) || (i > 0 && sc.tok(i-1).digits()) ||
		i > 0 && strings.HasSuffix(strings.ToLower(sc.str(i-1)), "'s") {
		return false // "this revelation", "these psalms", "15 psalms", "god's revelation"
	}
	switch b.osis {
	case "Mark", "Job":
		return false // "a day to mark", "the job": words of every day
	case "Judg", "Num", "Acts", "1Kgs", "2Kgs":
		if sc.isAny(i-1, "the", "to") {
			return false // "the judges ruled", "look at the numbers"
		}
	}
	if b.osis == "Ps" {
		// "the psalms", "in the psalms": the book; "the psalm" is one
		// psalm, a common noun.
		return plural(sc.str(i)) && sc.is(i-1, "the") && sc.isAny(i-2, "in", "of", "on", "from", "through", "prayed", "sang", "read") && m.cited(b)
	}
	if sc.is(j+1, "of") || verbBook(sc, i, j, b) {
		return false
	}
	return (m.cited(b) || m.citedAhead(b)) && !m.nounUse(b)
}

// nounUse reports whether the document uses the name of book b, an
// English word, as a common noun somewhere: after an article, a
// determiner, a possessive or a quantifier ("a revelation", "no
// revelation", "this revelation", "his acts", "these judges"). A speaker
// who does so says the word for the noun as readily as for the book, and
// its bare return after a citation ("needs revelation", "brings
// revelation" in a sermon that read Revelation 4) is the noun. It reads the
// text once for each book a rule asks about.
func (m *matcher) nounUse(b *book) bool {
	k := m.d.bookOf(b.id)
	if k == 0 {
		return false
	}
	return m.nounUsed.get(k, func() bool { return nounUseIn(m.sc.text, b.name) })
}

// wholeWord returns the bounds of the first occurrence of name in text from
// offset from on, in any case and as a whole word; -1, -1 for none.
func wholeWord(text, name string, from int) (int, int) {
	if name == "" {
		return -1, -1
	}
	lo, up := name[0]|0x20, name[0]&^0x20
	for i := from; i+len(name) <= len(text); i++ {
		if c := text[i]; c != lo && c != up {
			continue
		}
		e := i + len(name)
		if strings.EqualFold(text[i:e], name) && (i == 0 || !isWordByte(text[i-1])) && (e == len(text) || !isWordByte(text[e])) {
			return i, e
		}
	}
	return -1, -1
}

// nounUseIn reports whether text holds name, in any case and as a whole
// word, after a word that makes it a common noun.
func nounUseIn(text, name string) bool {
	for i, e := wholeWord(text, name, 0); i >= 0; i, e = wholeWord(text, name, e) {
		// The word before, across one space or line end.
		p := i - 1
		for p >= 0 && (text[p] == ' ' || text[p] == '\n') {
			p--
		}
		q := p + 1
		for p >= 0 && isWordByte(text[p]) {
			p--
		}
		if nounDeterminer(text[p+1 : q]) {
			return true
		}
	}
	return false
}

// nounDeterminer reports whether w, before a noun, makes it a common noun
// rather than a name.
func nounDeterminer(w string) bool {
	if len(w) > 2 && (w[len(w)-2:] == "'s" || w[len(w)-2:] == "'S") {
		return !contractedIs(w) // "god's revelation", "paul's revelation"; not "it's genesis"
	}
	if len(w) < 1 || len(w) > 5 {
		return false
	}
	var b [8]byte
	switch string(appendLower(b[:0], w)) {
	case "a", "an", "this", "that", "these", "those", "my", "your", "his", "her", "our", "their", "its",
		"some", "any", "no", "every", "each", "more", "much", "new", "fresh":
		return true
	}
	return false
}

// lineAround returns the bounds of the line of text around offset start,
// at most 160 bytes either side of it.
func lineAround(text string, start int) (lo, hi int) {
	lo, hi = max(0, start-160), min(len(text), start+160)
	if k := strings.LastIndexByte(text[lo:start], '\n'); k >= 0 {
		lo += k + 1
	}
	if k := strings.IndexByte(text[start:hi], '\n'); k >= 0 {
		hi = start + k
	}
	return lo, hi
}

// foreignLine reports whether the line around offset start (at most 160
// bytes either side) holds two or more function words of Spanish,
// Portuguese, French, German or Tagalog that are not English words: a
// line of mixed captions in another language. It remembers the line it
// read last.
func (m *matcher) foreignLine(start int) bool {
	if start >= m.foreignLo && start < m.foreignHi {
		return m.foreign
	}
	lo, hi := lineAround(m.sc.text, start)
	m.foreignLo, m.foreignHi, m.foreign = lo, hi, foreignWords(m.sc.text, lo, hi) >= 2
	return m.foreign
}

// foreignWord reports whether w is a function word of another language
// that English does not have.
func foreignWord(w string) bool {
	if len(w) < 2 || len(w) > 7 {
		return false
	}
	var b [8]byte
	lw := appendLower(b[:0], w)
	switch string(lw) {
	case "de", "el", "que", "en", "los", "las", "del", "por", "para", "con", "una", "es", "mi", "su", "nos",
		"señor", "dios", "muy", "pero", "como", "esta", "este", "porque", "nuestro", "nuestra",
		"je", "les", "et", "des", "pas", "avec", "pour", "dans", "nous", "vous", "est", "une", "qui",
		"und", "der", "das", "ist", "nicht", "mit", "ich", "wir",
		"ang", "ng", "mga", "sa", "ako", "nang", "ay", "siya", "kami", "tayo",
		"não", "uma", "você", "muito", "mas", "ele":
		return true
	}
	return nordicDutchWord(string(lw))
}

// ordinaryWord reports whether text[start:end], heard for a place or a
// book by its sound or spelling, is an ordinary English word written as
// one (in lowercase) outside the contexts that name a book ("the book of
// facts", "rumors chapter five"): "stuck in chaos" is not Chios, nor
// "the gospel to believers" Proverbs.
func (m *matcher) ordinaryWord(start, end int) bool {
	text := m.sc.text
	w := text[start:end]
	if len(w) < 5 || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	if _, ok := m.d.englishNear[w]; !ok {
		return false
	}
	before, after := text[max(0, start-12):start], text[end:min(len(text), end+9)]
	suffix := func(s, suf string) bool { return len(s) >= len(suf) && strings.EqualFold(s[len(s)-len(suf):], suf) }
	return !suffix(before, "book of ") && !suffix(before, "gospel of ") && !(len(after) >= 8 && strings.EqualFold(after[:8], " chapter"))
}
