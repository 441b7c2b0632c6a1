package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"

	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

// RuleAIProposal is the rule of a change the AI pass proposed.
const RuleAIProposal = "ai.proposal"

// Change is an entry of a transcript's stored change list: a change of the deterministic pass,
// or one the AI pass proposed, with the AI pass's verdict once it ran.
type Change struct {
	correction.Change
	// AIVerdict is the AI pass's verdict on a change of the deterministic pass; empty before
	// the pass and on the changes it proposed.
	AIVerdict aipass.Verdict `json:"ai_verdict,omitempty"`
	// AIReason is the AI pass's reason for its verdict or proposal.
	AIReason string `json:"ai_reason,omitempty"`
	// Applied tells whether the change is written into the content; nil in the deterministic
	// pass's list, where auto-applied changes are.
	Applied *bool `json:"applied,omitempty"`
	// Decision is the latest decision a person made on the change; nil when there is none
	// and in the lists of the passes.
	Decision *Decision `json:"decision,omitempty"`
}

// IsApplied reports whether c is written into the content.
func (c *Change) IsApplied() bool {
	if c.Applied != nil {
		return *c.Applied
	}
	return c.Status == correction.StatusAutoApplied
}

// Revision is the outcome of the AI pass over one transcript.
type Revision struct {
	// Changes are the deterministic pass's changes with their verdicts and the proposed
	// changes, in text order, with offsets into the submitted document.
	Changes []Change
	// Summary counts Changes; AIFlagged counts the rejected and uncertain verdicts.
	Summary correction.Summary
	// Applied tells whether Content carries the verdicts; false leaves the deterministic
	// pass's content in place.
	Applied bool
	// Confirmed, Rejected, Uncertain and Proposed count the verdicts and proposals.
	Confirmed, Rejected, Uncertain, Proposed int
	// Usage is the provider's token usage.
	Usage aipass.Usage
}

// ErrStale says that the deterministic pass no longer finds the changes stored for a
// transcript, so verdicts could not be matched to them.
var ErrStale = errors.New("the deterministic pass no longer finds the stored changes (the dictionaries changed since this transcript was corrected); reprocess the transcript first")

// ProviderError says that the AI provider failed to review a transcript.
type ProviderError struct{ Err error }

func (e *ProviderError) Error() string { return "the AI provider failed: " + e.Err.Error() }

func (e *ProviderError) Unwrap() error { return e.Err }

// ReviewInput is what the AI pass needs to know about a transcript.
type ReviewInput struct {
	Keys Keys
	// Format is the effective format the transcript was read as.
	Format formats.Format
	// Options are the deterministic pass's options of the transcript.
	Options correction.Options
	// Language is the transcript's language, for the provider.
	Language string
	// Apply writes the verdicts into a new content under Keys.AIContent.
	Apply bool
	// Progress, when not nil, follows the provider's progress (see aipass.Request).
	Progress func(done, total int)
}

// Review runs provider over the stored input of a transcript and stores the reviewed change
// list under in.Keys.AIChanges and, with in.Apply, the content with the verdicts applied
// under in.Keys.AIContent. The deterministic pass's objects are left as they are, so running
// it again gives the same result from the same verdicts.
func (p *Processor) Review(ctx context.Context, in ReviewInput, provider aipass.Provider) (*Revision, error) {
	input, err := p.store.Get(ctx, in.Keys.Input)
	if err != nil {
		return nil, fmt.Errorf("reading the input: %w", err)
	}
	check := func(found []correction.Change) error { return p.checkStored(ctx, in.Keys.Changes, found) }
	rev, content, err := p.review(ctx, input, in, provider, check)
	if err != nil {
		return nil, err
	}
	changes, err := json.Marshal(rev.Changes)
	if err != nil {
		return nil, fmt.Errorf("encoding the reviewed change list: %w", err)
	}
	if err := p.store.Put(ctx, in.Keys.AIChanges, changes, "application/json"); err != nil {
		return nil, fmt.Errorf("storing the reviewed change list: %w", err)
	}
	if in.Apply {
		if err := p.store.Put(ctx, in.Keys.AIContent, content, "text/plain; charset=utf-8"); err != nil {
			return nil, fmt.Errorf("storing the revised content: %w", err)
		}
	}
	return rev, nil
}

// ReviewDocument runs the deterministic pass over input and has provider review its changes,
// without the object store (the offline CLI). The content it returns carries the verdicts
// with in.Apply and is the deterministic pass's otherwise; in.Keys is not used and an empty
// in.Format is sniffed.
func (p *Processor) ReviewDocument(ctx context.Context, input []byte, in ReviewInput, provider aipass.Provider) (*Revision, []byte, error) {
	if in.Format == "" {
		in.Format = formats.Sniff(input)
	}
	return p.review(ctx, input, in, provider, nil)
}

