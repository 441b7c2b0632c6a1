package transcripts

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// UnprocessableError is a request whose input the service cannot take as it is (the API's
// 422); Param names the offending member, Message says why in the API's words.
type UnprocessableError struct {
	Param, Message string
}

func (e *UnprocessableError) Error() string { return e.Message }

// Files reads the attributes of stored objects: the file of an upload.
type Files interface {
	Size(ctx context.Context, key string) (int64, error)
}

// Draft is the transcript a create request makes.
type Draft struct {
	// ID is the id of the new transcript.
	ID string
	// Source is what it is made from: a paste, a youtube or url source, or an upload grant
	// (with its UploadExpiresAt). Its InputRef is set from the organization and the id.
	Source tcsv1.TranscriptSource
	// Options are the transcript's options.
	Options tcsv1.TranscriptOptions
	// Resumed says that an earlier run of the same request may have created it already: a
	// transcript of that id of the organization is then the one made.
	Resumed bool
}

// Make creates the transcript of d for org and returns it, without a status: a paste is then
// completed (Complete), a youtube or url source queued (Queue), an upload grant waits for its
// file and its confirmation (ConfirmUpload).
func (s *Service) Make(ctx context.Context, org string, d Draft) (*tcsv1.Transcript, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	switch d.Source.Type {
	case tcsv1.SourcePaste, tcsv1.SourceYouTube, tcsv1.SourceURL, tcsv1.SourceUpload:
	default:
		return nil, fmt.Errorf("transcript %s: source type %q is not one of paste, youtube, url, upload", d.ID, d.Source.Type)
	}
	t, err := s.New(org, d.ID, d.Source, d.Options)
	if err != nil {
		return nil, err
	}
	err = s.Create(ctx, org, t)
	if !apierrors.IsAlreadyExists(err) || !d.Resumed {
		return t, err
	}
	prior, ferr := s.Find(ctx, org, d.ID)
	switch {
	case ferr != nil:
		return nil, ferr
	case prior == nil:
		// The earlier run's, discarded, went while Find waited: this run makes it anew.
		return t, s.Create(ctx, org, t)
	}
	return prior, nil
}

// firstJobs are the jobs that a transcript of each queued source kind starts with.
var firstJobs = map[tcsv1.SourceType]string{
	tcsv1.SourceYouTube: tcsv1.JobYouTubeFetch,
	tcsv1.SourceURL:     tcsv1.JobURLFetch,
	tcsv1.SourceUpload:  tcsv1.JobUploadIngest,
}

// queueFirstJob marks t pending with its first job queued, on behalf of the idempotency record
// record ("" for none), with the AI pass its options ask for.
func queueFirstJob(t *tcsv1.Transcript, record string, now metav1.Time) {
	t.Status.Phase = tcsv1.PhasePending
	t.Status.AIPassStatus = tcsv1.AIPassIdle
	if job := t.AddJob(firstJobs[t.Spec.Source.Type], now); job.IdempotencyRecord == "" {
		job.IdempotencyRecord = record
	}
	t.QueueRequestedAIPass(now)
	t.Emit(tcsv1.EventTranscriptCreated, now.Time)
}

// Queue writes the first status of t, a youtube or url transcript of org as Make returned it:
// pending, with its fetch job queued on behalf of the idempotency record record ("" for none).
// A transcript whose status the reconciler wrote first is left as it is.
func (s *Service) Queue(ctx context.Context, org string, t *tcsv1.Transcript, record string, now metav1.Time) error {
	if err := CheckOrg(org); err != nil {
		return err
	}
	if err := owned(org, t); err != nil {
		return err
	}
	if t.Spec.Source.Type != tcsv1.SourceYouTube && t.Spec.Source.Type != tcsv1.SourceURL {
		return fmt.Errorf("transcript %s: a %s source is not queued", t.Spec.ID, t.Spec.Source.Type)
	}
	return s.updateMade(ctx, org, t, func(t *tcsv1.Transcript) bool {
		if t.Status.Phase != "" {
			return false // the reconciler took it over, the request having been too slow
		}
		queueFirstJob(t, record, now)
		return true
	})
}

