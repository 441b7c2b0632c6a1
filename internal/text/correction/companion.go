package correction

import (
	"fmt"
	"slices"
	"strings"
)

// companionIndex holds every name of data/kjv_people.tsv with the
// chapters that name it, for the rule of a name said beside the names of
// its own chapters (see matcher.companionName). It holds no pointer but
// its arrays', so that the collector has nothing of it to scan.
type companionIndex struct {
	byHash    map[uint64]int32 // the names by the keyHash of their lowercase form, by their index in names
	names     []companionName  // in the order of the file
	byLetter  [26][]int32      // the names of four letters or more, by first letter
	all       []uint16         // the chapters of all names, which each name's slices
	spellings                  // the names' spellings, each followed by its spelling as it sounds
}

// companionName is a name of the KJV and the chapters that name it.
type companionName struct {
	spelling        // its spellings in companionIndex.spellings
	nf       uint8  // the length of its spelling as it sounds (see foldSpelling), after its spellings
	place    bool   // a place's name, not a person's or a people's
	group    bool   // a people's name (see groupName)
	lo, hi   uint32 // its chapters (see dict.chapterBase), ascending: companionIndex.all[lo:hi]
}

// fold returns the spelling as it sounds of p.
func (ci *companionIndex) fold(p *companionName) string {
	o := p.end()
	return ci.text[o : o+uint32(p.nf)]
}

// chapters returns the chapters of p.
func (ci *companionIndex) chapters(p *companionName) []uint16 {
	return ci.all[p.lo:p.hi]
}

// lookup returns the index of the name whose lowercase form is lw.
func (ci *companionIndex) lookup(lw []byte) (int32, bool) {
	k, ok := ci.byHash[keyHash(string(lw))]
	if !ok || ci.lower(ci.names[k].spelling) != string(lw) {
		return -1, false
	}
	return k, true
}

// companionCand is a name a word may be heard for by the rule of
// companions (see matcher.companionCandidates).
type companionCand struct {
	name int32 // its index in companionIndex.names
	dist uint8 // the word's distance from it in letters, both spelt as they sound
	same bool  // the word's skeleton is the name's
}

// companionWindow is how many words either side of a word companionName
// reads for the names said beside it.
const companionWindow = 12

// companionRare is the most chapters a name said beside a word may have
// to be, alone, the evidence of the word's name: a name of a few
// chapters ("absalom", "hamath"), not "david" or "paul".
const companionRare = 20

// companionCommon is the most chapters a name said beside a word may
// have to be evidence at all: "israel", "jesus", "moses" and "david" are
// said beside any word of a sermon.
const companionCommon = 100

// addCompanion records the name, a line of data/kjv_people.tsv, and its
// chapters (see companionIndex); finish ends the reading.
func (d *dict) addCompanion(name, lower, chapters string, byOSIS map[string]uint8) error {
	ci := &d.companions
	if ci.byHash == nil {
		ci.byHash = make(map[uint64]int32, 3500)
		ci.all = make([]uint16, 0, 1<<14) // the file's 15,000 chapters of names, in one array
		ci.buf = make([]byte, 0, 1<<16)
	}
	if len(name) != len(lower) || len(name) > 40 {
		return fmt.Errorf("bad name %q", name)
	}
	var pb [64]byte
	sk := skeleton(pb[:0], appendPhoneticKey(pb[32:32], []byte(lower)))
	n := companionName{spelling: ci.add(name, lower, sk), place: d.isPlaceName(name, lower), group: groupName(lower), lo: uint32(len(ci.all))}
	f := foldSpelling(pb[:0], []byte(lower))
	ci.buf = append(ci.buf, f...)
	n.nf = uint8(len(f))
	prev, b := "", uint8(0)
	for c := range strings.SplitSeq(chapters, ",") {
		osis, ch, _ := strings.Cut(c, ".")
		if osis != prev {
			prev, b = osis, byOSIS[osis] // the chapters of a book are listed together
		}
		k := 0
		for i := 0; i < len(ch) && k < 1000; i++ {
			if ch[i] < '0' || ch[i] > '9' {
				k = 0
				break
			}
			k = k*10 + int(ch[i]-'0')
		}
		if b == 0 || k == 0 || !d.hasChapter(b, k) {
			return fmt.Errorf("bad chapter %q", c)
		}
		ci.all = append(ci.all, uint16(int(d.chapterBase[b-1])+k-1))
	}
	n.hi = uint32(len(ci.all))
	slices.Sort(ci.all[n.lo:n.hi])
	k := int32(len(ci.names))
	ci.names = append(ci.names, n)
	if _, ok := ci.byHash[keyHash(lower)]; !ok {
		ci.byHash[keyHash(lower)] = k
	}
	if c := lower[0]; len(lower) >= wideMinLetters && c >= 'a' && c <= 'z' && !d.isBookWord(lower) {
		ci.byLetter[c-'a'] = append(ci.byLetter[c-'a'], k)
	}
	return nil
}

