package correction

import "strings"

// dashVerse reports whether the number after the dash at token k-1 is the
// verse of r's chapter: "Revelation 1-7" for 1:7, "Romans 9-5" for 9:5.
// A recognizer writes two numbers said after a book's name so ("revelation
// one seven"), as it glues them elsewhere ("Luke 2444"); a writer who
// means chapter and verse writes a colon, and his dash is a range. So in a
// sermon that writes no colon between digits anywhere and glues a chapter
// and its verse somewhere, a dash between a chapter and a verse that
// chapter has joins them, unless the verse is the next chapter's number;
// elsewhere it stays a range ("Matthew 5-7" beside "John 3:16", "go to
// Romans 6-11").
func (m *matcher) dashVerse(k int, b uint8, r *ref) bool {
	sc := m.sc
	if b == 0 || r.chapterWord || !sc.has(k) || !sc.tok(k).digits() || !m.sermon() || m.writesColons() || !m.gluesVerses() {
		return false
	}
	v, _, _ := m.parseNum(k)
	// Two chapters in a row ("2 Corinthians 8-9") stay a range.
	return v != r.chapter+1 && m.d.hasVerse(b, r.chapter, v)
}

// writesColons reports whether the text writes a colon between two digits
// anywhere, as written references do ("John 3:16", "10:30 am"). It is
// read once, when a dash first asks.
func (m *matcher) writesColons() bool {
	if !m.colonsRead {
		m.colonsRead = true
		t := m.sc.text
		for i := strings.IndexByte(t, ':'); i >= 0; {
			if i > 0 && i+1 < len(t) && isDigitByte(t[i-1]) && isDigitByte(t[i+1]) {
				m.colons = true
				break
			}
			j := strings.IndexByte(t[i+1:], ':')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return m.colons
}

// gluesVerses reports whether the text writes a chapter and its verse as
// one number after a book's name somewhere ("Luke 2444", "isaiah 1412"):
// three or four digits after a book's name and a space that are no
// chapter of the book and split into a chapter and a verse it has. It is
// read once, when a dash first asks.
func (m *matcher) gluesVerses() bool {
	if m.gluedRead {
		return m.glued
	}
	m.gluedRead = true
	t := m.sc.text
	for i := 1; i < len(t); i++ {
		if !isDigitByte(t[i]) || t[i-1] != ' ' || t[i] == '0' {
			continue
		}
		j := i
		for j < len(t) && isDigitByte(t[j]) {
			j++
		}
		if j-i < 3 || j-i > 4 || j < len(t) && (t[j] == ':' || t[j] == '-') {
			i = j
			continue
		}
		k := i - 1
		for k > 0 && (t[k-1] >= 'a' && t[k-1] <= 'z' || t[k-1] >= 'A' && t[k-1] <= 'Z') {
			k--
		}
		if b := m.d.bookNamed(t[k : i-1]); b != 0 {
			n := 0
			for _, c := range []byte(t[i:j]) {
				n = n*10 + int(c-'0')
			}
			if _, _, ok := m.d.splitDigits(b, t[i:j]); ok && !m.d.hasChapter(b, n) {
				m.glued = true
				return true
			}
		}
		i = j
	}
	return false
}

// bookNamed returns the versification index of the book whose name is w
// in any case ("luke", "Psalm"; "corinthians" for 1 Corinthians, the
// first of its name), plus one, or 0.
func (d *dict) bookNamed(w string) uint8 {
	if len(w) < 3 {
		return 0
	}
	if strings.EqualFold(w, "psalm") {
		w = "psalms"
	}
	for k := range d.verses {
		n := d.verses[k].name
		if i := strings.IndexByte(n, ' '); i >= 0 && n[0] >= '1' && n[0] <= '3' {
			n = n[i+1:]
		}
		if strings.EqualFold(n, w) {
			return uint8(k + 1)
		}
	}
	return 0
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// periodVerse reports whether the number after a period at token k-1,
// with no space around it, is the verse of r's chapter, as for dashVerse:
// "First John 4.15", "1. Peter 2.9", written so by the same recognizer.
func (m *matcher) periodVerse(k int, b uint8, r *ref) bool {
	sc := m.sc
	return k > 0 && sc.has(k) && sc.text[sc.tok(k-1).e():sc.tok(k).s()] == "." && m.dashVerse(k, b, r)
}
