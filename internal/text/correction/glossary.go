package correction

import (
	_ "embed"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// englishWords holds the lowercase English words of SCOWL, one a line in
// byte order after a comment line: a glossary's sound-alike never
// changes one (see isEnglishWord).
//
//go:embed data/english_words.txt
var englishWords string

// The bounds of a glossary, enforced by NewGlossary.
const (
	MaxGlossaryEntries       = 1000 // entries of one glossary
	MaxGlossaryTermBytes     = 100  // bytes of a Term
	MaxGlossaryForms         = 20   // Forms of one entry
	MaxGlossaryFormBytes     = 100  // bytes of a form
	MaxGlossaryCategoryBytes = 32   // bytes of a Category
)

// CategoryGlossary is the category of the changes of a glossary entry
// that names none.
const CategoryGlossary = "glossary"

// The rules and confidences of glossary changes.
const (
	RuleGlossaryForm  = "glossary.form"  // a listed form, or the Term in another case
	RuleGlossarySound = "glossary.sound" // a word that sounds like the Term's
	glossaryFormConf  = 0.95
	glossarySoundConf = 0.75
)

// GlossaryEntry is one word or name of an organization's glossary.
type GlossaryEntry struct {
	// Term is the right spelling, e.g. "Pastor Okonkwo", "Bethel
	// Tabernacle": every change of the entry writes it as it is.
	Term string
	// Forms are wrong forms seen for Term, e.g. "pastor okonquo", "beth el
	// tabernacle", matched as whole words ignoring case.
	Forms []string
	// SoundsLike also matches words that sound like the words of Term
	// (the engine's phonetic keys), which are suggested.
	SoundsLike bool
	// Auto applies the changes of listed forms automatically; without it
	// they are suggestions.
	Auto bool
	// Category is the category of the entry's changes, e.g. "name",
	// "church", "hymn"; "" means CategoryGlossary.
	Category string
}

// Glossary is a compiled list of glossary entries, the words an
// organization spells its own way. It is built once by NewGlossary and
// is safe for concurrent use by many Find and Correct calls.
//
// A glossary change replaces a listed form of an entry, or its Term
// written in another case, by the Term (rule "glossary.form", confidence
// 0.95, applied when the entry is Auto and suggested otherwise). With
// SoundsLike, words that sound like the Term's words are suggested (rule
// "glossary.sound", confidence 0.75) when each word of the Term is
// matched, at least one by its sound alone: a word of four letters or
// more, of the same phonetic key, at most three edits and three letters
// away from the Term's word, that is no English word, no name of the
// King James Version and no form of the engine's dictionaries. A Term
// that is a single English word ("Grace") is not changed for its case,
// and a Term the engine knows as a book, place or biblical person only
// adds its forms: the engine's rules for that name stay as they are.
//
// Matches are of whole words, ignoring case; the words of a form may be
// parted as the engine parts the words of a name (a space, a hyphen, an
// abbreviating period, one line break of a caption cue). Words in URLs,
// e-mail addresses, file names and code are never changed. Where a
// glossary match and an engine change overlap the glossary's wins, and
// the Term written right keeps the engine from changing it.
type Glossary struct {
	entries []GlossaryEntry
	cats    []string   // the category of each entry
	terms   [][]string // the lowercase words of each entry's Term
	gaps    [][]string // what parts them (see phraseGaps)
	phrases []glossaryPhrase
	// first maps the anchor word of each phrase (see anchorWord) to its
	// phrases, those of the most words first.
	first map[string][]int32
	// bloom is a blocked Bloom filter (two bits a key) over the hashes
	// of the ASCII keys of first, as keyHash computes them: most words of
	// a text skip the map lookup through it.
	bloom []uint64
	// sounds maps the phonetic key of a word of a SoundsLike Term to
	// its places; text words of soundMin to soundMax bytes are tried.
	sounds             map[string][]glossarySound
	soundMin, soundMax int
	// soundShapes holds the length and first letter (the shape, see
	// shape, of a word whose last letter is no letter) of every word that
	// may sound like a word of sounds: a word of a text of another shape
	// is not keyed.
	soundShapes shapeSet
}

// glossaryPhrase is a listed form or a Term, as lowercase words.
type glossaryPhrase struct {
	words  []string
	gaps   []string // what parts its words as written, lowercase ("'" of "o'brien")
	entry  int32
	anchor int32 // the word it is found by (see anchorWord)
	term   bool  // the entry's Term itself
}

// glossarySound is word k of the Term of entry.
type glossarySound struct {
	entry, k int32
}

// glossaryBloomWords is the size of Glossary.bloom: 64 Ki bits, 8 KiB.
const glossaryBloomWords = 1 << 10

// NewGlossary validates and compiles entries. An error is a *FieldError
// naming the entry and field at fault, e.g. "entries[3].forms[1]".
func NewGlossary(entries []GlossaryEntry) (*Glossary, error) {
	if len(entries) > MaxGlossaryEntries {
		return nil, &FieldError{Field: "entries", Reason: fmt.Sprintf("at most %d entries, got %d", MaxGlossaryEntries, len(entries))}
	}
	g := &Glossary{
		entries: make([]GlossaryEntry, len(entries)),
		cats:    make([]string, len(entries)),
		terms:   make([][]string, len(entries)),
		gaps:    make([][]string, len(entries)),
		first:   make(map[string][]int32, 2*len(entries)),
		bloom:   make([]uint64, glossaryBloomWords),
		sounds:  map[string][]glossarySound{},
	}
	// owner holds, for the words of each phrase, the field that holds
	// it: entry<<8 | 0 for its Term, or 1 + the index of its form.
	owner := make(map[string]int, 3*len(entries))
	fieldName := func(o int) string {
		if o&0xff == 0 {
			return fmt.Sprintf("entries[%d].term", o>>8)
		}
		return fmt.Sprintf("entries[%d].forms[%d]", o>>8, o&0xff-1)
	}
	var key []byte
	for i, en := range entries {
		f := func(field string) string { return fmt.Sprintf("entries[%d]", i) + field }
		if err := checkTerm(en.Term); err != nil {
			return nil, &FieldError{Field: f(".term"), Reason: err.Error()}
		}
		cat, err := glossaryCategory(en.Category)
		if err != nil {
			return nil, &FieldError{Field: f(".category"), Reason: err.Error()}
		}
		if len(en.Forms) > MaxGlossaryForms {
			return nil, &FieldError{Field: f(".forms"), Reason: fmt.Sprintf("at most %d forms, got %d", MaxGlossaryForms, len(en.Forms))}
		}
		en.Forms = slices.Clone(en.Forms)
		g.entries[i], g.cats[i] = en, cat
		words := splitKey(en.Term)
		g.terms[i], g.gaps[i] = words, phraseGaps(en.Term)
		termKey := strings.Join(words, " ")
		if prev, ok := owner[termKey]; ok {
			return nil, &FieldError{Field: f(".term"), Reason: "the same words as " + fieldName(prev)}
		}
		owner[termKey] = i << 8
		// A single English word is not changed for its case: "grace" is
		// no misspelt "Grace".
		termPhrase := len(words) > 1 || !isEnglishWord(words[0])
		if termPhrase {
			g.addPhrase(en.Term, words, int32(i), true)
		}
		for k, form := range en.Forms {
			if err := checkForm(form); err != nil {
				return nil, &FieldError{Field: f(fmt.Sprintf(".forms[%d]", k)), Reason: err.Error()}
			}
			fw := splitKey(form)
			fk := strings.Join(fw, " ")
			if prev, ok := owner[fk]; ok {
				if prev>>8 != i {
					return nil, &FieldError{Field: f(fmt.Sprintf(".forms[%d]", k)), Reason: "the same words as " + fieldName(prev)}
				}
				if fk != termKey || termPhrase {
					continue // said twice in one entry
				}
			}
			owner[fk] = i<<8 | (k + 1)
			g.addPhrase(form, fw, int32(i), false)
		}
		if en.SoundsLike {
			for k, w := range words {
				if !soundWord(w) {
					continue
				}
				key = appendPhoneticKey(key[:0], []byte(w))
				g.sounds[string(key)] = append(g.sounds[string(key)], glossarySound{entry: int32(i), k: int32(k)})
				if g.soundMin == 0 || len(w)-3 < g.soundMin {
					g.soundMin = max(4, len(w)-3)
				}
				g.soundMax = max(g.soundMax, len(w)+3)
				for _, c := range []byte(keyStarts(key[0])) {
					for l := max(4, len(w)-3); l <= len(w)+3; l++ {
						g.soundShapes.add((min(l, 31)*27 + letterIndex(c)) * 27)
					}
				}
			}
		}
	}
	for _, ps := range g.first {
		slices.SortStableFunc(ps, func(a, b int32) int { return len(g.phrases[b].words) - len(g.phrases[a].words) })
	}
	return g, nil
}

// keyStarts returns the letters a word whose phonetic key begins with
// k may begin with (see appendPhoneticKey).
func keyStarts(k byte) string {
	switch k {
	case 'A':
		return "aeiouyw"
	case 'H':
		return "h"
	case 'P':
		return "bp"
	case 'F':
		return "fvp"
	case 'K':
		return "ckqgj"
	case 'S':
		return "szxc"
	case 'T':
		return "dt"
	case 'R':
		return "lr"
	case 'N':
		return "mn"
	}
	return string(k | 0x20)
}

// addPhrase indexes the phrase words of entry.
func (g *Glossary) addPhrase(phrase string, words []string, entry int32, term bool) {
	k := anchorWord(words)
	g.phrases = append(g.phrases, glossaryPhrase{words: words, gaps: phraseGaps(phrase), entry: entry, anchor: int32(k), term: term})
	w := words[k]
	if _, ok := g.first[w]; !ok && isASCII(w) {
		h := keyHash(w)
		g.bloom[h>>54] |= 1<<(h>>32&63) | 1<<(h>>38&63)
	}
	g.first[w] = append(g.first[w], int32(len(g.phrases)-1))
}

// phraseGaps returns what parts the words of phrase, lowercase.
func phraseGaps(phrase string) []string {
	var gaps []string
	toks := tokenize(phrase, nil)
	for i := 1; i < len(toks); i++ {
		gaps = append(gaps, strings.ToLower(phrase[toks[i-1].e():toks[i].s()]))
	}
	return gaps
}

// anchorWord returns the index of the word a phrase is found by: its
// longest word that is no English word, or its longest word. A text
// holds it more rarely than "the" or "pastor", so fewer words of a text
// are compared with the phrase.
func anchorWord(words []string) int {
	best, bestScore := 0, -1
	for k, w := range words {
		score := len(w)
		if len(words) > 1 && !isEnglishWord(w) {
			score += 1 << 16
		}
		if score > bestScore {
			best, bestScore = k, score
		}
	}
	return best
}

// Len returns the number of entries of g.
func (g *Glossary) Len() int { return len(g.entries) }

// checkTerm reports what is wrong with a Term, or nil.
func checkTerm(s string) error {
	if err := checkPhrase(s, MaxGlossaryTermBytes); err != nil {
		return err
	}
	if strings.TrimSpace(s) != s {
		return fmt.Errorf("must not begin or end with a space")
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("must not hold a control character (%U)", r)
		}
	}
	return nil
}

