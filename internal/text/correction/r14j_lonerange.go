package correction

import "strings"

// The evidence of issue 24's fourteenth round (J), found on the transcripts
// that the podcast feeds of many churches publish, in the caption shape,
// which no earlier round read (see docs/performance.md, "Fourteenth round
// J").

// dashMayBeAVerse reports whether r, a reference to book b, is chapters
// joined by a dash ("acts 1-8") whose second number is a verse of the first,
// in lowercase captions that write no colon between digits: the dash may
// join a chapter and its verse.
func (m *matcher) dashMayBeAVerse(b uint8, r *ref) bool {
	return b != 0 && r.chapterEnd > r.chapter+1 && !r.chapterWord && m.sc.refGap(r.chapterTok).dash &&
		m.d.hasVerse(b, r.chapter, r.chapterEnd) && m.captionCase() && !m.writesColons()
}

// loneRange reports whether r, a dash between a chapter and a verse that
// chapter has ("acts 1-8"), is a book the captions name only there: the
// verse a sermon quotes once ("acts 1-8 is our ministry mandate, first in
// jerusalem then to judea and samaria": Acts 1:8), or chapters 1 to 8?
// Captions write no colon, so the recognizer's dash may join a chapter and
// its verse; a sermon that reads a range of chapters names the book again
// ("matthew 5-7" and "matthew 5 verse 3"). So in lowercase captions that
// write no colon between digits, a range of chapters whose book is named
// nowhere else is left as written.
func (m *matcher) loneRange(b uint8, r *ref) bool {
	if !m.dashMayBeAVerse(b, r) {
		return false
	}
	return m.namedOnce.get(b, func() bool { return m.namesOnce(b) })
}

// namesOnce reports whether the text names book b once at most, by the last
// word of its name, singular or plural.
func (m *matcher) namesOnce(b uint8) bool {
	name := strings.ToLower(m.d.verses[b-1].name)
	if i := strings.LastIndexByte(name, ' '); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, "s") // "psalm" and "psalms", "act" in "acts"
	n := 0
	eachMention(m.sc.text, name, true, func(int) bool {
		n++
		return n < 2
	})
	return n < 2
}

// eachMention calls f with the offset of each mention of name in text: name
// as written (lowercase captions write it so), as a whole word, or with an
// "s" after it when plural; f returns false to stop.
func eachMention(text, name string, plural bool, f func(i int) bool) {
	for i := strings.Index(text, name); i >= 0; {
		e := i + len(name)
		if plural && e < len(text) && text[e] == 's' {
			e++
		}
		if (i == 0 || !isWordByte(text[i-1])) && (e == len(text) || !isWordByte(text[e])) && !f(i) {
			return
		}
		j := strings.Index(text[e:], name)
		if j < 0 {
			return
		}
		i = e + j
	}
}
