package pipeline

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

// The actions of a Decision.
const (
	// ActionAccept applies a suggestion, or keeps an automatic change (or an added one) applied.
	ActionAccept = "accept"
	// ActionReject takes a change out of the content.
	ActionReject = "reject"
	// ActionReplace applies a change with the decision's replacement instead of its own.
	ActionReplace = "replace"
	// ActionAdd makes a new change over a span of the submitted document.
	ActionAdd = "add"
)

// The bounds of review decisions.
const (
	// MaxDecisionsPerCall bounds the decisions of one call.
	MaxDecisionsPerCall = 1000
	// MaxReplacementBytes bounds the replacement of a replace or add decision.
	MaxReplacementBytes = 200
	// MaxAddedSpanBytes bounds the span of the submitted document an add decision covers.
	MaxAddedSpanBytes = 1000
	// MaxCategoryBytes bounds the category of an add decision.
	MaxCategoryBytes = 40
)

// RuleReviewAdded is the rule of a change a person added.
const RuleReviewAdded = "review.added"

// CategoryCustom is the category of an added change that names none.
const CategoryCustom = "custom"

// addedPrefix starts the ids of added changes, chg_u0001 and on, in order of addition.
const addedPrefix = "chg_u"

// categoryPattern is what a category name looks like (as the transcript options' categories).
var categoryPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Decision is one decision of a person on a transcript's changes. Decisions are a log: on one
// change the latest wins.
type Decision struct {
	// ChangeID is the change decided (accept, reject, replace); empty for add.
	ChangeID string `json:"change_id,omitempty"`
	// Action is accept, reject, replace or add.
	Action string `json:"action"`
	// Replacement is the text a replace or an add writes.
	Replacement string `json:"replacement,omitempty"`
	// Start and End are the span an add covers: byte offsets into the submitted document (for
	// DOCX into its word/document.xml), as the changes' offsets are.
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
	// Category is the category of an added change; empty means custom.
	Category string `json:"category,omitempty"`
	// By is who decided: an API key id, a member's email.
	By string `json:"by"`
	// At is when the decision was made.
	At time.Time `json:"at"`
}

// DecisionError says what is wrong with a decision of a call: the client's fault.
type DecisionError struct {
	// Param names the field at fault, such as decisions[2].change_id.
	Param string
	// Message says what is wrong, as a sentence.
	Message string
}

func (e *DecisionError) Error() string { return e.Message }

// ErrStaleDecisions says that a decision already recorded no longer applies to the change list
// it is applied to (the transcript was corrected again since).
var ErrStaleDecisions = errors.New("a recorded review decision no longer applies to the transcript's changes")

// Reviewed is a transcript's content and change list recomputed from its input and the
// decisions made on its changes.
type Reviewed struct {
	// Content is the reviewed document.
	Content []byte
	// Changes are the changes in text order, added ones included, each with its latest
	// decision and whether it is applied.
	Changes []Change
	// Summary counts Changes as the review left them: AutoApplied the changes written into
	// Content, NeedsReview the suggestions no one decided on, AIFlagged the changes the AI
	// pass rejected or was uncertain of.
	Summary correction.Summary
	// Undecided counts the suggestions no one decided on; Decided the changes with a decision.
	Undecided, Decided int
	// Log is every decision, the recorded ones and then the call's, in order.
	Log []Decision
}

// LastDecision returns the latest decision of the log; ok is false when there is none.
func (r *Reviewed) LastDecision() (d Decision, ok bool) {
	if len(r.Log) == 0 {
		return Decision{}, false
	}
	return r.Log[len(r.Log)-1], true
}

// Written returns the text c writes into the content when applied: the replacement of its
// latest replace decision, or its own.
func (c *Change) Written() string {
	if c.Decision != nil && c.Decision.Action == ActionReplace {
		return c.Decision.Replacement
	}
	return c.Replacement
}