// checkForm reports what is wrong with a form, or nil.
func checkForm(s string) error {
	return checkPhrase(s, MaxGlossaryFormBytes)
}

// checkPhrase reports whether s is valid UTF-8 of 1 to maxBytes bytes
// holding a word.
func checkPhrase(s string, maxBytes int) error {
	switch {
	case len(s) == 0 || len(s) > maxBytes:
		return fmt.Errorf("must be 1 to %d bytes long, got %d", maxBytes, len(s))
	case !utf8.ValidString(s):
		return fmt.Errorf("must be valid UTF-8")
	case len(tokenize(s, nil)) == 0:
		return fmt.Errorf("must hold a letter or a digit")
	}
	return nil
}

// glossaryCategory returns the category of an entry's changes: c, or
// CategoryGlossary for "". A category is a lowercase letter followed by
// up to 31 lowercase letters, digits and underscores, and not one of the
// engine's.
func glossaryCategory(c string) (string, error) {
	if c == "" {
		return CategoryGlossary, nil
	}
	ok := len(c) <= MaxGlossaryCategoryBytes && c[0] >= 'a' && c[0] <= 'z'
	for i := 1; ok && i < len(c); i++ {
		b := c[i]
		ok = b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_'
	}
	if !ok {
		return "", fmt.Errorf("must match ^[a-z][a-z0-9_]{0,31}$, got %q", c)
	}
	switch c {
	case CategoryBible, CategoryPlace, CategoryPerson:
		return "", fmt.Errorf("%q is a category of the engine", c)
	}
	return c, nil
}

