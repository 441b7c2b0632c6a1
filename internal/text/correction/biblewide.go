package correction

import (
	_ "embed" // the list of words near the names, read in place
	"strings"
)

// wideIndex lists by first letter the KJV's names of four letters or more
// that a word of a sermon may be heard for though no chapter the text
// cites names it (see matcher.widePerson). It holds no pointer but its
// arrays' and its text's, so that the collector has nothing of it to scan.
type wideIndex struct {
	byLetter  [26][]wideName
	spellings // the names' spellings
}

// wideName is a name of the KJV (a person, a place or a people) of a
// wideIndex.
type wideName struct {
	spelling           // its spellings in wideIndex.spellings
	chapters int32     // how many chapters name it
	books    [2]uint64 // the books that name it, by dict.bookOf
}

// wideMinLetters is the fewest letters of a name widePerson compares a
// word with: "Jehu" and "Orpah" are heard as "jahoo" and "orpa".
const wideMinLetters = 4

// addWideName records the name, a line of data/kjv_people.tsv, among the
// names any word of a sermon may be heard for (see matcher.widePerson):
// a name of four letters or more that is no book's. The index is read
// once finish has run.
func (d *dict) addWideName(name, lower, chapters string, byOSIS map[string]uint8) {
	if len(lower) < wideMinLetters || len(lower) > 255 || d.isBookWord(lower) || lower[0] < 'a' || lower[0] > 'z' {
		return
	}
	var pb, kb [32]byte
	sk := skeleton(pb[:0], appendPhoneticKey(kb[:0], []byte(lower)))
	wi := &d.wide
	n := wideName{spelling: wi.add(name, lower, sk), chapters: int32(strings.Count(chapters, ",") + 1)}
	prev := ""
	for c := range strings.SplitSeq(chapters, ",") {
		osis, _, _ := strings.Cut(c, ".")
		if osis == prev {
			continue // the chapters of a book are listed together
		}
		prev = osis
		if b := byOSIS[osis]; b != 0 {
			n.books[b>>6] |= 1 << (b & 63)
		}
	}
	i := lower[0] - 'a'
	wi.byLetter[i] = append(wi.byLetter[i], n)
}

// widePerson returns the name of the KJV, a person, place or people of
// a book the text cites, that the word w of a sermon is heard for when no
// rule of the cited chapters explains it, or "". The word has five
// letters or more and is in no English list, large or small, nor a list
// of modern names or of the stems of contractions (see dict.wideNear); it
// is no KJV verb form in -eth or -est and no KJV name with letters added
// (see nameWithMore). It begins with the name's letter, or both with a
// vowel; its skeleton is the name's, of three sounds or more (or, from
// seven letters, the name's with one sound not heard, see skeletonHeard);
// a word of a people's form is compared only with peoples; and it is
// within a third of the name's letters of it, half for a word of nine
// letters or more ("elummites" for the Elamites of Acts 2, "naphali" for
// Naphtali in a sermon on Isaiah 9, "philillip" for Philip). One of a
// people is the people's singular ("the laeotisian church": Laodicean). Of
// several such names the nearest in letters is taken, then the name of
// more chapters.
func (m *matcher) widePerson(w string) string {
	var lb, kb, sb [32]byte
	lw, key, ok := m.heardName(w, &lb, &kb)
	if !ok || lw[0] < 'a' || lw[0] > 'z' || archaicVerb(lw) {
		return ""
	}
	if m.d.wideNear.has(string(lw)) || m.nameWithMore(lw) {
		return ""
	}
	name := wideNearest(&m.d.wide, lw, skeleton(sb[:0], key), &m.citedBooks)
	if strings.HasSuffix(name, "s") && lw[len(lw)-1] != 's' && groupName(strings.ToLower(name)) {
		name = name[:len(name)-1] // one of a people: "the laeotisian church", Laodicean
	}
	return name
}

// wideNearest returns the name of names nearest the word lw whose
// skeleton is sk, as widePerson compares them, or ""; cited is the set of
// the books the text cites, by dict.bookOf.
func wideNearest(wi *wideIndex, lw, sk []byte, cited *[2]uint64) string {
	if len(sk) < 3 {
		return ""
	}
	var best *wideName
	bestD := 0
	group := groupName(string(lw))
	for c := byte('a'); c <= 'z'; c++ {
		if !sameOnset(c, lw[0]) {
			continue
		}
		for i := range wi.byLetter[c-'a'] {
			p := &wi.byLetter[c-'a'][i]
			skel, lower := wi.skel(p.spelling), wi.lower(p.spelling)
			if !(skeletonHeard(sk, []byte(skel), len(lw)) || bHeardAsV(sk, skel)) || group != groupName(lower) {
				continue // "the lycanian language" is no Lycaonia
			}
			if p.books[0]&cited[0] == 0 && p.books[1]&cited[1] == 0 {
				continue // a name of no book the text cites
			}
			bar := len(lower) / 3
			if len(lw) >= 9 {
				bar = len(lower) / 2
			}
			dd := editDistance(lw, lower, bar)
			if dd > bar || szOnly(lw, lower) || modernSpelling(lw, lower) {
				continue
			}
			if best == nil || dd < bestD || dd == bestD && p.chapters > best.chapters {
				best, bestD = p, dd // of two as near, the name of more chapters
			}
		}
	}
	if best == nil {
		return ""
	}
	return wi.name(best.spelling)
}

