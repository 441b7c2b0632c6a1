package correction

import "strings"

// docNameTimes is how many times as often as a word, at least, a sermon
// must write a name itself for the word near it in letters to be heard
// for it by that alone (see matcher.documentName).
const docNameTimes = 3

// documentName returns the name that the word text[start:end] of a
// sermon, of five letters or more, which no list holds (as
// companionCandidates reads it), is heard for because the whole document
// writes that name itself docNameTimes as often as the word at least:
// "now amlon is the firstborn" in a sermon that says Amnon twenty-five
// times, "god sends naibal's wife" (Nabal, three times). The name is one
// of data/kjv_people.tsv of companionCommon chapters or fewer ("chast" is
// no Christ) and no English word ("christian") that begins with the
// word's letter, within two letters of the word and a third of its own
// letters, both spelt as they sound (see foldSpelling), or that is the
// word with another first letter ("his sister hamar": Tamar); of several
// names the one the document writes most is taken, and none when two are
// written as often. The word after "a" or "an", a modern given name, a
// KJV name of no chapter or one of no chapter of the name's (see
// companionAfter), or on a line of another language (see accentedLine),
// is none. chapterPersons takes it before the name of round 11B's reading
// of the whole Bible (see widePerson) and before any other rule's name
// the text never writes ("onto abslon": Absalom, not Abishalom). dn holds
// what was read of the text before, each word and each name read once.
func (m *matcher) documentName(text string, start, end int, dn *docNames) string {
	w := text[start:end]
	k, ok := dn.words[w]
	if !ok {
		k = m.documentNameOf(text, w, dn)
		if dn.words == nil {
			dn.words = map[string]int32{}
		}
		dn.words[w] = k
	}
	if k < 0 {
		return ""
	}
	ci := &m.d.companions
	prev, ok := m.companionAfter(text, start, end)
	if !ok || prev >= 0 && !shareChapter(ci.chapters(&ci.names[k]), ci.chapters(&ci.names[prev])) || accentedLine(text, start) {
		return "" // "jehovah jireh": a word after a name of other chapters is a surname
	}
	return ci.name(ci.names[k].spelling)
}

// docNames holds what documentName has read of one text: the name each
// word is heard for by the names the text writes, or -1, and the times
// the text writes each name it has counted.
type docNames struct {
	words   map[string]int32
	counts  map[int32]int
	written map[string]int // the times the text writes each name another rule read (see writes)
}

// writes returns how many times text writes name, a name of the KJV, as
// a word (see countWord), read once for each name.
func (dn *docNames) writes(text, name string) int {
	n, ok := dn.written[name]
	if !ok {
		var b [48]byte
		if len(name) > len(b) {
			return 0
		}
		n = countWord(text, string(appendLower(b[:0], name)))
		if dn.written == nil {
			dn.written = map[string]int{}
		}
		dn.written[name] = n
	}
	return n
}

// documentNameOf returns the index of the name the word w of text is heard
// for by documentName wherever it is said, or -1.
func (m *matcher) documentNameOf(text, w string, dn *docNames) int32 {
	var lb, kb, fa [32]byte
	lw, _, ok := m.heardNameKeyFrom(w, &lb, &kb, 2, 5)
	if !ok || lw[0] < 'a' || lw[0] > 'z' || archaicVerb(lw) {
		return -1
	}
	if m.d.wideNear.has(string(lw)) || m.nameWithMore(lw) {
		return -1
	}
	fw := foldSpelling(fa[:0], lw)
	ci := &m.d.companions
	best, bestN, tie := int32(-1), 0, false
	see := func(k int32, d int) {
		p := &ci.names[k]
		pl := ci.lower(p.spelling)
		if p.hi-p.lo > companionCommon || d > 2 || 3*d > len(pl) || szOnly(lw, pl) || isEnglishWord(pl) {
			return // names a sermon says everywhere, or too far
		}
		n, ok := dn.counts[k]
		if !ok {
			n = countWord(text, pl)
			if dn.counts == nil {
				dn.counts = map[int32]int{}
			}
			dn.counts[k] = n
		}
		switch {
		case n == 0 || n < bestN:
		case n == bestN && pl != ci.lower(ci.names[best].spelling):
			tie = true
		case n > bestN:
			best, bestN, tie = k, n, false
		}
	}
	for _, k := range ci.byLetter[lw[0]-'a'] {
		see(k, editDistance(fw, ci.fold(&ci.names[k]), 2))
	}
	var ob [32]byte
	other := append(ob[:0], lw...)
	for c := byte('a'); c <= 'z'; c++ {
		if other[0] = c; c != lw[0] {
			if k, ok := ci.lookup(other); ok {
				see(k, 1) // "his sister hamar": Tamar, its first sound heard wrong
			}
		}
	}
	if best < 0 || tie || docNameTimes*countWord(text, string(lw)) > bestN {
		return -1 // a word the sermon says often is a word of its own
	}
	return best
}

// countWord returns how many times text holds the lowercase word lw as a
// whole word, its first letter of either case and the rest lowercase
// ("Absalom", "absalom", "absalom's").
func countWord(text, lw string) int {
	if len(lw) < 2 {
		return 0
	}
	tail, n := lw[1:], 0
	for i := 1; i < len(text); {
		k := strings.Index(text[i:], tail)
		if k < 0 {
			break
		}
		s := i + k - 1
		e := i + k + len(tail)
		if text[s]|0x20 == lw[0] && (s == 0 || !isWordByte(text[s-1])) && (e == len(text) || !isWordByte(text[e]) || text[e] == '\'') {
			n++
		}
		i += k + 1
	}
	return n
}