// Complete writes res, the deterministic pass of t, a paste of org as Make (or Find) returned
// it, as its result: the paste is completed at once, in one write. It reports whether this call completed it; false
// when it was completed already (by the reconciler, or an earlier run of the request), with
// the same result. A paste deleted meanwhile (the reconciler discards one whose request it
// takes for dead) is not written: its error is ErrGone.
func (s *Service) Complete(ctx context.Context, org string, t *tcsv1.Transcript, res *pipeline.Result, now metav1.Time) (bool, error) {
	if err := CheckOrg(org); err != nil {
		return false, err
	}
	if err := owned(org, t); err != nil {
		return false, err
	}
	if t.Spec.Source.Type != tcsv1.SourcePaste {
		return false, fmt.Errorf("transcript %s: a %s source is not completed at once", t.Spec.ID, t.Spec.Source.Type)
	}
	keys := pipeline.KeysFor(org, t.Spec.ID)
	completed := false
	err := s.updateMade(ctx, org, t, func(t *tcsv1.Transcript) bool {
		completed = false
		if t.Status.Phase == tcsv1.PhaseCompleted {
			return false
		}
		if t.Status.AIPassStatus == "" {
			t.Status.AIPassStatus = tcsv1.AIPassIdle
		}
		res.Complete(t, keys, now.Time)
		completed = true
		return true
	})
	return completed && err == nil, err
}

// Confirmation is the confirmation of an upload grant.
type Confirmation struct {
	// Options are the options given at the confirmation, and Given names those of its members
	// the request sent (such as "options.ai_pass.enabled").
	Options tcsv1.TranscriptOptions
	Given   []string
	// Record names the idempotency record of the request, "" for none: a confirmation by an
	// earlier run of the same request is the answer, not a conflict.
	Record string
	// Now is the time of the request.
	Now metav1.Time
}

// ConfirmUpload turns upload grant id of org, whose file arrived, into a pending transcript
// with its ingest job queued, and returns it. An id that is not an upload, an expired grant
// or options that contradict the grant's are a *ParamError; a grant confirmed already or
// whose file has not arrived, a *ConflictError; a file above the limit, an
// *UnprocessableError (each naming transcript_id or the option).
func (s *Service) ConfirmUpload(ctx context.Context, org, id string, c Confirmation) (*tcsv1.Transcript, error) {
	t, err := s.Upload(ctx, org, id)
	if err != nil {
		return nil, err
	}
	confirmed := &ConflictError{Param: "transcript_id", Message: fmt.Sprintf("Upload %s is already confirmed.", apiview.Quote(id))}
	switch {
	case t.Spec.Source.Type != tcsv1.SourceUpload:
		return nil, &ParamError{"transcript_id", fmt.Sprintf("%s is not an upload; its source_type is %s.", apiview.Quote(id), t.Spec.Source.Type)}
	case t.Status.Phase != "" && ownJob(c.Record, t) != nil:
		return t, nil // an earlier run of this request confirmed it
	case t.Status.Phase != "":
		return nil, confirmed
	case t.Spec.Source.UploadExpiresAt != nil && !c.Now.Before(t.Spec.Source.UploadExpiresAt):
		return nil, &ParamError{"transcript_id", fmt.Sprintf("The upload grant %s expired at %s; request a new one.", apiview.Quote(id), apiview.Timestamp(*t.Spec.Source.UploadExpiresAt))}
	}
	if s.Files == nil {
		return nil, fmt.Errorf("upload %s: no store of uploaded files", id)
	}
	size, err := s.Files.Size(ctx, t.Spec.Source.InputRef)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return nil, &ConflictError{Param: "transcript_id", Message: fmt.Sprintf("The file of upload %s has not arrived; PUT it to the upload_url first.", apiview.Quote(id))}
	case err != nil:
		return nil, err
	case size > limits.MaxRemoteFile:
		return nil, &UnprocessableError{"transcript_id", fmt.Sprintf("The uploaded file is %d bytes; the limit is %d bytes (5 MB).", size, limits.MaxRemoteFile)}
	}
	opts, err := MergeOptions(t.Spec.Options, c.Options, c.Given)
	if err != nil {
		return nil, err
	}
	if !opts.Equal(t.Spec.Options) {
		// The options given at confirmation join the grant's before the job is queued, so that
		// every pass of the transcript runs with them.
		if err := s.SetOptions(ctx, org, t, opts); err != nil {
			return nil, fmt.Errorf("applying the options of upload %s: %w", id, err)
		}
	}
	var already bool
	err = s.UpdateStatus(ctx, org, t, func(t *tcsv1.Transcript) bool {
		if t.Status.Phase != "" {
			already = ownJob(c.Record, t) == nil
			return false
		}
		queueFirstJob(t, c.Record, c.Now)
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case already:
		return nil, confirmed
	}
	return t, nil
}