// sortedLines is the text of a list of words, one a line, in byte order,
// with no comment line: a word is looked up in it without building a set.
type sortedLines string

// wideNearText is data/words_near_bible_names.txt, read in place
// (see wideNearList).
//
//go:embed data/words_near_bible_names.txt
var wideNearText string

// wideNearList returns the words of data/words_near_bible_names.txt, its
// comment lines at the top left out, without a copy: the file is
// generated in byte order (see TestWordsNearBibleNamesAreCurrent), which
// TestTheWordsNearBibleNamesAreInByteOrder checks.
func wideNearList() sortedLines {
	s := wideNearText
	for strings.HasPrefix(s, "#") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return sortedLines(s)
}

// has reports whether w is one of the lines of l.
func (l sortedLines) has(w string) bool {
	lo, hi := 0, len(l) // a line starts at lo; the lines from hi on are above w
	for lo < hi {
		mid := lo + (hi-lo)/2
		for mid > lo && l[mid-1] != '\n' {
			mid--
		}
		end := strings.IndexByte(string(l[mid:hi]), '\n')
		if end < 0 {
			end = hi - mid
		}
		switch line := string(l[mid : mid+end]); {
		case line == w:
			return true
		case line < w:
			lo = mid + end + 1
		default:
			hi = mid
		}
	}
	return false
}

// contractionCut reports whether the word that ends at offset end of text
// is the first part of a contraction ("couldn't", "wasn’t", "they'll"),
// not a possessive ("naibal's wife").
func contractionCut(text string, end int) bool {
	rest := text[end:]
	switch {
	case strings.HasPrefix(rest, "'"):
		rest = rest[1:]
	case strings.HasPrefix(rest, "\u2019"):
		rest = rest[len("\u2019"):]
	default:
		return false
	}
	n := 0
	for n < len(rest) && rest[n]|0x20 >= 'a' && rest[n]|0x20 <= 'z' {
		n++
	}
	return n > 0 && !(n == 1 && rest[0]|0x20 == 's')
}

// archaicVerb reports whether lw is a verb form of the KJV's English, in
// -eth or -est ("commendeth", "sendeth"), which SCOWL does not hold: a word
// of a verse read aloud, not a name.
func archaicVerb(lw []byte) bool {
	s := string(lw)
	return strings.HasSuffix(s, "eth") || strings.HasSuffix(s, "est")
}

// nameWithMore reports whether the word lw is a KJV name of four letters
// or more with one to three letters added after it: a plural or a possessive whose
// apostrophe was lost ("herods"), a modern name made of one ("michaela"),
// a word of another language ("christos"); never a name heard wrong.
func (m *matcher) nameWithMore(lw []byte) bool {
	for n := max(wideMinLetters, len(lw)-3); n < len(lw); n++ {
		if _, ok := m.d.kjvNames[string(lw[:n])]; ok {
			return true
		}
	}
	return false
}

// glossWord reports whether w is a word around a word that a preacher
// explains as a word of another language: "the word philadelphoi", "or
// kadosh in hebrew", "christ means christos".
func glossWord(w string) bool {
	switch w {
	case "word", "words", "greek", "hebrew", "aramaic", "latin", "means", "meaning", "meant", "term":
		return true
	}
	return false
}

// glossed reports whether the word text[start:end] is said as a word of
// another language being explained: a glossWord is among the two
// words before it or the two after it.
func glossed(text string, start, end int) bool {
	lo := start
	for n := 0; n < 2 && lo > 0; n++ {
		lo = wordStartBefore(text, lo)
	}
	hi := end
	for n := 0; n < 2 && hi < len(text); n++ {
		_, hi = wordAfterAny(text, hi)
	}
	var b [16]byte
	for i := lo; i < hi; {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < hi && isWordByte(text[j]) {
			j++
		}
		if i != start && j-i <= len(b) {
			if glossWord(string(appendLower(b[:0], text[i:j]))) {
				return true
			}
		}
		i = j
	}
	return false
}

// allCapitals reports whether the word w is written in capitals only, as
// an acronym or a brand is ("LLBAN").
func allCapitals(w string) bool {
	for i := range len(w) {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	return true
}

// modernSpelling reports whether the word lw is the KJV's name written
// as modern English writes it, a people's "-anes" as "-ans" ("the
// nicolaitans" of Revelation 2, the KJV's Nicolaitanes): right as said.
func modernSpelling(lw []byte, name string) bool {
	stem, ok := strings.CutSuffix(name, "anes")
	return ok && string(lw) == stem+"ans"
}

// bHeardAsV reports whether the skeleton sk is the name's with a b heard
// as a v, as modern Hebrew says it ("nadav" for Nadab, "bashiva" for
// Bathsheba).
func bHeardAsV(sk []byte, name string) bool {
	if len(sk) != len(name) {
		return false
	}
	v := false
	for i := range sk {
		switch {
		case sk[i] == name[i]:
		case sk[i] == 'F' && name[i] == 'P':
			v = true
		default:
			return false
		}
	}
	return v
}
