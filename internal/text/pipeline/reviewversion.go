package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"

	"tcs.dev/tcs/internal/text/formats"
)

// ReviewKeys are the object-store keys of one version of a transcript's review.
type ReviewKeys struct {
	// Content is the reviewed content.
	Content string
	// Changes is the change list with the decisions (JSON).
	Changes string
	// Decisions is the log of decisions (JSON), in the order made.
	Decisions string
}

// All returns every key of k.
func (k ReviewKeys) All() []string {
	return []string{k.Content, k.Changes, k.Decisions}
}

// Review returns the keys of review version version of the transcript with keys k, for the
// result whose digest is digest: transcripts/ORG/ID/review/000002-DIGEST/content,
// changes.json and decisions.json. The digest keeps two writers of the same version apart, so
// that the one whose status write loses never overwrites the winner's objects.
func (k Keys) Review(version int64, digest string) ReviewKeys {
	base := k.ReviewPrefix() + fmt.Sprintf("%06d-%s/", version, digest)
	return ReviewKeys{Content: base + "content", Changes: base + "changes.json", Decisions: base + "decisions.json"}
}

// ReviewPrefix returns the prefix of the keys of every review version of the transcript with
// keys k (transcripts/ORG/ID/review/), which All does not list: they are removed by prefix.
func (k Keys) ReviewPrefix() string {
	return path.Dir(k.Input) + "/review/"
}

// DecisionInput is what recording review decisions needs to know about a transcript.
type DecisionInput struct {
	Keys Keys
	// Format is the effective format the transcript was read as.
	Format formats.Format
	// BaseChanges is the key of the change list the decisions apply to: the transcript's
	// changesRef, the deterministic pass's list or the AI pass's.
	BaseChanges string
	// Log is the key of the decisions already recorded (the current review version's
	// decisions); empty before the first.
	Log string
	// Version is the review version to write: the current one plus 1, 1 for the first.
	Version int64
	// Batch are the decisions of this call.
	Batch []Decision
}

// ErrReviewMoved says that a transcript's review moved on since its new version was
// computed: another reviewer recorded decisions in between.
var ErrReviewMoved = errors.New("the transcript's review changed since these decisions were applied; read it again and resend them")

// Decide applies the recorded decisions and in.Batch to the stored input and change list of a
// transcript (see Decide) and stores the result as review version in.Version, under keys
// that Reviewed.Record then writes into the transcript's status. The objects are written
// before the status names them and are never overwritten with other bytes: until the status
// write, the version in force stays the old one, and writing the same decisions again writes
// the same objects.
func (p *Processor) Decide(ctx context.Context, in DecisionInput) (*Reviewed, ReviewKeys, error) {
	input, err := p.store.Get(ctx, in.Keys.Input)
	if err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("reading the input: %w", err)
	}
	rawChanges, err := p.store.Get(ctx, in.BaseChanges)
	if err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("reading the change list: %w", err)
	}
	var changes []Change
	if err := json.Unmarshal(rawChanges, &changes); err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("decoding the change list: %w", err)
	}
	var log []Decision
	if in.Log != "" {
		raw, err := p.store.Get(ctx, in.Log)
		if err != nil {
			return nil, ReviewKeys{}, fmt.Errorf("reading the recorded decisions: %w", err)
		}
		if err := json.Unmarshal(raw, &log); err != nil {
			return nil, ReviewKeys{}, fmt.Errorf("decoding the recorded decisions: %w", err)
		}
	}
	rev, err := Decide(input, in.Format, changes, log, in.Batch)
	if err != nil {
		return nil, ReviewKeys{}, err
	}
	rawLog, err := json.Marshal(rev.Log)
	if err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("encoding the decisions: %w", err)
	}
	rawReviewed, err := json.Marshal(rev.Changes)
	if err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("encoding the reviewed change list: %w", err)
	}
	keys := in.Keys.Review(in.Version, digest(input, rawChanges, rawLog))
	if err := p.store.Put(ctx, keys.Content, rev.Content, "text/plain; charset=utf-8"); err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("storing the reviewed content: %w", err)
	}
	if err := p.store.Put(ctx, keys.Changes, rawReviewed, "application/json"); err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("storing the reviewed change list: %w", err)
	}
	if err := p.store.Put(ctx, keys.Decisions, rawLog, "application/json"); err != nil {
		return nil, ReviewKeys{}, fmt.Errorf("storing the decisions: %w", err)
	}
	return rev, keys, nil
}

// digest returns a short hash of what a review version is computed from, so that its keys
// hold the same bytes whenever they are written.
func digest(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Record makes rev, stored under keys as review version version of the change list under
// baseChanges, the transcript's current review. It fails with ErrReviewMoved, changing
// nothing, when t's review is no longer at version-1 or t's change list is no longer
// baseChanges (an AI pass completed meanwhile).
func (rev *Reviewed) Record(t *tcsv1.Transcript, keys ReviewKeys, baseChanges string, version int64) error {
	current := int64(0)
	if t.Status.Review != nil {
		current = t.Status.Review.Version
	}
	if current != version-1 || t.Status.ChangesRef != baseChanges {
		return ErrReviewMoved
	}
	st := &tcsv1.ReviewStatus{Version: version, Undecided: rev.Undecided, Decided: rev.Decided,
		ChangesSummary: changesSummary(rev.Summary), BaseChangesRef: baseChanges,
		ContentRef: keys.Content, ChangesRef: keys.Changes, DecisionsRef: keys.Decisions}
	if d, ok := rev.LastDecision(); ok {
		at := metav1.NewTime(d.At.Truncate(time.Second))
		st.LastDecidedBy, st.LastDecidedAt = d.By, &at
	}
	t.Status.Review = st
	return nil
}