// companionCandidates returns the names a word w may be heard for by the
// rule of companions, or nil: a word no list holds (as heardName, with a
// key of two sounds or more), in neither of SCOWL's large lists (see
// dict.wideNear), no KJV verb form and no KJV name with letters added;
// and the names of 100 chapters or fewer (see companionCommon) of four
// letters or more that begin with its letter, both with a vowel or both
// with the sound of a k ("kulna" for Calneh), whose skeleton it may be
// heard for (see companionSkeleton), within half the name's letters,
// rounded up, once both are spelt as they sound (see foldSpelling), and
// that are more than the word with an s ("euodia": Euodias as a modern
// translation writes it, right as said).
func (m *matcher) companionCandidates(w string) []companionCand {
	var lb, kb, sb, fa [32]byte
	lw, key, ok := m.heardNameKeyFrom(w, &lb, &kb, 2, 4) // four letters: see fourLetterNames
	if !ok || lw[0] < 'a' || lw[0] > 'z' || archaicVerb(lw) {
		return nil
	}
	if m.d.wideNear.has(string(lw)) || m.nameWithMore(lw) {
		return nil
	}
	sk := skeleton(sb[:0], key)
	if len(sk) < 2 {
		return nil
	}
	fw := foldSpelling(fa[:0], lw)
	group := groupName(string(lw))
	ci := &m.d.companions
	var out []companionCand
	for c := byte('a'); c <= 'z'; c++ {
		if !sameOnset(c, lw[0]) && !(soundsK(c) && soundsK(fw[0])) {
			continue // "kulna" for Calneh
		}
		for _, k := range ci.byLetter[c-'a'] {
			p := &ci.names[k]
			if group != p.group || p.hi-p.lo > companionCommon || !companionSkeleton(sk, ci.skel(p.spelling)) {
				continue
			}
			pl := ci.lower(p.spelling)
			bar := (len(pl) + 1) / 2
			dd := editDistance(fw, ci.fold(p), bar)
			if dd > bar || szOnly(lw, pl) || modernSpelling(lw, pl) || len(pl) == len(lw)+1 && pl[len(lw)] == 's' && pl[:len(lw)] == string(lw) {
				continue // "euodia and syntyche": Euodias as a modern translation writes it
			}
			out = append(out, companionCand{k, uint8(dd), string(sk) == ci.skel(p.spelling)})
		}
	}
	return out
}

// soundsK reports whether a word beginning with the letter c may begin
// with the sound of a k: c, k or q, as foldSpelling writes them.
func soundsK(c byte) bool {
	return c == 'c' || c == 'k' || c == 'q'
}

// companionSkeleton reports whether a word whose skeleton is sk may be
// heard for a name whose skeleton is name when names of the name's
// chapters are said beside it: the same; the name's with one sound not
// heard ("deeus", TS, for Demas, TNS); or the name's with a p heard for an
// f or an f for a p, or a c said as a k heard for one said as an s
// ("ludicans" for the Laodiceans).
func companionSkeleton(sk []byte, name string) bool {
	if string(sk) == name {
		return true
	}
	if len(name) == len(sk)+1 {
		i := 0
		for i < len(sk) && sk[i] == name[i] {
			i++
		}
		return string(sk[i:]) == name[i+1:]
	}
	if len(name) != len(sk) {
		return false
	}
	diff := 0
	for i := range sk {
		if sk[i] != name[i] {
			if !(sk[i] == 'P' && name[i] == 'F' || sk[i] == 'F' && name[i] == 'P' || sk[i] == 'K' && name[i] == 'S') {
				return false
			}
			diff++
		}
	}
	return diff == 1
}

// foldSpelling appends to out the lowercase word w spelt as it sounds, for
// comparing letters: ph as f, ch as k, c and q as k but a c before e, i
// and y, y as i, and a letter written twice once ("tychicus" and "takus",
// "pamphylia" and "panilia").
func foldSpelling(out, w []byte) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		var next byte
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch {
		case c == 'p' && next == 'h':
			c = 'f'
			i++
		case c == 'c' && next == 'h':
			c = 'k'
			i++
		case c == 'c' && next != 'e' && next != 'i' && next != 'y', c == 'q':
			c = 'k'
		case c == 'y':
			c = 'i'
		}
		if len(out) > 0 && out[len(out)-1] == c {
			continue
		}
		out = append(out, c)
	}
	return out
}