// Decide recomputes the content of input, a document in format, and its change list changes
// (the deterministic pass's or the AI pass's, with offsets into input) from the decisions
// recorded, log, and those of a call, batch, applied in that order. The content is input
// rewritten through formats.View as the passes write theirs: bytes outside the spans of the
// applied changes are kept, but for the copies of a rolling caption line, which change with
// it, and the blanks a change across runs takes after it (see the formats package).
//
// A batch decision that cannot be applied fails with a *DecisionError naming it as
// decisions[i]; a recorded one with an error matching ErrStaleDecisions; an input that cannot
// be read with a *ContentError. An add identical to an earlier one (span, replacement and
// category) decides that change again, so that the same decisions sent twice give the same
// result.
func Decide(input []byte, format formats.Format, changes []Change, log, batch []Decision) (*Reviewed, error) {
	if len(batch) > MaxDecisionsPerCall {
		return nil, &DecisionError{Param: "decisions", Message: fmt.Sprintf("decisions: %d decisions were sent; at most %d are taken in one call.", len(batch), MaxDecisionsPerCall)}
	}
	view, err := formats.Extract(input, format)
	if err != nil {
		return nil, &ContentError{Format: format, Err: err}
	}
	r, err := newReview(view, input, format, changes)
	if err != nil {
		return nil, err
	}
	for i := range log {
		if err := r.decide(&log[i], fmt.Sprintf("decisions[%d]", i)); err != nil {
			// Not wrapped: the decision is no client error of this call.
			return nil, fmt.Errorf("%w: decision %d of %d: %s", ErrStaleDecisions, i, len(log), err.Error())
		}
	}
	for i := range batch {
		if err := r.decide(&batch[i], fmt.Sprintf("decisions[%d]", i)); err != nil {
			return nil, err
		}
	}
	return r.result(slices.Concat(log, batch))
}

// review is the state of a transcript's changes while decisions are applied.
type review struct {
	view   *formats.View
	input  []byte
	format formats.Format
	// changes are the changes, added ones at the end; spans their View.Text spans.
	changes []Change
	spans   []span
	byID    map[string]int
	// applied are the indexes of the applied changes, ordered by span; their spans never
	// overlap.
	applied []int
	added   int
}

// span is a range of View.Text.
type span struct{ start, end int }

func (s span) overlaps(o span) bool {
	return s.start < o.end && o.start < s.end || s.start == o.start && s.end == o.end
}

// newReview maps changes onto the text of view.
func newReview(view *formats.View, input []byte, format formats.Format, changes []Change) (*review, error) {
	r := &review{view: view, input: input, format: format, changes: make([]Change, len(changes)),
		spans: make([]span, len(changes)), byID: make(map[string]int, len(changes))}
	for i := range changes {
		c := changes[i]
		c.Decision = nil
		applied := c.IsApplied()
		c.Applied = &applied
		sp, ok := textSpan(view, c.Start, c.End, c.Original)
		if !ok {
			return nil, fmt.Errorf("change %s: its span [%d, %d) falls on no text of the %s input", c.ID, c.Start, c.End, format)
		}
		if _, dup := r.byID[c.ID]; dup {
			return nil, fmt.Errorf("change %s is listed twice", c.ID)
		}
		if strings.HasPrefix(c.ID, addedPrefix) {
			return nil, fmt.Errorf("change %s: the change list already holds added changes; decisions apply to the list of a pass", c.ID)
		}
		r.changes[i], r.spans[i], r.byID[c.ID] = c, sp, i
		if applied {
			if other, ok := r.overlapping(sp, -1); ok {
				return nil, fmt.Errorf("the applied changes %s and %s overlap", r.changes[other].ID, c.ID)
			}
			r.apply(i)
		}
	}
	return r, nil
}

// textSpan returns the span of view.Text that [start, end) of the submitted document holds,
// as toSource mapped it, preferring the one whose text is original.
func textSpan(view *formats.View, start, end int, original string) (span, bool) {
	ts, ok := textStart(view, start)
	if !ok {
		return span{}, false
	}
	if end == start {
		return span{ts, ts}, true
	}
	var found []span
	if te, ok := textEnd(view, ts, end); ok {
		found = append(found, span{ts, te})
	}
	if te, ok := textStart(view, end); ok && te > ts {
		found = append(found, span{ts, te})
	}
	for _, sp := range found {
		if view.Text[sp.start:sp.end] == original {
			return sp, true
		}
	}
	if len(found) == 0 {
		return span{}, false
	}
	return found[0], true
}

// textStart returns the smallest offset of view.Text that starts at src in the source.
func textStart(view *formats.View, src int) (int, bool) {
	n := len(view.Text)
	t := sort.Search(n+1, func(t int) bool {
		s, _, _ := view.Source(t, t)
		return s >= src
	})
	if t > n {
		return 0, false
	}
	s, _, _ := view.Source(t, t)
	return t, s == src
}

// textEnd returns the smallest offset t > from of view.Text whose byte before ends at src in
// the source.
func textEnd(view *formats.View, from, src int) (int, bool) {
	n := len(view.Text)
	if from >= n {
		return 0, false
	}
	end := func(t int) int {
		_, e, _ := view.Source(t-1, t)
		return e
	}
	t := from + 1 + sort.Search(n-from, func(k int) bool { return end(from+1+k) >= src })
	if t > n {
		return 0, false
	}
	return t, end(t) == src
}