// review runs the deterministic pass over input, checks its changes with check (when not nil),
// has provider review them and returns the revision and its content.
func (p *Processor) review(ctx context.Context, input []byte, in ReviewInput, provider aipass.Provider, check func([]correction.Change) error) (*Revision, []byte, error) {
	view, err := formats.Extract(input, in.Format)
	if err != nil {
		return nil, nil, &ContentError{Format: in.Format, Err: err}
	}
	found := p.engine.Find(view.Text, in.Options)
	if check != nil {
		if err := check(found); err != nil {
			return nil, nil, err
		}
	}
	review, err := provider.Review(ctx, aipass.Request{Text: view.Text, Changes: found, Language: in.Language, Progress: in.Progress})
	if err != nil {
		return nil, nil, &ProviderError{Err: err}
	}
	if len(review.Judgements) != len(found) {
		return nil, nil, &ProviderError{Err: fmt.Errorf("the %s provider judged %d of %d changes", provider.Name(), len(review.Judgements), len(found))}
	}
	rev, edits := revise(view, found, review, in.Apply)
	content, err := view.Rewrite(edits)
	if err != nil {
		return nil, nil, fmt.Errorf("writing the revised %s: %w", in.Format, err)
	}
	return rev, content, nil
}

// checkStored makes sure found are the changes stored under key, the ones the client saw.
func (p *Processor) checkStored(ctx context.Context, key string, found []correction.Change) error {
	raw, err := p.store.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("reading the change list: %w", err)
	}
	var stored []correction.Change
	if err := json.Unmarshal(raw, &stored); err != nil {
		return fmt.Errorf("decoding the change list: %w", err)
	}
	if len(stored) != len(found) {
		return ErrStale
	}
	for i := range stored {
		s, f := &stored[i], &found[i]
		if s.ID != f.ID || s.Replacement != f.Replacement || s.Status != f.Status || s.Category != f.Category {
			return ErrStale
		}
	}
	return nil
}

// revise merges the verdicts and proposals of review into the changes found in view, and
// returns the edits of the revised content: with apply, the auto-applied changes not rejected
// and the needs-review changes confirmed; without, the auto-applied ones.
func revise(view *formats.View, found []correction.Change, review *aipass.Review, apply bool) (*Revision, []formats.Edit) {
	rev := &Revision{Applied: apply, Usage: review.Usage, Changes: make([]Change, 0, len(found)+len(review.Proposals))}
	var edits []formats.Edit
	// Proposals go between the changes in text order (they overlap none), numbered after the
	// deterministic pass's changes, whose ids stay as the client saw them.
	next := 0
	propose := func(before int) {
		for ; next < len(review.Proposals) && review.Proposals[next].Start < before; next++ {
			pr := review.Proposals[next]
			c := correction.Change{ID: fmt.Sprintf("chg_%04d", len(found)+next+1), Category: aipass.CategoryAI, Original: pr.Original, Replacement: pr.Replacement,
				Start: pr.Start, End: pr.End, Rule: RuleAIProposal, Confidence: 0.5, Status: correction.StatusNeedsReview}
			applied := false
			rev.Changes = append(rev.Changes, Change{Change: toSource(view, c), AIReason: pr.Reason, Applied: &applied})
			rev.Proposed++
		}
	}
	for i, c := range found {
		propose(c.Start)
		j := review.Judgements[i]
		applied := c.Status == correction.StatusAutoApplied
		if apply {
			applied = applied && j.Verdict != aipass.Rejected || !applied && j.Verdict == aipass.Confirmed
		}
		if applied {
			edits = append(edits, formats.Edit{Start: c.Start, End: c.End, Replacement: c.Replacement})
		}
		switch j.Verdict {
		case aipass.Confirmed:
			rev.Confirmed++
		case aipass.Rejected:
			rev.Rejected++
		default:
			rev.Uncertain++
		}
		rev.Changes = append(rev.Changes, Change{Change: toSource(view, c), AIVerdict: j.Verdict, AIReason: j.Reason, Applied: &applied})
	}
	propose(len(view.Text) + 1)
	plain := make([]correction.Change, len(rev.Changes))
	for i := range rev.Changes {
		plain[i] = rev.Changes[i].Change
	}
	rev.Summary = correction.Summarize(plain)
	rev.Summary.AIFlagged = rev.Rejected + rev.Uncertain
	return rev, edits
}

// Complete records rev on t as the outcome of its running AI pass: the reviewed change list,
// the revised content when applied (the deterministic pass's otherwise), the summary with
// ai_flagged, the counts and the token usage; and ends the pass.
func (rev *Revision) Complete(t *tcsv1.Transcript, keys Keys, now time.Time) {
	st := &t.Status
	st.ChangesRef = keys.AIChanges
	st.ContentRef = keys.Content
	if rev.Applied {
		st.ContentRef = keys.AIContent
	}
	st.ChangesSummary = changesSummary(rev.Summary)
	if res := st.AIPass; res != nil {
		res.Apply = rev.Applied
		res.Confirmed, res.Rejected, res.Uncertain, res.Proposed = rev.Confirmed, rev.Rejected, rev.Uncertain, rev.Proposed
		res.Usage = TokenUsage(rev.Usage)
	}
	t.CompleteAIPass(metav1.NewTime(now))
}

// TokenUsage returns u as a transcript records it: nil when no tokens were used.
func TokenUsage(u aipass.Usage) *tcsv1.TokenUsage {
	if u == (aipass.Usage{}) {
		return nil
	}
	return &tcsv1.TokenUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens, Requests: u.Requests}
}