// companionName returns the name of cands (see companionCandidates) that
// the word text[start:end] is heard for by what is said around it, or "".
// Each of these is one piece of evidence for a name: a cited chapter that
// names it; a title or naming cue before the word (see titleBefore); and
// each name said within companionWindow words of it, or found there by
// another rule (found), that shares a chapter with it, of those of more
// than companionRare chapters one only, a person's for a person and a
// place's or a people's for a place but in a cited chapter, never a
// people's for a person. A name that is also an English word ("mark",
// "lot"), a book's ("nehemiah 8") or one of more than companionCommon
// chapters is none. The name takes two pieces of evidence, or one name of
// companionRare chapters or fewer when the word has the name's skeleton
// and is within a third of its letters ("onan and shalah": Shelah);
// "aristotarkus mark justice ... luke deeus" is Demas of Colossians 4:14,
// "kulna or hamath or gath" Calneh of Amos 6:2. The word after "a" or
// "an", after a modern given name or a KJV name of no chapter of the name
// is none (see companionAfter). Of several names the one of the most
// evidence is taken, then one of the same skeleton, then the nearest in
// letters.
func (m *matcher) companionName(cands []companionCand, text string, start, end int, found func(w string) string) string {
	return m.companionPick(cands, text, start, end, found, false)
}

// companionPick is companionName; four, for a word of four letters (see
// fourLetterNames), takes two pieces of evidence always, one name of few
// chapters alone being none, and a kin word before the word is one (see
// kinBefore).
func (m *matcher) companionPick(cands []companionCand, text string, start, end int, found func(w string) string, four bool) string {
	if len(cands) == 0 {
		return ""
	}
	ci := &m.d.companions
	var near [2 * companionWindow]int32
	n := 0
	var b [24]byte
	see := func(s, e int) {
		if e-s < 3 || e-s > len(b) || n == len(near) {
			return
		}
		lw := appendLower(b[:0], text[s:e])
		k, ok := ci.lookup(lw)
		if !ok && e-s+1 <= len(b) {
			k, ok = ci.lookup(append(lw, 's')) // "nympha": Nymphas, its s not heard
		}
		if !ok && found != nil {
			if name := found(text[s:e]); name != "" && len(name) <= len(b) {
				k, ok = ci.lookup(appendLower(b[:0], name))
			}
		}
		if !ok || isEnglishWord(string(lw)) || m.d.isBookWord(string(lw)) || ci.names[k].hi-ci.names[k].lo > companionCommon || slices.Contains(near[:n], k) {
			return
		}
		near[n] = k
		n++
	}
	eachNeighbour(text, start, end, companionWindow, see)
	cue := titleBefore(text, start) || four && kinBefore(text, start)
	if n == 0 && !cue {
		return ""
	}
	prev, ok := m.companionAfter(text, start, end)
	if !ok {
		return ""
	}
	best, bestD, bestN, bestSame := "", 0, 0, false
	for _, c := range cands {
		p := &ci.names[c.name]
		pc := ci.chapters(p)
		support, rare, common := 0, false, false
		cited := m.citedOne(pc)
		if cited {
			support++ // a name of a cited chapter
		}
		if cue {
			support++ // "the temple of deeon": a name's place in the sentence
		}
		for _, k := range near[:n] {
			q := &ci.names[k]
			qc := ci.chapters(q)
			if k == c.name || ci.lower(q.spelling) == ci.lower(p.spelling) || !shareChapter(pc, qc) {
				continue
			}
			if q.person() != p.person() && (!cited || !m.citedShared(pc, qc) || q.group) {
				continue // a person is said beside people, a place beside places ("ethiopia" is no evidence of Vashti), but in the chapter read; a people ("the levites") is no person's
			}
			if len(qc) <= companionRare {
				support++
				rare = true
			} else if !common {
				support++
				common = true // names of many chapters share a genealogy with any name ("abraham", "isaac" and Jared of Luke 3): one counts
			}
		}
		if support < 2 && (four || !(support == 1 && rare && c.same && int(c.dist) <= int(p.n)/3)) {
			continue
		}
		if prev >= 0 && !shareChapter(pc, ci.chapters(&ci.names[prev])) {
			continue // "jehovah jireh": a word after a name of other chapters is a surname
		}
		if best == "" || support > bestN || support == bestN && (c.same && !bestSame || c.same == bestSame && int(c.dist) < bestD) {
			best, bestD, bestN, bestSame = ci.name(p.spelling), int(c.dist), support, c.same
		}
	}
	return best
}