// MergeOptions returns the options of an upload grant with those given at its confirmation
// (given names the members the confirmation sent, each key of metadata as
// options.metadata.<key>): a member the grant left unset (false or empty) takes the
// confirmation's value; one the grant set to another value is a *ParamError naming it. The
// metadata of both join, within tcsv1.MaxMetadataKeys, and the thresholds joined must still
// have suggest at most auto_apply.
func MergeOptions(grant, confirm tcsv1.TranscriptOptions, given []string) (tcsv1.TranscriptOptions, error) {
	out := grant
	out.Categories = slices.Clone(grant.Categories)
	out.Metadata = maps.Clone(grant.Metadata)
	if grant.Thresholds != nil {
		th := *grant.Thresholds
		out.Thresholds = &th
	}
	var grantThresholds, confirmThresholds tcsv1.Thresholds
	if grant.Thresholds != nil {
		grantThresholds = *grant.Thresholds
	}
	if confirm.Thresholds != nil {
		confirmThresholds = *confirm.Thresholds
	}
	for _, param := range given {
		var g, c any
		switch param {
		case "options.ai_pass.enabled":
			g, c = grant.AIPass.Enabled, confirm.AIPass.Enabled
			out.AIPass.Enabled = grant.AIPass.Enabled || confirm.AIPass.Enabled
		case "options.ai_pass.apply":
			g, c = grant.AIPass.Apply, confirm.AIPass.Apply
			out.AIPass.Apply = grant.AIPass.Apply || confirm.AIPass.Apply
		case "options.normalize_references":
			g, c = grant.NormalizeReferences, confirm.NormalizeReferences
			out.NormalizeReferences = grant.NormalizeReferences || confirm.NormalizeReferences
		case "options.language":
			g, c = grant.Language, confirm.Language
			if grant.Language == "" {
				out.Language = confirm.Language
			}
		case "options.categories":
			g, c = strings.Join(grant.Categories, ","), strings.Join(confirm.Categories, ",")
			if len(grant.Categories) == 0 {
				out.Categories = slices.Clone(confirm.Categories)
			}
		case "options.thresholds.auto_apply", "options.thresholds.suggest":
			gv, cv := &grantThresholds.AutoApply, confirmThresholds.AutoApply
			if param == "options.thresholds.suggest" {
				gv, cv = &grantThresholds.Suggest, confirmThresholds.Suggest
			}
			g, c = *gv, cv
			if *gv == "" {
				*gv = cv
			}
		default:
			key, ok := strings.CutPrefix(param, "options.metadata.")
			if !ok {
				continue
			}
			gv, had := grant.Metadata[key]
			cv := confirm.Metadata[key]
			if had && gv != cv {
				return grant, &ParamError{param, fmt.Sprintf("%s is %s in the upload grant and %s at its confirmation; send the grant's value or leave it out.",
					param, apiview.Quote(gv), apiview.Quote(cv))}
			}
			if out.Metadata == nil {
				out.Metadata = map[string]string{}
			}
			out.Metadata[key] = cv
			continue
		}
		if g != c && g != false && g != "" {
			return grant, &ParamError{param, fmt.Sprintf("%s is %v in the upload grant and %v at its confirmation; send the grant's value or leave it out.", param, g, c)}
		}
	}
	if len(out.Metadata) > tcsv1.MaxMetadataKeys {
		return grant, &ParamError{"options.metadata", fmt.Sprintf("options.metadata of the upload grant and of its confirmation have %d keys together; the limit is %d.",
			len(out.Metadata), tcsv1.MaxMetadataKeys)}
	}
	if grantThresholds != (tcsv1.Thresholds{}) {
		out.Thresholds = &grantThresholds
		if err := CheckThresholds(grantThresholds); err != nil {
			return grant, err
		}
	}
	return out, nil
}

// CheckThresholds tells whether t's bounds are in order: suggest at most auto_apply, as
// correction.Thresholds.Validate says; its error is a *ParamError naming the bound. Each
// bound is a confidence tcsv1.ParseConfidence reads; one left out does not bound the other.
func CheckThresholds(t tcsv1.Thresholds) error {
	bounds := correction.Thresholds{AutoApply: 1}
	for _, b := range []struct {
		text  string
		value *float64
		param string
	}{{t.AutoApply, &bounds.AutoApply, "options.thresholds.auto_apply"}, {t.Suggest, &bounds.Suggest, "options.thresholds.suggest"}} {
		if b.text == "" {
			continue
		}
		v, err := tcsv1.ParseConfidence(b.text)
		if err != nil {
			return &ParamError{b.param, fmt.Sprintf("%s %s.", b.param, err)}
		}
		*b.value = v
	}
	if err := bounds.Validate(); err != nil {
		var fe *correction.FieldError
		if errors.As(err, &fe) {
			param := "options.thresholds." + fe.Field
			return &ParamError{param, fmt.Sprintf("%s %s.", param, fe.Reason)}
		}
		return &ParamError{"options.thresholds", err.Error()}
	}
	return nil
}