// wants reports whether categories (see Options.Categories) asks for
// some category of g.
func (g *Glossary) wants(categories []string) bool {
	if len(categories) == 0 {
		return true
	}
	for _, c := range g.cats {
		if slices.Contains(categories, c) {
			return true
		}
	}
	return false
}

// soundWord reports whether the lowercase word w may be matched by its
// sound: four ASCII letters or more.
func soundWord(w string) bool {
	if len(w) < 4 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// isEnglishWord reports whether the lowercase word w is in englishWords,
// by a binary search over its lines.
func isEnglishWord(w string) bool {
	s := englishWords[strings.IndexByte(englishWords, '\n')+1:]
	lo, hi := 0, len(s) // line starts: the lines in [lo, hi) are unsearched
	for lo < hi {
		mid := lo + (hi-lo)/2
		a := strings.LastIndexByte(s[lo:mid], '\n') + 1 + lo // the start of the line of mid
		b := strings.IndexByte(s[a:], '\n')
		if b < 0 {
			b = len(s) - a
		}
		switch line := s[a : a+b]; {
		case line == w:
			return true
		case line < w:
			lo = a + b + 1
		default:
			hi = a
		}
	}
	return false
}

// glossaryCand is a word of a text that may be a glossary phrase's
// anchor word, or sound like a word of a Term.
type glossaryCand struct {
	start, end int32
	exact      bool // its lowercase form is a key of Glossary.first
	sound      bool // its phonetic key is a key of Glossary.sounds
}

// glossaryCacheBits is the largest size of the cache of words that sound
// like no Term word, as a power of two: two ways of 8,192 sets, 128 KiB.
// A short text gets a smaller cache.
const glossaryCacheBits = 14

// glossaryScan gathers the candidates of one text from the words the
// engine's scanner reads (see scanner.gl), so that the text is split and
// hashed once.
type glossaryScan struct {
	g     *Glossary
	d     *dict
	text  string
	bloom *[glossaryBloomWords]uint64
	// cache holds the hashes of words that sound like no Term word, in
	// the two slots of the set their high bits name; nil when no entry is
	// SoundsLike.
	cache []uint64
	shift uint // 64 less the bits of the cache's size
	cands []glossaryCand
	end   int // the end of the latest word seen
	lw    []byte
}

// newScan returns the scan of text by g.
func (g *Glossary) newScan(d *dict, text string) *glossaryScan {
	gs := &glossaryScan{g: g, d: d, text: text, bloom: (*[glossaryBloomWords]uint64)(g.bloom)}
	if len(g.sounds) > 0 {
		n := min(max(bits.Len(uint(len(text)/16)), 6), glossaryCacheBits)
		gs.cache, gs.shift = make([]uint64, 1<<n), uint(64-n)
	}
	return gs
}

// see looks at the words toks the scanner has just read. Most words pass
// through the Bloom filter of the anchor words and the cache of words
// that sound like none.
func (gs *glossaryScan) see(toks []token) {
	bloom, cache, shift := gs.bloom, gs.cache, gs.shift
	for i := range toks {
		t := &toks[i]
		h := t.h
		w := bloom[h>>54]
		if w>>(h>>32&63)&(w>>(h>>38&63))&1 != 0 || t.flags&tMulti != 0 ||
			cache != nil && cache[h>>shift] != h && cache[h>>shift^1] != h {
			gs.check(t)
		}
	}
	if len(toks) > 0 {
		gs.end = toks[len(toks)-1].e()
	}
}

// check looks at a word the filters of see let through.
func (gs *glossaryScan) check(t *token) {
	g, start, end := gs.g, t.s(), t.e()
	size, multi := end-start, t.flags&tMulti != 0
	if size > MaxGlossaryFormBytes {
		return
	}
	c := glossaryCand{start: int32(start), end: int32(end)}
	gs.lw = appendLower(gs.lw[:0], gs.text[start:end])
	lw := gs.lw
	h := t.h
	if w := gs.bloom[h>>54]; multi || w>>(h>>32&63)&(w>>(h>>38&63))&1 != 0 {
		_, c.exact = g.first[string(lw)]
	}
	if slot := h >> gs.shift; !multi && gs.cache != nil && gs.cache[slot] != h && gs.cache[slot^1] != h {
		if size >= g.soundMin && size <= g.soundMax && g.soundShapes.has((min(size, 31)*27+letterIndex(lw[0]))*27) {
			var kb [64]byte
			if _, ok := g.sounds[string(appendPhoneticKey(kb[:0], lw))]; ok && mayBeMisheard(gs.d, string(lw)) {
				c.sound = true
			}
		}
		if !c.sound {
			if gs.cache[slot] != 0 {
				slot ^= 1
			}
			gs.cache[slot] = h
		}
	}
	if c.exact || c.sound {
		gs.cands = append(gs.cands, c)
	}
}

// finish reads the words of the text after the latest the scanner read
// (all of them when the engine read none).
func (gs *glossaryScan) finish() {
	if gs.end >= len(gs.text) {
		return
	}
	sc := new(scanner)
	sc.init(gs.d, gs.text)
	sc.pos = gs.end
	sc.gl = gs
	for i := 0; sc.has(i); i++ {
		sc.keep = i
	}
}

// glossaryMatch is a span of text that a glossary entry matched.
type glossaryMatch struct {
	start, end int
	entry      int32
	sound      bool
	keep       bool // the Term written right: no change, but no engine change either
}

// find returns the changes of g in text for the categories asked (see
// Options.Categories), in text order and apart, with the spans of the
// Terms written right (no change, but none of the engine either); the
// changes have no ID yet.
func (g *Glossary) find(d *dict, text string, categories []string, cands []glossaryCand) ([]Change, []glossaryMatch) {
	if len(cands) == 0 {
		return nil, nil
	}
	want := func(e int32) bool {
		return len(categories) == 0 || slices.Contains(categories, g.cats[e])
	}
	engineName := map[int32]bool{}
	isEngineName := func(e int32) bool {
		v, ok := engineName[e]
		if !ok {
			v = d.knowsName(g.terms[e])
			engineName[e] = v
		}
		return v
	}
	var ms []glossaryMatch
	var lw, kb []byte
	for _, c := range cands {
		start, end := int(c.start), int(c.end)
		if c.exact {
			lw = appendLower(lw[:0], text[start:end])
			for _, pi := range g.first[string(lw)] {
				ph := &g.phrases[pi]
				if !want(ph.entry) || (ph.term && isEngineName(ph.entry)) {
					continue
				}
				a, ok := start, true
				for k := ph.anchor; k > 0 && ok; k-- {
					p := a
					if a, ok = prevWord(text, p); !ok {
						a, ok = beforeGap(text, p, ph.gaps[k-1])
					}
				}
				if !ok {
					continue
				}
				e, ok := matchWords(text, a, wordEnd(text, a), ph.words, ph.gaps, nil)
				if !ok {
					continue
				}
				m := glossaryMatch{start: a, end: e, entry: ph.entry}
				if orig := text[a:e]; orig == g.entries[ph.entry].Term {
					m.keep = true
				} else if ph.term && allUpper(orig) {
					continue // a heading keeps its capitals
				}
				ms = append(ms, m)
				break
			}
		}
		if c.sound {
			lw = appendLower(lw[:0], text[start:end])
			kb = appendPhoneticKey(kb[:0], lw)
			for _, s := range g.sounds[string(kb)] {
				if !want(s.entry) || isEngineName(s.entry) {
					continue
				}
				// Back to the first word of the Term, then along its words.
				a, ok := start, true
				for k := s.k; k > 0 && ok; k-- {
					p := a
					if a, ok = prevWord(text, p); !ok {
						a, ok = beforeGap(text, p, g.gaps[s.entry][k-1])
					}
				}
				if !ok {
					continue
				}
				sounded := false
				e, ok := matchWords(text, a, wordEnd(text, a), g.terms[s.entry], g.gaps[s.entry], func(tw, w string) bool {
					if soundsLike(d, tw, w) {
						sounded = true
						return true
					}
					return false
				})
				if ok && sounded {
					ms = append(ms, glossaryMatch{start: a, end: e, entry: s.entry, sound: true})
				}
			}
		}
	}
	if len(ms) == 0 {
		return nil, nil
	}
	// In text order, the longest first, a form before a sound-alike; the
	// first of overlapping matches is kept.
	slices.SortStableFunc(ms, func(a, b glossaryMatch) int {
		if a.start != b.start {
			return a.start - b.start
		}
		if a.end != b.end {
			return b.end - a.end
		}
		if a.sound != b.sound {
			if a.sound {
				return 1
			}
			return -1
		}
		return 0
	})
	var code codeState
	hasCode := strings.IndexByte(text, '`') >= 0 || strings.IndexByte(text, '<') >= 0
	var changes []Change
	var keeps []glossaryMatch
	line, pos, lastEnd := 1, 0, 0
	for _, m := range ms {
		if m.start < lastEnd {
			continue
		}
		if (hasCode && (code.inCode(text, m.start) || code.inlineCode(text, m.start, m.end))) || notProse(text, m.start, m.end) {
			continue
		}
		lastEnd = m.end
		if m.keep {
			keeps = append(keeps, m)
			continue
		}
		en := &g.entries[m.entry]
		line += strings.Count(text[pos:m.start], "\n")
		pos = m.start
		c := Change{
			Category:    g.cats[m.entry],
			Original:    text[m.start:m.end],
			Replacement: en.Term,
			Start:       m.start,
			End:         m.end,
			Line:        line,
			Rule:        RuleGlossaryForm,
			Confidence:  glossaryFormConf,
			Status:      StatusNeedsReview,
		}
		if m.sound {
			c.Rule, c.Confidence = RuleGlossarySound, glossarySoundConf
		} else if en.Auto {
			c.Status = StatusAutoApplied
		}
		changes = append(changes, c)
	}
	return changes, keeps
}

// knowsName reports whether the lowercase words are a book, a place or a
// biblical person of the dictionaries.
func (d *dict) knowsName(words []string) bool {
	if len(words) == 1 {
		if _, ok := d.persons[words[0]]; ok {
			return true
		}
	}
	n := d.root[words[0]]
	for _, w := range words[1:] {
		if n == nil {
			return false
		}
		n = n.next[w]
	}
	return n != nil && (n.book != nil || n.place != nil)
}

// soundsLike reports whether the lowercase text word tw may be a
// misheard w, the lowercase word of a Term: not w, of four letters or
// more, of the same phonetic key, at most three letters longer or
// shorter and three edits away, and a word that may be misheard (see
// mayBeMisheard).
func soundsLike(d *dict, tw, w string) bool {
	if tw == w || !soundWord(tw) || !soundWord(w) || len(tw)-len(w) > 3 || len(w)-len(tw) > 3 {
		return false
	}
	var ka, kb [48]byte
	if string(appendPhoneticKey(ka[:0], []byte(tw))) != string(appendPhoneticKey(kb[:0], []byte(w))) ||
		editDistance([]byte(tw), w, 3) > 3 {
		return false
	}
	return mayBeMisheard(d, tw)
}

// mayBeMisheard reports whether the lowercase word w may be a misheard
// glossary word: four ASCII letters or more, and no English word, no
// name of the King James Version and no form of the dictionaries.
func mayBeMisheard(d *dict, w string) bool {
	if !soundWord(w) || isEnglishWord(w) || d.root[w] != nil || d.fuzzyEnglish[w] {
		return false
	}
	if _, ok := d.kjvNames[w]; ok {
		return false
	}
	if _, ok := d.persons[w]; ok {
		return false
	}
	_, ok := d.englishNear[w]
	return !ok
}

// matchWords reports whether the words of text from the word [start,
// end) on are words, each equal to its word of words ignoring case or,
// with sound, sound(lowercase text word, word) is true; it returns the
// end of the last. The words are parted as the words of a name (see
// nameGapText) or, with gaps, as the phrase parts them ("o'brien").
func matchWords(text string, start, end int, words, gaps []string, sound func(tw, w string) bool) (int, bool) {
	var buf [64]byte
	for k, w := range words {
		if k > 0 {
			s, ok := nextWord(text, end)
			if !ok && gaps != nil {
				s, ok = afterGap(text, end, gaps[k-1])
			}
			if !ok {
				return 0, false
			}
			start, end = s, wordEnd(text, s)
		}
		lw := appendLower(buf[:0], text[start:end])
		if string(lw) != w && (sound == nil || !sound(string(lw), w)) {
			return 0, false
		}
	}
	return end, true
}

// afterGap returns the start of the word after end, the end of a word,
// if the bytes between are gap ignoring case.
func afterGap(text string, end int, gap string) (int, bool) {
	e := end + len(gap)
	if e >= len(text) || !strings.EqualFold(text[end:e], gap) {
		return 0, false
	}
	if ok, _ := isWordAt(text, e); !ok {
		return 0, false
	}
	return e, true
}

// isWordAt reports whether text holds a word rune at i, and its size.
func isWordAt(text string, i int) (bool, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return wordByte(c) != 0, 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	return isWordRune(r), size
}

// wordEnd returns the end of the word that starts at start.
func wordEnd(text string, start int) int {
	i := start
	for i < len(text) {
		ok, size := isWordAt(text, i)
		if !ok {
			break
		}
		i += size
	}
	return i
}

// nextWord returns the start of the word after end, the end of a word,
// if the bytes between may part the words of a name.
func nextWord(text string, end int) (int, bool) {
	for i := end; i < len(text) && i-end <= 4; {
		ok, size := isWordAt(text, i)
		if ok {
			return i, isNameGap(text[end:i])
		}
		i += size
	}
	return 0, false
}

// prevWord returns the start of the word before start, the start of a
// word, if the bytes between may part the words of a name.
func prevWord(text string, start int) (int, bool) {
	i := start
	for i > 0 && start-i <= 4 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if r < utf8.RuneSelf && wordByte(byte(r)) != 0 || r >= utf8.RuneSelf && isWordRune(r) {
			break
		}
		i -= size
	}
	if i == 0 || i == start || !isNameGap(text[i:start]) {
		return 0, false
	}
	w := wordStart(text, i)
	return w, w < i
}

