// Package aipass holds the providers of the AI validation pass: each reviews the changes the
// deterministic pass made to a document, in their context, and gives every change a verdict
// (confirmed, rejected or uncertain) with a short reason; a provider may also propose changes
// the dictionary missed.
//
// Two providers exist: OpenAI, which asks any OpenAI-compatible Chat Completions endpoint, and
// Rules, an offline set of deterministic context checks that is not a language model.
package aipass

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"tcs.dev/tcs/internal/text/correction"
)

// Verdict is a provider's judgement of one change.
type Verdict string

// The verdicts a change can get.
const (
	Confirmed Verdict = "confirmed" // the change is right in its context
	Rejected  Verdict = "rejected"  // the change is wrong in its context
	Uncertain Verdict = "uncertain" // the context does not decide
)

// Valid reports whether v is one of the three verdicts.
func (v Verdict) Valid() bool {
	return v == Confirmed || v == Rejected || v == Uncertain
}

// CategoryAI is the category of the changes a provider proposes.
const CategoryAI = "ai"

// MaxReason is the longest reason kept, in runes.
const MaxReason = 200

// Request is one document to review.
type Request struct {
	// Text is the document's plain text (the text view of its format).
	Text string
	// Changes are the deterministic pass's changes, in text order, with Start and End as byte
	// offsets into Text.
	Changes []correction.Change
	// Language is the document's language as a BCP 47 tag; empty means English.
	Language string
	// Progress, when not nil, is told how many of a review's total parts are done, each
	// time one is; it may be called from several goroutines at once.
	Progress func(done, total int)
}

// Judgement is the verdict on one change of a Request.
type Judgement struct {
	ChangeID string  `json:"change_id"`
	Verdict  Verdict `json:"verdict"`
	Reason   string  `json:"reason"`
}

// Proposal is a change the provider proposes beyond the deterministic pass.
type Proposal struct {
	// Start and End are byte offsets into the request's Text; Text[Start:End] == Original.
	Start, End  int
	Original    string
	Replacement string
	Reason      string
}

// Usage counts the tokens a review consumed; Requests counts the provider calls.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	Requests         int   `json:"requests"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.TotalTokens += o.TotalTokens
	u.Requests += o.Requests
}

// Review is a provider's answer to a Request.
type Review struct {
	// Judgements hold one verdict per change of the request, in the request's order.
	Judgements []Judgement
	// Proposals are sorted by Start and overlap neither each other nor a change of the request.
	Proposals []Proposal
	// Usage is zero for a provider without tokens.
	Usage Usage
}

// Provider reviews documents. Implementations are safe for concurrent use.
type Provider interface {
	// Name is the provider's configuration name: "openai" or "rules".
	Name() string
	// Model names the model or rule set that gives the verdicts.
	Model() string
	// Review judges every change of req. An error means the review as a whole failed; its
	// message is shown to the client.
	Review(ctx context.Context, req Request) (*Review, error)
}

// FailedReview is the error of a review that failed after the provider had used tokens.
type FailedReview struct {
	Err   error
	Usage Usage
}

func (e *FailedReview) Error() string { return e.Err.Error() }

func (e *FailedReview) Unwrap() error { return e.Err }

// spent returns err with usage attached when any tokens were used.
func spent(err error, usage Usage) error {
	if usage == (Usage{}) {
		return err
	}
	return &FailedReview{Err: err, Usage: usage}
}

// PublicMessage returns what err says in words for API clients: the public message of the
// first error in its chain that has one (a provider's failure, which names no part of the
// operator's setup), or else err's own message.
func PublicMessage(err error) string {
	var pm interface{ PublicMessage() string }
	if errors.As(err, &pm) {
		return pm.PublicMessage()
	}
	return err.Error()
}

// UsageOf returns the tokens a failed review used, if its error says.
func UsageOf(err error) Usage {
	var fr *FailedReview
	if errors.As(err, &fr) {
		return fr.Usage
	}
	return Usage{}
}

// Repeatable reports whether p gives the same review of the same request every time, so that
// running it again over an unchanged transcript only repeats its last answer.
func Repeatable(p Provider) bool {
	r, ok := p.(interface{ Repeatable() bool })
	return ok && r.Repeatable()
}

// Finish turns a provider's raw verdicts and proposals into a Review of req: every change
// gets exactly one judgement (uncertain, with missing as the reason, when the provider gave
// none or an invalid one), reasons are trimmed to MaxReason runes, and proposals that are out
// of range, do not match the text, change nothing or overlap a change or an earlier proposal
// are dropped.
func Finish(req Request, verdicts map[string]Judgement, proposals []Proposal, missing string) *Review {
	rev := &Review{Judgements: make([]Judgement, len(req.Changes))}
	for i, c := range req.Changes {
		j, ok := verdicts[c.ID]
		if !ok || !j.Verdict.Valid() {
			j = Judgement{Verdict: Uncertain, Reason: missing}
		}
		j.ChangeID = c.ID
		j.Reason = ShortReason(j.Reason)
		rev.Judgements[i] = j
	}
	slices.SortStableFunc(proposals, func(a, b Proposal) int { return a.Start - b.Start })
	taken := func(start, end int) bool {
		i, _ := slices.BinarySearchFunc(req.Changes, end, func(c correction.Change, end int) int { return c.Start - end })
		// Changes are sorted and disjoint: only the one before i can reach into [start, end).
		if i > 0 && req.Changes[i-1].End > start {
			return true
		}
		if n := len(rev.Proposals); n > 0 && rev.Proposals[n-1].End > start {
			return true
		}
		return false
	}
	for _, p := range proposals {
		if p.Start < 0 || p.End > len(req.Text) || p.Start >= p.End || req.Text[p.Start:p.End] != p.Original ||
			p.Replacement == p.Original || !utf8.ValidString(p.Replacement) || taken(p.Start, p.End) {
			continue
		}
		p.Reason = ShortReason(p.Reason)
		rev.Proposals = append(rev.Proposals, p)
	}
	return rev
}

// ShortReason returns reason on one line, cut to MaxReason runes.
func ShortReason(reason string) string {
	reason = strings.Join(strings.Fields(reason), " ")
	if utf8.RuneCountInString(reason) <= MaxReason {
		return reason
	}
	r := []rune(reason)
	return strings.TrimSpace(string(r[:MaxReason-1])) + "…"
}
