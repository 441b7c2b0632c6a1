package correction

import (
	"math"
	"math/bits"
	"slices"
	"strings"
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
	// Reference is the Bible reference after the book a change names
	// ("john three sixteen": John 3:16), whether or not the change
	// rewrites it, with Options.NormalizeReferences; nil without it,
	// when no reference follows, or when the name is no single book.
	Reference *Reference `json:"reference,omitempty"`
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
	// A reference is read against the book's versification (the King
	// James Version's chapters and verses): "Psalm one forty-five" is
	// Psalm 145 and "Romans 828" is Romans 8:28, and a chapter or verse
	// the book does not have is never written. Each change of a book
	// then carries the reference after it as a Reference.
	NormalizeReferences bool
	// Categories limits the changes to these categories; empty means
	// CategoryBible, CategoryPlace and, as suggestions only, the names of
	// biblical people heard wrong after a naming cue ("a man named
	// zacheus"), as a short word and the rest ("one siphorus"), or
	// without a cue in a sermon that cites a chapter naming the person
	// ("cut off malcus ear" beside John 18). Listing
	// CategoryPerson asks for all its changes, automatic ones among them
	// (a lowercase name gets its capital). The changes of Glossary are
	// made when Categories is empty or lists their category.
	Categories []string
	// Thresholds are the confidence bounds that decide what is applied,
	// suggested and dropped; the zero value keeps the engine's decisions.
	Thresholds Thresholds
	// Glossary is an organization's own words, changed as its entries
	// say; nil for none.
	Glossary *Glossary
}

// Result is the outcome of Correct.
type Result struct {
	Content string
	Changes []Change
	Summary Summary
}

// Engine finds corrections. It is safe for concurrent use.
type Engine struct {
	d *dict
}

// NewEngine builds an Engine from the embedded dictionaries.
func NewEngine() (*Engine, error) {
	d, err := buildDict()
	if err != nil {
		return nil, err
	}
	return &Engine{d: d}, nil
}

// maxText is the longest text Find handles; longer texts get no changes.
const maxText = math.MaxInt32

// Find returns the correction candidates in text, sorted by Start,
// non-overlapping and numbered. Texts longer than 2 GiB get no changes.
func (e *Engine) Find(text string, opts Options) []Change {
	changes, _ := e.find(text, opts)
	return changes
}

// findCounts counts the changes of a Find by status and category, and
// sums how much the auto-applied ones change the text's length.
type findCounts struct {
	auto, bible, place, person, grow int
}

// find is Find, which also counts the changes for Correct.
func (e *Engine) find(text string, opts Options) ([]Change, findCounts) {
	if opts.Glossary != nil || opts.Thresholds != (Thresholds{}) {
		return e.findWith(text, opts), findCounts{}
	}
	return e.findScan(text, opts, nil)
}

