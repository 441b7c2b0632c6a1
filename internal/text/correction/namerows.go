package correction

//go:generate go run ./gen/kjvrows -people data/kjv_people.tsv -o data/kjv_name_rows.txt

import (
	_ "embed" // the lists of names, read in place
	"strings"
)

// kjvNameRows holds the lists of names the KJV says in a row, one a line,
// its names separated by spaces (see gen/kjvrows).
//
//go:embed data/kjv_name_rows.txt
var kjvNameRows string

// nameRows indexes the KJV's lists of names said in a row ("Shadrach,
// Meshach, and Abed-nego", "Peter and James and John") by each of their
// names, for the names heard among the names said with them (see
// matcher.rowName). It holds no pointer but its arrays'.
type nameRows struct {
	byName map[uint64][2]uint32 // by the keyHash of a name, its places: occ[lo:hi]
	occ    []rowPlace
	shapes [rowMaxLen + 1]uint32 // by a name's length, a bit for each first letter a to z of a name of some row
}

// rowMaxLen is the longest name of a row places reads.
const rowMaxLen = 24

// rowPlace is a name's place in a list: the offset of the list's line in
// kjvNameRows and the name's index in it.
type rowPlace struct {
	line uint32
	slot uint8
}

// buildNameRows indexes kjvNameRows.
func buildNameRows() nameRows {
	byName := map[uint64][]rowPlace{}
	var shapes [rowMaxLen + 1]uint32
	for off := 0; off < len(kjvNameRows); {
		end := strings.IndexByte(kjvNameRows[off:], '\n')
		if end < 0 {
			end = len(kjvNameRows) - off
		}
		for slot, name := range strings.Fields(kjvNameRows[off : off+end]) {
			if c := name[0] | 0x20; len(name) <= rowMaxLen && c >= 'a' && c <= 'z' {
				shapes[len(name)] |= 1 << (c - 'a')
			}
			h := keyHash(name)
			byName[h] = append(byName[h], rowPlace{uint32(off), uint8(slot)})
		}
		off += end + 1
	}
	nl := nameRows{byName: make(map[uint64][2]uint32, len(byName)), shapes: shapes}
	for h, ps := range byName {
		nl.byName[h] = [2]uint32{uint32(len(nl.occ)), uint32(len(nl.occ) + len(ps))}
		nl.occ = append(nl.occ, ps...)
	}
	return nl
}

// places returns the places in the lists of the name w, in any case.
func (nl *nameRows) places(w string) []rowPlace {
	if len(w) > rowMaxLen || len(w) == 0 || nl.shapes[len(w)]&(1<<(((w[0]|0x20)-'a')&31)) == 0 {
		return nil // no name of that length and first letter: most words, at the cost of a load
	}
	r, ok := nl.byName[keyHash(w)]
	if !ok {
		return nil
	}
	return nl.occ[r[0]:r[1]]
}

// list returns the names of the list whose line starts at off.
func rowAt(off uint32) []string {
	s := kjvNameRows[off:]
	if end := strings.IndexByte(s, '\n'); end >= 0 {
		s = s[:end]
	}
	return strings.Fields(s)
}

// rowWindow is how many words either side of a word listName reads.
const rowWindow = 2

// listName returns the name of the KJV that the word text[start:end], which
// no rule explains, is heard for among the names said with it in one of
// the KJV's lists: the words beside it, "and", "or" and "of" left out, are
// the list's names in its order, at least one as the KJV spells it, and
// three or more of the list's places are filled so, the word and any other
// word no list holds by a word of the name's first letter ("shadrach
// mesach and abedo": Meshach, Abednego of Daniel 3; "gideon barak samson
// jeffer": Jephthae of Hebrews 11:32). It returns "" for no such list.
func (m *matcher) rowName(text string, start, end int) string {
	// The words of the window, the word itself at rowWindow.
	var win [2*rowWindow + 1]string
	win[rowWindow] = text[start:end]
	i := start
	for k := rowWindow - 1; k >= 0; {
		s := wordStartBefore(text, i)
		if s >= i || rowBreak(text[s:i]) {
			break
		}
		e := s
		for e < i && isWordByte(text[e]) {
			e++
		}
		i = s
		if w := text[s:e]; !rowJoiner(w) {
			win[k] = w
			k--
		}
	}
	j := end
	for k := rowWindow + 1; k < len(win); {
		s, e := wordAfterAny(text, j)
		if s >= len(text) || rowBreak(text[j:s]) {
			break
		}
		j = e
		if w := text[s:e]; !rowJoiner(w) {
			win[k] = w
			k++
		}
	}
	var places [len(win)][]rowPlace // the places in the rows of each word of the window
	anchored := false               // a word of the window is a name of some row
	for p, w := range win {
		if p != rowWindow && w != "" {
			places[p] = m.d.rows.places(w)
			anchored = anchored || len(places[p]) > 0
		}
	}
	if !anchored {
		return ""
	}
	var lb, kb [32]byte
	lw, _, ok := m.heardNameKey(text[start:end], &lb, &kb, 2)
	if !ok {
		return ""
	}
	best, bestExact := "", 0
	for p, w := range win {
		for _, pl := range places[p] {
			names := rowAt(pl.line)
			slot := int(pl.slot) - (p - rowWindow)
			if slot < 0 || slot >= len(names) || !strings.EqualFold(names[pl.slot], w) {
				continue
			}
			name := names[slot]
			if strings.EqualFold(name, string(lw)) || name[0]|0x20 != lw[0] {
				continue
			}
			exact, filled := 0, 0
			for q, x := range win {
				s := slot + q - rowWindow
				if s < 0 || s >= len(names) || x == "" {
					continue
				}
				switch {
				case strings.EqualFold(names[s], x):
					exact++
					filled++
				case q == rowWindow || m.heardLetter(x, names[s]):
					filled++
				default:
					filled = -len(win) // a word of another kind inside the list: not it
				}
			}
			if exact >= 1 && filled >= 3 && exact > bestExact {
				best, bestExact = name, exact
			}
		}
	}
	return best
}

// heardLetter reports whether w, a word no list holds, may be the name
// heard wrong: it begins with the name's letter.
func (m *matcher) heardLetter(w, name string) bool {
	var lb, kb [32]byte
	lw, _, ok := m.heardNameKey(w, &lb, &kb, 2)
	return ok && lw[0] == name[0]|0x20
}

// rowJoiner reports whether w joins the names of a list: "and", "or",
// "of".
func rowJoiner(w string) bool {
	switch len(w) {
	case 2:
		return strings.EqualFold(w, "or") || strings.EqualFold(w, "of")
	case 3:
		return strings.EqualFold(w, "and")
	}
	return false
}

// rowBreak reports whether the gap between two words ends a sentence.
func rowBreak(gap string) bool {
	return strings.ContainsAny(gap, ".?!;:")
}