// isPlaceName reports whether name, lower in lowercase, is a place's own
// name, not only a spelling of another place's ("Aaron" of Arnon).
func (d *dict) isPlaceName(name, lower string) bool {
	n := d.root[lower]
	return n != nil && n.place != nil && n.place.rule != rulePlaceVariant && strings.EqualFold(n.place.name, name)
}

// person reports whether n is a person's name, not a place's or a
// people's.
func (n *companionName) person() bool {
	return !n.place && !n.group
}

// citedOne reports whether the text cites one of the chapters chs.
func (m *matcher) citedOne(chs []uint16) bool {
	for _, k := range chs {
		if m.chapters[k>>6]&(1<<(k&63)) != 0 {
			return true
		}
	}
	return false
}

// citedShared reports whether the text cites a chapter of both a and b,
// ascending lists of chapters.
func (m *matcher) citedShared(a, b []uint16) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			if k := a[i]; m.chapters[k>>6]&(1<<(k&63)) != 0 {
				return true
			}
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// shareChapter reports whether the ascending lists of chapters a and b
// have one in common.
func shareChapter(a, b []uint16) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// companionOf returns the name the word text[start:end], which no other
// rule of people explains, is heard for by the names said beside it (see
// companionName), or ""; cache holds each word's candidates, read once.
func (m *matcher) companionOf(cache *map[string][]companionCand, text string, start, end int, found func(w string) string) string {
	w := text[start:end]
	cands, ok := (*cache)[w]
	if !ok {
		cands = m.companionCandidates(w)
		if *cache == nil {
			*cache = map[string][]companionCand{}
		}
		(*cache)[w] = cands
	}
	return m.companionName(cands, text, start, end, found)
}

// companionBarred reports whether the word text[start:end] is no name the
// rule of companions may suggest, as widePerson's words are not: the first
// part of a contraction, a word of another language explained, a word in
// capitals or on a line of another language. A word after a name is one
// more name of a list ("luke deeus"), not a surname.
func (m *matcher) companionBarred(text string, start, end int) bool {
	return contractionCut(text, end) || glossed(text, start, end) || allCapitals(text[start:end]) || m.foreignLine(start)
}

// companionAfter reads the word before offset start of text for the rule
// of companions, the word text[start:end] after it: it returns the index
// of the KJV name it is, or -1, and false when the word cannot be a name
// by its companions: after "a" or "an" ("like a rhema": a noun), after a
// modern given name or a KJV name of no chapter (a surname), or as the
// second part of a KJV name said in two ("jehovah jireh").
func (m *matcher) companionAfter(text string, start, end int) (int32, bool) {
	s := wordStartBefore(text, start)
	e := s
	for e < start && isWordByte(text[e]) {
		e++
	}
	var b [48]byte
	if e-s+end-start > len(b) || e == s {
		return -1, true
	}
	lw := appendLower(b[:0], text[s:e])
	if string(lw) == "a" || string(lw) == "an" {
		return -1, false
	}
	if _, ok := m.d.kjvNames[string(appendLower(lw, text[start:end]))]; ok {
		return -1, false // "jehovah jireh": the two parts of one name, Jehovahjireh
	}
	if k, ok := m.d.companions.lookup(lw); ok && !isEnglishWord(string(lw)) {
		return k, true
	}
	if _, ok := m.d.kjvNames[string(lw)]; ok && !isEnglishWord(string(lw)) {
		return -1, false // a name of no chapter, "jehovah jireh"
	}
	_, modern := m.d.modernNames[string(lw)]
	return -1, !modern
}

// titleBefore reports whether the words before offset start of text say
// that a name follows: a title ("king", "prophet", "apostle"), or a
// naming cue ("named", "the son of", see namingCue), or "of" after a word
// a name of a god, a place or a kin follows ("the temple of", "the god
// of", "the land of", "the brother of").
func titleBefore(text string, start int) bool {
	p2, p1 := twoWordsBefore(text, start)
	if namingCue(p2, p1) {
		return true
	}
	for _, w := range [...]string{"king", "queen", "prophet", "prophetess", "apostle"} {
		if strings.EqualFold(p1, w) {
			return true
		}
	}
	if !strings.EqualFold(p1, "of") {
		return false
	}
	for _, w := range [...]string{"temple", "god", "gods", "house", "land", "city", "brother", "sister"} {
		if strings.EqualFold(p2, w) {
			return true
		}
	}
	return false
}