// wordStart returns the start of the word that ends at end, or end.
func wordStart(text string, end int) int {
	i := end
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !(r < utf8.RuneSelf && wordByte(byte(r)) != 0 || r >= utf8.RuneSelf && isWordRune(r)) {
			break
		}
		i -= size
	}
	return i
}

// beforeGap returns the start of the word before start, the start of a
// word, if the bytes between are gap ignoring case.
func beforeGap(text string, start int, gap string) (int, bool) {
	e := start - len(gap)
	if e <= 0 || !strings.EqualFold(text[e:start], gap) {
		return 0, false
	}
	w := wordStart(text, e)
	return w, w < e
}

// findWith is find with a glossary or thresholds: the engine's changes,
// the glossary's in the place of those they overlap, then the
// thresholds, numbered anew.
func (e *Engine) findWith(text string, opts Options) []Change {
	base := opts
	base.Glossary, base.Thresholds = nil, Thresholds{}
	g := opts.Glossary
	var gs *glossaryScan
	if g != nil && len(text) <= maxText && g.wants(opts.Categories) {
		gs = g.newScan(e.d, text)
	}
	changes, _ := e.findScan(text, base, gs)
	n := len(changes)
	merged := false
	if gs != nil {
		gs.finish()
		if gc, keeps := g.find(e.d, text, opts.Categories, gs.cands); len(gc) > 0 || len(keeps) > 0 {
			changes, merged = mergeGlossary(changes, gc, keeps), true
		}
	}
	changes = opts.Thresholds.apply(changes)
	if merged || len(changes) != n {
		ids := newChangeIDs(len(changes))
		for i := range changes {
			changes[i].ID = ids.next()
		}
	}
	return changes
}

// mergeGlossary returns the engine's changes that overlap no glossary
// change and no Term written right, with the glossary's changes, in text
// order. Each list is in text order and apart.
func mergeGlossary(engine, glossary []Change, keeps []glossaryMatch) []Change {
	// The spans that hold the engine off, in text order and apart.
	type span struct{ start, end int }
	held := make([]span, 0, len(glossary)+len(keeps))
	for i, k := 0, 0; i < len(glossary) || k < len(keeps); {
		if k == len(keeps) || i < len(glossary) && glossary[i].Start < keeps[k].start {
			held = append(held, span{glossary[i].Start, glossary[i].End})
			i++
		} else {
			held = append(held, span{keeps[k].start, keeps[k].end})
			k++
		}
	}
	out := make([]Change, 0, len(engine)+len(glossary))
	j, g := 0, 0
	for _, c := range engine {
		for j < len(held) && held[j].end <= c.Start {
			j++
		}
		if j < len(held) && held[j].start < c.End {
			continue
		}
		for g < len(glossary) && glossary[g].Start < c.Start {
			out = append(out, glossary[g])
			g++
		}
		out = append(out, c)
	}
	return append(out, glossary[g:]...)
}
