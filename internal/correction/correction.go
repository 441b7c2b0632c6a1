package correction

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Status tells whether a change was written into the corrected content.
type Status string

// The statuses a Change can have.
const (
	StatusAutoApplied Status = "auto_applied" // written into the corrected content
	StatusNeedsReview Status = "needs_review" // a suggestion, left out of the content
)

// Change categories produced by this engine.
const (
	CategoryBible = "bible"
	CategoryPlace = "place"
)

// Change is one correction candidate.
type Change struct {
	ID          string  `json:"id"`          // "chg_" + 4-digit 1-based sequence in text order, e.g. chg_0001 (deterministic)
	Category    string  `json:"category"`    // "bible" or "place" (the set is open)
	Original    string  `json:"original"`    // exact bytes text[Start:End]
	Replacement string  `json:"replacement"` // text to put in place of Original
	Start       int     `json:"start"`       // UTF-8 byte offsets into the text passed to Find
	End         int     `json:"end"`         // exclusive end offset
	Line        int     `json:"line"`        // 1-based line of Start
	Rule        string  `json:"rule"`        // short machine name of why, e.g. "book.misspelling"
	Confidence  float64 `json:"confidence"`  // 0..1
	Status      Status  `json:"status"`      // auto_applied or needs_review
}

// Summary counts a list of changes.
type Summary struct {
	Total       int            `json:"total"`
	AutoApplied int            `json:"auto_applied"`
	NeedsReview int            `json:"needs_review"`
	AIFlagged   int            `json:"ai_flagged"`  // always 0 here
	ByCategory  map[string]int `json:"by_category"` // never nil
}

// Options tunes a Find or Correct call. The zero value corrects every
// category and leaves references as written.
type Options struct {
	// NormalizeReferences also rewrites spoken references:
	// "first corinthians chapter thirteen verse four" becomes
	// "1 Corinthians 13:4" and "verses 4 through 7" becomes "13:4–7".
	NormalizeReferences bool
	// Categories limits the changes to these categories; empty means all.
	Categories []string
}

// Result is the outcome of Correct.
type Result struct {
	Content string
	Changes []Change
	Summary Summary
}

// Engine finds corrections. It is safe for concurrent use.
type Engine struct {
	d    *dict
	pool sync.Pool // *scanner
}

// NewEngine builds an Engine from the embedded dictionaries.
func NewEngine() (*Engine, error) {
	d, err := buildDict()
	if err != nil {
		return nil, err
	}
	e := &Engine{d: d}
	e.pool.New = func() any { return &scanner{} }
	return e, nil
}

// maxText is the longest text Find handles; longer texts get no changes.
const maxText = math.MaxInt32

// Find returns the correction candidates in text, sorted by Start,
// non-overlapping and numbered. Texts longer than 2 GiB get no changes.
func (e *Engine) Find(text string, opts Options) []Change {
	wantBible, wantPlace := true, true
	if len(opts.Categories) > 0 {
		wantBible = slices.Contains(opts.Categories, CategoryBible)
		wantPlace = slices.Contains(opts.Categories, CategoryPlace)
	}
	if (!wantBible && !wantPlace) || len(text) > maxText {
		return []Change{}
	}
	sc := e.pool.Get().(*scanner)
	sc.reset(text)
	m := matcher{e: e, d: e.d, sc: sc, opts: opts, bible: wantBible, place: wantPlace}
	m.out = make([]Change, 0, len(text)/128+4)
	changes := m.run()
	if changes == nil {
		changes = []Change{}
	}
	sc.reset("")
	e.pool.Put(sc)

	ids := changeIDs(len(changes))
	line, pos := 1, 0
	for i := range changes {
		c := &changes[i]
		line += strings.Count(text[pos:c.Start], "\n")
		pos = c.Start
		c.Line = line
		c.ID = ids[i]
	}
	return changes
}

// changeIDs returns the IDs chg_0001 … for n changes, carved out of one
// string.
func changeIDs(n int) []string {
	if n == 0 {
		return nil
	}
	var b []byte
	ends := make([]int, n)
	for i := range n {
		b = append(b, "chg_"...)
		num := strconv.Itoa(i + 1)
		for range 4 - len(num) {
			b = append(b, '0')
		}
		b = append(b, num...)
		ends[i] = len(b)
	}
	all := string(b)
	ids := make([]string, n)
	start := 0
	for i, e := range ends {
		ids[i] = all[start:e]
		start = e
	}
	return ids
}

// Apply returns text with the auto-applied changes written in. Changes
// that need review, do not match text, or overlap an earlier change are
// skipped; every byte outside a changed span is kept.
func Apply(text string, changes []Change) string {
	applicable := func(c *Change) bool {
		return c.Status == StatusAutoApplied && c.Start >= 0 && c.End >= c.Start &&
			c.End <= len(text) && text[c.Start:c.End] == c.Original
	}
	n, grow := 0, 0
	for i := range changes {
		if applicable(&changes[i]) {
			n++
			grow += len(changes[i].Replacement) - len(changes[i].Original)
		}
	}
	if n == 0 {
		return text
	}
	sorted := slices.IsSortedFunc(changes, func(a, b Change) int { return a.Start - b.Start })
	if !sorted {
		changes = slices.Clone(changes)
		slices.SortStableFunc(changes, func(a, b Change) int { return a.Start - b.Start })
	}
	var sb strings.Builder
	sb.Grow(len(text) + max(grow, 0))
	pos := 0
	for i := range changes {
		c := &changes[i]
		if !applicable(c) || c.Start < pos {
			continue
		}
		sb.WriteString(text[pos:c.Start])
		sb.WriteString(c.Replacement)
		pos = c.End
	}
	sb.WriteString(text[pos:])
	return sb.String()
}

// Summarize counts changes by status and category.
func Summarize(changes []Change) Summary {
	s := Summary{ByCategory: map[string]int{}}
	bible, place := 0, 0
	for i := range changes {
		c := &changes[i]
		s.Total++
		switch c.Status {
		case StatusAutoApplied:
			s.AutoApplied++
		case StatusNeedsReview:
			s.NeedsReview++
		}
		switch c.Category {
		case CategoryBible:
			bible++
		case CategoryPlace:
			place++
		default:
			s.ByCategory[c.Category]++
		}
	}
	if bible > 0 {
		s.ByCategory[CategoryBible] += bible
	}
	if place > 0 {
		s.ByCategory[CategoryPlace] += place
	}
	return s
}

// Correct finds the changes in text, applies the auto-applied ones and
// summarizes them.
func (e *Engine) Correct(text string, opts Options) Result {
	changes := e.Find(text, opts)
	return Result{
		Content: Apply(text, changes),
		Changes: changes,
		Summary: Summarize(changes),
	}
}
