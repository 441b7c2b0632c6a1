// Package pipeline runs the deterministic pass over a document and keeps its results in the
// object store: the input, the corrected content and the change list, under keys derived from
// the organization and transcript ids so that running it again writes the same objects.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"

	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/formats"
)

// MaxTitleRunes bounds a title taken from the content.
const MaxTitleRunes = 200

// Keys are the object-store keys of one transcript.
type Keys struct {
	Input   string
	Content string
	Changes string
	// AIChanges is the change list with the AI pass's verdicts and proposals.
	AIChanges string
	// AIContent is the content with the AI pass's verdicts applied.
	AIContent string
}

// KeysFor returns the object-store keys of transcript id of organization org.
func KeysFor(org, id string) Keys {
	base := "transcripts/" + org + "/" + id + "/"
	return Keys{Input: base + "input", Content: base + "content", Changes: base + "changes.json",
		AIChanges: base + "changes.ai.json", AIContent: base + "content.ai"}
}

// All returns every key of k.
func (k Keys) All() []string {
	return []string{k.Input, k.Content, k.Changes, k.AIChanges, k.AIContent}
}

// Result is the outcome of the deterministic pass over one document.
type Result struct {
	// Format is the format the document was read as (given or sniffed).
	Format formats.Format
	// Content is the corrected document.
	Content []byte
	// Changes are the corrections, with offsets into the submitted document.
	Changes []correction.Change
	// Summary counts the changes.
	Summary correction.Summary
	// Title is the first non-empty line of the corrected text, for a transcript without one.
	Title string
}

// ContentError says that a document could not be read in its format: the client's fault.
type ContentError struct {
	Format formats.Format
	Err    error
}

func (e *ContentError) Error() string {
	var le *formats.LimitError
	if errors.As(e.Err, &le) {
		return fmt.Sprintf("the %s content is beyond what the service processes: %s", e.Format, le.Reason)
	}
	return fmt.Sprintf("the content is not valid %s: %v", e.Format, e.Err)
}

func (e *ContentError) Unwrap() error { return e.Err }

// Processor corrects documents and stores the results.
type Processor struct {
	engine *correction.Engine
	store  *blob.Store
	// observe, when set, hears of every deterministic pass.
	observe func(format string, bytes int, took time.Duration)
}

// ObserveCorrections has observe called after every deterministic pass with the document's
// format, its size and the time the pass took (the service records them as metrics). Call it
// before p is in use.
func (p *Processor) ObserveCorrections(observe func(format string, bytes int, took time.Duration)) {
	p.observe = observe
}

// New returns a Processor that corrects with engine and stores into store; a nil store
// serves Correct alone (the offline CLI).
func New(engine *correction.Engine, store *blob.Store) *Processor {
	return &Processor{engine: engine, store: store}
}

// Correct runs the deterministic pass over content; an empty format means it is sniffed. The
// text extracted from content may be as long as a remote file (limits.MaxRemoteFile).
func (p *Processor) Correct(content []byte, format formats.Format, opts correction.Options) (*Result, error) {
	return p.CorrectWithin(content, format, opts, formats.Limits{})
}

// CorrectWithin is Correct within lim: content beyond lim fails with a ContentError whose
// error matches formats.ErrTooLarge.
func (p *Processor) CorrectWithin(content []byte, format formats.Format, opts correction.Options, lim formats.Limits) (*Result, error) {
	doc, err := p.Read(content, format, lim)
	if err != nil {
		return nil, err
	}
	return p.CorrectDocument(doc, opts)
}

// Document is a document read in its format, ready for the deterministic pass.
type Document struct {
	format formats.Format
	view   *formats.View
	size   int
	// read is how long reading it took, a part of the pass's time.
	read time.Duration
}

// Read reads content in format (sniffed when empty) within lim. Content it cannot read, or
// beyond lim, fails with a *ContentError: this is the only way the pass refuses a document.
func (p *Processor) Read(content []byte, format formats.Format, lim formats.Limits) (*Document, error) {
	start := time.Now()
	if format == "" {
		format = formats.Sniff(content)
	}
	view, err := formats.ExtractWithin(content, format, lim)
	if err != nil {
		return nil, &ContentError{Format: format, Err: err}
	}
	return &Document{format: format, view: view, size: len(content), read: time.Since(start)}, nil
}

// CorrectDocument runs the deterministic pass over doc, as Read returned it.
func (p *Processor) CorrectDocument(doc *Document, opts correction.Options) (*Result, error) {
	start := time.Now()
	view := doc.view
	found := p.engine.Find(view.Text, opts)
	edits := make([]formats.Edit, 0, len(found))
	changes := make([]correction.Change, 0, len(found))
	for _, c := range found {
		if c.Status == correction.StatusAutoApplied {
			edits = append(edits, formats.Edit{Start: c.Start, End: c.End, Replacement: c.Replacement})
		}
		changes = append(changes, toSource(view, c))
	}
	out, err := view.Rewrite(edits)
	if err != nil {
		return nil, fmt.Errorf("writing the corrected %s: %w", doc.format, err)
	}
	if p.observe != nil {
		p.observe(string(doc.format), doc.size, doc.read+time.Since(start))
	}
	return &Result{
		Format:  doc.format,
		Content: out,
		Changes: changes,
		Summary: correction.Summarize(changes),
		Title:   FirstLine(correction.Apply(view.Text, found)),
	}, nil
}