// inOneRun reports whether text span sp is one stretch of the source from start to end: no
// separator, markup or cue line inside it.
func inOneRun(view *formats.View, sp span, start, end int) bool {
	if s, e, ok := view.Source(sp.start, sp.end); ok {
		return s == start && e == end
	}
	// Escape sequences make Source report false; walk the characters instead.
	at, prevS, prevE := start, -1, -1
	for t := sp.start; t < sp.end; {
		_, n := utf8.DecodeRuneInString(view.Text[t:sp.end])
		s, e, _ := view.Source(t, t+n)
		switch {
		case e <= s:
			return false // a separator
		case s == prevS && e == prevE:
			// another character of the same escape sequence
		case s != at:
			return false // markup between the characters
		}
		at, prevS, prevE = e, s, e
		t += n
	}
	return at == end
}

// overlapping returns an applied change other than except whose span overlaps sp.
func (r *review) overlapping(sp span, except int) (int, bool) {
	k := sort.Search(len(r.applied), func(k int) bool { return r.spans[r.applied[k]].end > sp.start })
	for ; k < len(r.applied) && r.spans[r.applied[k]].start <= sp.end; k++ {
		if i := r.applied[k]; i != except && r.spans[i].overlaps(sp) {
			return i, true
		}
	}
	return 0, false
}

// apply records change i as applied.
func (r *review) apply(i int) {
	*r.changes[i].Applied = true
	if slices.Contains(r.applied, i) {
		return
	}
	sp := r.spans[i]
	k := sort.Search(len(r.applied), func(k int) bool {
		o := r.spans[r.applied[k]]
		return o.start > sp.start || o.start == sp.start && o.end > sp.end
	})
	r.applied = slices.Insert(r.applied, k, i)
}

// unapply records change i as not applied.
func (r *review) unapply(i int) {
	*r.changes[i].Applied = false
	if k := slices.Index(r.applied, i); k >= 0 {
		r.applied = slices.Delete(r.applied, k, k+1)
	}
}

// decide applies d, named param in errors.
func (r *review) decide(d *Decision, param string) error {
	fail := func(field, format string, args ...any) error {
		return &DecisionError{Param: param + "." + field, Message: param + "." + field + ": " + fmt.Sprintf(format, args...)}
	}
	if d.By == "" {
		return fail("by", "who decided is not recorded.")
	}
	switch d.Action {
	case ActionAccept, ActionReject, ActionReplace:
		return r.decideChange(d, fail)
	case ActionAdd:
		return r.add(d, fail)
	case "":
		return fail("action", "an action is required: accept, reject, replace or add.")
	}
	return fail("action", "%q is no action; use accept, reject, replace or add.", d.Action)
}

// decideChange applies d, an accept, reject or replace decision.
func (r *review) decideChange(d *Decision, fail func(string, string, ...any) error) error {
	if d.ChangeID == "" {
		return fail("change_id", "%s names the change it decides; change_id is required.", d.Action)
	}
	i, ok := r.byID[d.ChangeID]
	if !ok {
		return fail("change_id", "the transcript has no change %q.", d.ChangeID)
	}
	if d.Start != 0 || d.End != 0 {
		return fail("start", "only an add takes a span; %s decides change %s over its own.", d.Action, d.ChangeID)
	}
	if d.Category != "" {
		return fail("category", "only an add takes a category.")
	}
	if d.Action == ActionReplace {
		if err := r.checkReplacement(d.Replacement, fail); err != nil {
			return err
		}
	} else if d.Replacement != "" {
		return fail("replacement", "only replace and add take a replacement; %s does not.", d.Action)
	}
	if d.Action == ActionReject {
		r.unapply(i)
	} else {
		if other, ok := r.overlapping(r.spans[i], i); ok {
			return fail("change_id", "change %s overlaps change %s, which is applied; reject that one first.", d.ChangeID, r.changes[other].ID)
		}
		r.apply(i)
	}
	decided := *d
	r.changes[i].Decision = &decided
	return nil
}