// findScan is find; gs, if not nil, sees every word the scanner reads.
func (e *Engine) findScan(text string, opts Options, gs *glossaryScan) ([]Change, findCounts) {
	var fc findCounts
	// By default the people's names heard wrong are suggested (see
	// matcher.heardPersons); CategoryPerson asks for all its changes.
	wantBible, wantPlace, wantPerson, heardPersons := true, true, false, true
	if len(opts.Categories) > 0 {
		heardPersons = false
		wantBible = slices.Contains(opts.Categories, CategoryBible)
		wantPlace = slices.Contains(opts.Categories, CategoryPlace)
		wantPerson = slices.Contains(opts.Categories, CategoryPerson)
	}
	if (!wantBible && !wantPlace && !wantPerson) || len(text) > maxText {
		return []Change{}, fc
	}
	sc := new(scanner)
	sc.init(e.d, text)
	sc.gl = gs
	m := matcher{d: e.d, sc: sc, opts: opts, bible: wantBible, place: wantPlace}
	var ps *personScan
	if heardPersons {
		ps = &personScan{d: e.d, sc: sc}
		sc.ps = ps
	}
	m.hasCode = strings.IndexByte(text, '`') >= 0 || strings.IndexByte(text, '<') >= 0
	if wantBible {
		m.books = make([]bookMiss, 256)
	}
	if wantPlace {
		// About one word in twelve is tried as a misheard place name.
		m.misses = make([]fuzzyMiss, max(2, min(1024, 1<<bits.Len(uint(len(text)/64)))))
	}
	if wantBible || wantPlace {
		m.run()
	}
	if wantPerson {
		m.mergePersons(m.findPersons())
	} else if ps != nil {
		m.mergePersons(m.heardPersons(ps))
	}
	n := m.found.n
	if n == 0 {
		return []Change{}, fc
	}
	changes := make([]Change, n)
	var refs []Reference
	if len(m.refs) > 0 {
		refs = m.d.references(m.refs)
	}
	ids := newChangeIDs(n)
	line, pos, k := 1, 0, 0
	for _, blk := range m.found.blocks {
		for _, r := range blk {
			start, end := int(r.start), m.found.end(r)
			line += strings.Count(text[pos:start], "\n")
			pos = start
			conf := pctConf(r.conf)
			auto := conf >= autoThreshold
			if r.conf&thinBit != 0 {
				conf, auto = m.thinStatus(r)
			}
			repl := m.get(r.repl)
			st := StatusNeedsReview
			if auto {
				st = StatusAutoApplied
				fc.auto++
				fc.grow += len(repl) - (end - start)
			}
			switch {
			case r.rule >= rulePersonLowercase:
				fc.person++
			case r.rule >= rulePlaceLowercase:
				fc.place++
			default:
				fc.bible++
			}
			changes[k] = Change{
				ID:          ids.next(),
				Category:    r.rule.category(),
				Original:    text[start:end],
				Replacement: repl,
				Start:       start,
				End:         end,
				Line:        line,
				Rule:        r.rule.String(),
				Confidence:  conf,
				Status:      st,
			}
			if len(refs) > 0 && int(m.refs[0].rec) == k {
				changes[k].Reference = &refs[0]
				refs, m.refs = refs[1:], m.refs[1:]
			}
			k++
		}
	}
	return changes, fc
}

// changeIDs hands out the IDs chg_0001 … in order, carved out of one
// string.
type changeIDs struct {
	all   string
	pos   int // where the next ID starts
	n     int // IDs handed out
	w     int // the length of the next ID
	wider int // the n at which IDs gain a digit
}

// newChangeIDs returns the IDs of n changes.
func newChangeIDs(n int) *changeIDs {
	size := 0
	for w, lo := 1, 1; lo <= n; w, lo = w+1, lo*10 {
		size += (min(n, lo*10-1) - lo + 1) * (4 + max(w, 4))
	}
	var sb strings.Builder
	sb.Grow(size)
	id := []byte("chg_0000") // counted up in place
	for range n {
		k := len(id) - 1
		for k > 3 && id[k] == '9' {
			id[k] = '0'
			k--
		}
		if k == 3 { // chg_9999 and the like: one more digit
			id = append(id, '0')
			id[4] = '1'
		} else {
			id[k]++
		}
		sb.Write(id)
	}
	return &changeIDs{all: sb.String(), w: len("chg_0001"), wider: 9999}
}

// next returns the next ID.
func (c *changeIDs) next() string {
	if c.n == c.wider { // chg_9999 was the last of its length
		c.w++
		c.wider = c.wider*10 + 9
	}
	c.n++
	id := c.all[c.pos : c.pos+c.w]
	c.pos += c.w
	return id
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
	if opts.Glossary != nil || opts.Thresholds != (Thresholds{}) {
		changes := e.findWith(text, opts)
		return Result{Content: Apply(text, changes), Changes: changes, Summary: Summarize(changes)}
	}
	changes, fc := e.find(text, opts)
	// The changes of find are sorted, apart and match the text: Apply's
	// checks and Summarize's pass are not needed.
	content := text
	if fc.auto > 0 {
		var sb strings.Builder
		sb.Grow(len(text) + max(fc.grow, 0))
		pos := 0
		for i := range changes {
			if c := &changes[i]; c.Status == StatusAutoApplied {
				sb.WriteString(text[pos:c.Start])
				sb.WriteString(c.Replacement)
				pos = c.End
			}
		}
		sb.WriteString(text[pos:])
		content = sb.String()
	}
	sum := Summary{Total: len(changes), AutoApplied: fc.auto, NeedsReview: len(changes) - fc.auto, ByCategory: map[string]int{}}
	if fc.bible > 0 {
		sum.ByCategory[CategoryBible] = fc.bible
	}
	if fc.place > 0 {
		sum.ByCategory[CategoryPlace] = fc.place
	}
	if fc.person > 0 {
		sum.ByCategory[CategoryPerson] = fc.person
	}
	return Result{Content: content, Changes: changes, Summary: sum}
}
