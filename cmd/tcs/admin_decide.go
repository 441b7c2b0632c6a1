package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// decideFlags are the decisions of tcs admin transcript decide.
type decideFlags struct {
	store, by, file string
	accept, reject  []string
	replace, add    []string
	version         int64
	content         bool
}

// newAdminDecideCommand returns tcs admin transcript decide.
func newAdminDecideCommand(o *adminOptions) *cobra.Command {
	f := &decideFlags{}
	cmd := &cobra.Command{
		Use:   "decide TRANSCRIPT_ID",
		Short: "Record review decisions on a transcript's changes, as POST /api/v1/transcripts/{id}/decisions does",
		Long: `decide records a batch of review decisions on a completed transcript, live or archived (an
archived one is brought back, as the API does), and prints the transcript as the API shows it
with its reviewed content. Decisions come from flags, applied in this order: --accept, --reject,
--replace, --add; or from --decisions, a JSON file ("-" for stdin) holding the API's body
({"decisions":[...]}) or its array. --review-version makes the batch apply only to that review
version (the transcript's review.version): a review that moved since is refused.`,
		Example: `  tcs admin transcript decide tr_… --store /var/lib/tcs/store --by pastor@church.org \
    --accept chg_0003 --reject chg_0007 --replace chg_0009=Habakkuk --add 120:128=Capernaum:place`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.decide(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", envOr("TCS_STORE", "/var/lib/tcs/store"), "object store of the service, its --store (env TCS_STORE)")
	fl.StringVar(&f.by, "by", "", "who decides, recorded with each decision: an email or a name (required)")
	fl.StringVar(&f.file, "decisions", "", `JSON file of the decisions ("-" for stdin): {"decisions":[...]} or [...]`)
	fl.StringSliceVar(&f.accept, "accept", nil, "change ids to accept (apply)")
	fl.StringSliceVar(&f.reject, "reject", nil, "change ids to reject (take out of the content)")
	fl.StringArrayVar(&f.replace, "replace", nil, "CHANGE_ID=TEXT: apply the change with TEXT instead of its own")
	fl.StringArrayVar(&f.add, "add", nil, "START:END=TEXT[:CATEGORY]: a new change over bytes START to END of the submitted content")
	fl.Int64Var(&f.version, "review-version", -1, "the review version the decisions are based on; -1 applies them to the latest")
	fl.BoolVar(&f.content, "content", false, "print the reviewed content only, not the transcript")
	return cmd
}

// decide runs tcs admin transcript decide.
func (o *adminOptions) decide(cmd *cobra.Command, id string, f *decideFlags) error {
	if strings.TrimSpace(f.by) == "" {
		return errors.New("--by is required: who decides")
	}
	batch, err := f.decisions(cmd.InOrStdin())
	if err != nil {
		return err
	}
	c, err := o.transcriptClient(id)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	rs, err := o.results(ctx)
	if err != nil {
		return err
	}
	defer rs.Close()
	// The organization is the transcript's own: the cluster admin acts for it.
	t := &tcsv1.Transcript{}
	err = c.Get(ctx, types.NamespacedName{Namespace: o.namespace, Name: tcsv1.TranscriptName(id)}, t)
	if apierrors.IsNotFound(err) {
		rec, rerr := rs.Get(ctx, id, results.GetOptions{})
		if errors.Is(rerr, results.ErrNotFound) {
			return fmt.Errorf("transcript %s does not exist (or is deleted)", id)
		}
		if rerr != nil {
			return rerr
		}
		t, err = rec.Transcript, nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", id, err)
	}
	store, err := blob.Open(ctx, f.store, blob.Options{})
	if err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	defer store.Close()
	engine, err := correction.NewEngine()
	if err != nil {
		return err
	}
	processor := pipeline.New(engine, store)
	svc := &transcripts.Service{Namespace: o.namespace, Cache: c, APIReader: c, Client: c, Store: processor,
		Results: rs, Processor: processor, Clock: o.clock}
	var version *int64
	if f.version >= 0 {
		version = &f.version
	}
	org := t.Spec.Organization
	t, err = svc.Decide(ctx, org, id, transcripts.Batch{Decisions: batch, By: f.by}, version)
	var (
		de       *pipeline.DecisionError
		moved    *transcripts.ReviewMovedError
		conflict *transcripts.ConflictError
	)
	switch {
	case errors.As(err, &de):
		return fmt.Errorf("%s", strings.Replace(de.Message, "decisions[", "decision [", 1))
	case errors.As(err, &moved):
		return fmt.Errorf("the review of %s is at version %d, not %d: someone decided since; look at it again and rerun with --review-version %d", id, moved.Current, moved.Expected, moved.Current)
	case errors.As(err, &conflict):
		return errors.New(conflict.Message)
	case err != nil:
		return fmt.Errorf("deciding on %s: %w", id, err)
	}
	content, err := svc.Content(ctx, org, t)
	if err != nil {
		return err
	}
	if f.content {
		if content != nil {
			_, err = io.WriteString(cmd.OutOrStdout(), *content)
		}
		return err
	}
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(apiview.NewTranscript(t, content))
}

// decisions returns the batch the flags give, in order.
func (f *decideFlags) decisions(stdin io.Reader) ([]pipeline.Decision, error) {
	var out []pipeline.Decision
	if f.file != "" {
		var raw []byte
		var err error
		if f.file == "-" {
			raw, err = io.ReadAll(stdin)
		} else {
			raw, err = os.ReadFile(f.file)
		}
		if err != nil {
			return nil, fmt.Errorf("--decisions: %w", err)
		}
		raw = bytes.TrimSpace(raw)
		if bytes.HasPrefix(raw, []byte("{")) {
			var body struct {
				Decisions []pipeline.Decision `json:"decisions"`
			}
			err = strictJSON(raw, &body)
			out = body.Decisions
		} else {
			err = strictJSON(raw, &out)
		}
		if err != nil {
			return nil, fmt.Errorf("--decisions: %w", err)
		}
		for i, d := range out {
			if d.By != "" || !d.At.IsZero() {
				return nil, fmt.Errorf("--decisions: decision %d names by or at; --by and the time of the call give them", i)
			}
		}
	}
	for _, id := range f.accept {
		out = append(out, pipeline.Decision{ChangeID: id, Action: pipeline.ActionAccept})
	}
	for _, id := range f.reject {
		out = append(out, pipeline.Decision{ChangeID: id, Action: pipeline.ActionReject})
	}
	for _, r := range f.replace {
		id, text, ok := strings.Cut(r, "=")
		if !ok {
			return nil, fmt.Errorf("--replace %q: want CHANGE_ID=TEXT", r)
		}
		out = append(out, pipeline.Decision{ChangeID: id, Action: pipeline.ActionReplace, Replacement: text})
	}
	for _, a := range f.add {
		d, err := parseAdd(a)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("no decisions: give --accept, --reject, --replace, --add or --decisions")
	}
	return out, nil
}

// parseAdd reads START:END=TEXT[:CATEGORY].
func parseAdd(s string) (pipeline.Decision, error) {
	bad := fmt.Errorf("--add %q: want START:END=TEXT or START:END=TEXT:CATEGORY", s)
	span, rest, ok := strings.Cut(s, "=")
	if !ok {
		return pipeline.Decision{}, bad
	}
	from, to, ok := strings.Cut(span, ":")
	if !ok {
		return pipeline.Decision{}, bad
	}
	start, err1 := strconv.Atoi(from)
	end, err2 := strconv.Atoi(to)
	if err1 != nil || err2 != nil {
		return pipeline.Decision{}, bad
	}
	d := pipeline.Decision{Action: pipeline.ActionAdd, Start: start, End: end, Replacement: rest}
	if i := strings.LastIndex(rest, ":"); i >= 0 && categoryLike(rest[i+1:]) {
		d.Replacement, d.Category = rest[:i], rest[i+1:]
	}
	return d, nil
}

// categoryLike reports whether s looks like a category name rather than part of a
// replacement (a replacement may hold a colon, as in "John 3:16").
func categoryLike(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// strictJSON decodes raw into v, refusing unknown members.
func strictJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
