package pipeline

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"tcs.dev/tcs/internal/text/formats"
)

// Piece is a stretch of a reviewed transcript's text as a reviewer reads it: plain text of the
// document, or one change.
type Piece struct {
	// Text is the text shown: for a change the text it leaves in the content (its written text
	// when applied, its original when not).
	Text string
	// Src is the offset in the submitted document of Text's first byte when Text is the same
	// bytes there (an add decision can select within it); -1 otherwise (separators, escape
	// sequences, changes).
	Src int
	// Change is the index of the change shown in the change list; -1 for text.
	Change int
}

// Marked is the text of a transcript with its changes in place.
type Marked struct {
	Pieces []Piece
	// Apart are the indexes of the changes that cannot be shown in place, in list order: those
	// overlapping a change shown there (an applied change comes first), or on no text.
	Apart []int
}

// Mark returns the text of input, a document in format, with changes (a change list as
// Decide returns it, with offsets into input) in place: the applied changes, then the others
// where they overlap none shown.
func Mark(input []byte, format formats.Format, changes []Change) (*Marked, error) {
	view, err := formats.Extract(input, format)
	if err != nil {
		return nil, &ContentError{Format: format, Err: err}
	}
	type placed struct {
		sp span
		i  int
	}
	var shown []placed
	m := &Marked{}
	spans := make([]span, len(changes))
	ok := make([]bool, len(changes))
	for i := range changes {
		spans[i], ok[i] = textSpan(view, changes[i].Start, changes[i].End, changes[i].Original)
	}
	fits := func(sp span) bool {
		for _, p := range shown {
			if sp.overlaps(p.sp) {
				return false
			}
		}
		return true
	}
	apart := make([]bool, len(changes))
	for _, applied := range []bool{true, false} {
		for i := range changes {
			if changes[i].IsApplied() != applied {
				continue
			}
			if ok[i] && fits(spans[i]) {
				shown = append(shown, placed{spans[i], i})
			} else {
				apart[i] = true
			}
		}
	}
	for i := range apart {
		if apart[i] {
			m.Apart = append(m.Apart, i)
		}
	}
	sort.SliceStable(shown, func(a, b int) bool {
		if shown[a].sp.start != shown[b].sp.start {
			return shown[a].sp.start < shown[b].sp.start
		}
		return shown[a].sp.end < shown[b].sp.end
	})
	at := 0
	for _, p := range shown {
		if p.sp.start < at {
			return nil, fmt.Errorf("change %s overlaps the text before it", changes[p.i].ID)
		}
		m.Pieces = appendText(m.Pieces, view, at, p.sp.start)
		c := &changes[p.i]
		text := c.Original
		if c.IsApplied() {
			text = c.Written()
		}
		m.Pieces = append(m.Pieces, Piece{Text: text, Src: -1, Change: p.i})
		at = p.sp.end
	}
	m.Pieces = appendText(m.Pieces, view, at, len(view.Text))
	return m, nil
}

// appendText appends view.Text[from:to] to pieces, cut where its bytes stop being one
// stretch of the same bytes in the source.
func appendText(pieces []Piece, view *formats.View, from, to int) []Piece {
	start, src, next := from, -1, -1
	flush := func(end int) {
		if end > start {
			pieces = append(pieces, Piece{Text: view.Text[start:end], Src: src, Change: -1})
		}
		start = end
	}
	for t := from; t < to; {
		_, n := utf8.DecodeRuneInString(view.Text[t:to])
		s, e, same := view.Source(t, t+n)
		same = same && e-s == n
		switch {
		case same && src >= 0 && s == next:
			// the stretch goes on
		case same:
			flush(t)
			src = s
		case src >= 0 || t == start:
			flush(t)
			src = -1
		}
		if same {
			next = e
		}
		t += n
	}
	flush(to)
	return pieces
}