// toSource returns c, found in the text of view, with offsets and line in the submitted
// document instead. Its original stays the text's: where Source is ok the source holds the
// same bytes, and a DOCX change's offsets are into word/document.xml, not into the archive.
func toSource(view *formats.View, c correction.Change) correction.Change {
	mapped := c
	if s, e, ok := view.Source(c.Start, c.End); ok {
		mapped.Start, mapped.End = s, e
	} else {
		s0, _, _ := view.Source(c.Start, c.Start)
		e0, _, _ := view.Source(c.End, c.End)
		mapped.Start, mapped.End = s0, e0
	}
	mapped.Line = view.Line(c.Start)
	return mapped
}

// Save stores the input, the corrected content and the change list of res under keys.
func (p *Processor) Save(ctx context.Context, keys Keys, input []byte, res *Result) error {
	if err := p.SaveInput(ctx, keys, input); err != nil {
		return err
	}
	return p.saveResults(ctx, keys, res)
}

// SaveInput stores input under keys.Input, from which the reconciler corrects a paste left
// without a status (and deletes one left without its input: its request never answered).
func (p *Processor) SaveInput(ctx context.Context, keys Keys, input []byte) error {
	if err := p.store.Put(ctx, keys.Input, input, "application/octet-stream"); err != nil {
		return fmt.Errorf("storing the input: %w", err)
	}
	return nil
}

// SaveResults stores the corrected content and the change list of res under keys; they must
// be stored before a status names them.
func (p *Processor) SaveResults(ctx context.Context, keys Keys, res *Result) error {
	return p.saveResults(ctx, keys, res)
}

// Reprocess corrects the input already stored under keys.Input and stores the results.
func (p *Processor) Reprocess(ctx context.Context, keys Keys, format formats.Format, opts correction.Options) (*Result, error) {
	input, err := p.store.Get(ctx, keys.Input)
	if err != nil {
		return nil, fmt.Errorf("reading the input: %w", err)
	}
	res, err := p.Correct(input, format, opts)
	if err != nil {
		return nil, err
	}
	if err := p.saveResults(ctx, keys, res); err != nil {
		return nil, err
	}
	return res, nil
}

func (p *Processor) saveResults(ctx context.Context, keys Keys, res *Result) error {
	changes, err := json.Marshal(res.Changes)
	if err != nil {
		return fmt.Errorf("encoding the change list: %w", err)
	}
	if err := p.store.Put(ctx, keys.Changes, changes, "application/json"); err != nil {
		return fmt.Errorf("storing the change list: %w", err)
	}
	if err := p.store.Put(ctx, keys.Content, res.Content, "text/plain; charset=utf-8"); err != nil {
		return fmt.Errorf("storing the corrected content: %w", err)
	}
	return nil
}

// Complete records res on t: phase completed, the summary, the effective format and title,
// the object-store references and the conditions.
func (res *Result) Complete(t *tcsv1.Transcript, keys Keys, now time.Time) {
	st := &t.Status
	st.Phase = tcsv1.PhaseCompleted
	if st.AIPassStatus == "" {
		st.AIPassStatus = tcsv1.AIPassIdle
	}
	st.Format = string(res.Format)
	if st.Title == "" {
		st.Title = t.Spec.Source.Title
	}
	if st.Title == "" {
		st.Title = res.Title
	}
	st.ChangesSummary = changesSummary(res.Summary)
	st.ContentRef = keys.Content
	st.ChangesRef = keys.Changes
	st.Error = nil
	done := metav1.NewTime(now)
	if st.CompletedAt == nil {
		st.CompletedAt = &done
	}
	job := t.AddJob(tcsv1.JobCorrection, done)
	if job.StartedAt == nil {
		job.StartedAt = &done
	}
	job.State, job.Progress, job.Error, job.FinishedAt = tcsv1.JobSucceeded, 100, "", &done
	t.QueueRequestedAIPass(done)
	// The events go in the same status update as the transition they announce.
	t.Emit(tcsv1.EventTranscriptCreated, now)
	t.Emit(tcsv1.EventTranscriptCompleted, now)
	t.SyncConditions()
}

// changesSummary returns s as a transcript's status records it.
func changesSummary(s correction.Summary) *tcsv1.ChangesSummary {
	by := make(map[string]int, len(s.ByCategory))
	for k, n := range s.ByCategory {
		by[k] = n
	}
	return &tcsv1.ChangesSummary{Total: s.Total, AutoApplied: s.AutoApplied, NeedsReview: s.NeedsReview, AIFlagged: s.AIFlagged, ByCategory: by}
}

// Content reads the corrected content stored under key.
func (p *Processor) Content(ctx context.Context, key string) ([]byte, error) {
	return p.store.Get(ctx, key)
}

// FirstLine returns the first non-empty line of text, trimmed and cut to MaxTitleRunes runes.
func FirstLine(text string) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > MaxTitleRunes {
			runes := []rune(line)
			line = strings.TrimSpace(string(runes[:MaxTitleRunes]))
		}
		return line
	}
	return ""
}

// CorrectionOptions returns the options of the deterministic pass for a transcript's options:
// its categories, and its thresholds (a bound left out keeps the engine's decisions; one the
// CRD's validation would refuse is left out too). The organization's glossary is the caller's
// to add.
func CorrectionOptions(o tcsv1.TranscriptOptions) correction.Options {
	opts := correction.Options{NormalizeReferences: o.NormalizeReferences, Categories: slices.Clone(o.Categories)}
	if t := o.Thresholds; t != nil {
		if v, err := tcsv1.ParseConfidence(t.AutoApply); err == nil {
			opts.Thresholds.AutoApply = v
		}
		if v, err := tcsv1.ParseConfidence(t.Suggest); err == nil {
			opts.Thresholds.Suggest = v
		}
	}
	return opts
}