// add applies d, an add decision.
func (r *review) add(d *Decision, fail func(string, string, ...any) error) error {
	if d.ChangeID != "" {
		return fail("change_id", "an add makes a new change; it names no change_id.")
	}
	if d.Start < 0 || d.Start > len(r.input) {
		return fail("start", "%d is outside the document of %d bytes.", d.Start, len(r.input))
	}
	if d.End > len(r.input) {
		return fail("end", "%d is outside the document of %d bytes.", d.End, len(r.input))
	}
	if d.End <= d.Start {
		return fail("end", "the span [%d, %d) is empty; end must be after start.", d.Start, d.End)
	}
	if d.End-d.Start > MaxAddedSpanBytes {
		return fail("end", "the span [%d, %d) is %d bytes; an add covers at most %d.", d.Start, d.End, d.End-d.Start, MaxAddedSpanBytes)
	}
	category := d.Category
	if category == "" {
		category = CategoryCustom
	}
	if len(category) > MaxCategoryBytes || !categoryPattern.MatchString(category) {
		return fail("category", "%q is no category name: lower-case letters, digits, '-' and '_', at most %d bytes.", d.Category, MaxCategoryBytes)
	}
	if err := r.checkReplacement(d.Replacement, fail); err != nil {
		return err
	}
	ts, okStart := textStart(r.view, d.Start)
	te, okEnd := 0, false
	if okStart {
		te, okEnd = textEnd(r.view, ts, d.End)
	}
	sp := span{ts, te}
	if !okStart || !okEnd || !inOneRun(r.view, sp, d.Start, d.End) {
		return fail("start", "the span [%d, %d) is not inside one stretch of the document's text: it must not cross a line, a cue's timing or markup, nor cut a character reference.", d.Start, d.End)
	}
	i := -1
	for k := len(r.changes) - r.added; k < len(r.changes); k++ {
		c := &r.changes[k]
		if c.Start == d.Start && c.End == d.End && c.Replacement == d.Replacement && c.Category == category {
			i = k // the same add again: it decides that change
			break
		}
	}
	if other, ok := r.overlapping(sp, i); ok {
		return fail("start", "the span [%d, %d) overlaps change %s, which is applied; reject or replace that one instead.", d.Start, d.End, r.changes[other].ID)
	}
	if i < 0 {
		r.added++
		applied := true
		i = len(r.changes)
		r.changes = append(r.changes, Change{Change: correction.Change{
			ID: fmt.Sprintf("%s%04d", addedPrefix, r.added), Category: category, Original: r.view.Text[ts:te], Replacement: d.Replacement,
			Start: d.Start, End: d.End, Line: r.view.Line(ts), Rule: RuleReviewAdded, Confidence: 1, Status: correction.StatusAutoApplied,
		}, Applied: &applied})
		r.spans = append(r.spans, sp)
		r.byID[r.changes[i].ID] = i
	}
	r.apply(i)
	decided := *d
	r.changes[i].Decision = &decided
	return nil
}

// checkReplacement checks the replacement of a replace or add decision.
func (r *review) checkReplacement(s string, fail func(string, string, ...any) error) error {
	switch {
	case s == "":
		return fail("replacement", "the replacement is empty; give the text to write.")
	case len(s) > MaxReplacementBytes:
		return fail("replacement", "the replacement is %d bytes; at most %d are taken.", len(s), MaxReplacementBytes)
	case !utf8.ValidString(s):
		return fail("replacement", "the replacement is not valid UTF-8.")
	case strings.ContainsAny(s, "\r\n\v\f\u0085\u2028\u2029") && !carriesLineBreaks(r.format):
		return fail("replacement", "the replacement holds a line break, which %s content cannot carry within a change.", r.format)
	}
	return nil
}

// carriesLineBreaks reports whether a replacement in a document of format f may hold a line
// break: in captions it would end or split a cue, in markdown a block, and HTML and DOCX do
// not show it.
func carriesLineBreaks(f formats.Format) bool {
	return f == formats.TXT || f == formats.JSON
}

// result writes the content of the applied changes and counts them.
func (r *review) result(log []Decision) (*Reviewed, error) {
	edits := make([]formats.Edit, 0, len(r.applied))
	for _, i := range r.applied {
		edits = append(edits, formats.Edit{Start: r.spans[i].start, End: r.spans[i].end, Replacement: r.changes[i].Written()})
	}
	content, err := r.view.Rewrite(edits)
	if err != nil {
		return nil, fmt.Errorf("writing the reviewed %s: %w", r.format, err)
	}
	// Added changes join the list in text order, after a change of the same start.
	order := make([]int, len(r.changes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.spans[order[a]].start < r.spans[order[b]].start })
	rev := &Reviewed{Content: content, Changes: make([]Change, len(order)), Log: log}
	s := correction.Summary{ByCategory: map[string]int{}}
	for k, i := range order {
		c := r.changes[i]
		rev.Changes[k] = c
		s.Total++
		s.ByCategory[c.Category]++
		if *c.Applied {
			s.AutoApplied++
		}
		if c.Decision != nil {
			rev.Decided++
		} else if c.Status == correction.StatusNeedsReview {
			rev.Undecided++
		}
		if c.AIVerdict == aipass.Rejected || c.AIVerdict == aipass.Uncertain {
			s.AIFlagged++
		}
	}
	s.NeedsReview = rev.Undecided
	rev.Summary = s
	return rev, nil
}
