// Package transcripts is the organization-scoped access to transcripts: the one place that
// decides what an organization may see and do of transcripts, their jobs, changes, uploads and
// archived records. The API's handlers and the dashboard both call it as Go; neither reads a
// transcript any other way.
//
// Every method takes the organization first and refuses an empty or malformed one before it
// touches anything. A transcript of another organization is ErrForeign (the API answers 403;
// the dashboard shows its "not found" page); one that does not exist, is deleted or is an
// unconfirmed upload is ErrNotFound.
package transcripts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/kube/finalizers"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/kube/workingset"
	"tcs.dev/tcs/internal/platform/results"
	"tcs.dev/tcs/internal/text/pipeline"
)

// ErrNotFound is returned for a transcript (or job, or upload) that does not exist for the
// organization: never made, deleted, or an upload not yet confirmed.
var ErrNotFound = errors.New("not found")

// ErrForeign is returned for a transcript (or job, or upload) that exists but belongs to
// another organization.
var ErrForeign = errors.New("belongs to another organization")

// ErrDeleted is returned by Delete for a transcript that a concurrent delete removed first.
var ErrDeleted = errors.New("already deleted")

// ErrGone says that a transcript is gone from the cluster, or being deleted from it, and took
// no write; it comes with the API server's NotFound error.
var ErrGone = errors.New("gone from the cluster")

// OrgError is an organization refused before anything was read: empty or not an org_… id.
type OrgError struct{ Org string }

func (e *OrgError) Error() string {
	if e.Org == "" {
		return "no organization given"
	}
	return fmt.Sprintf("%q is not an organization id (org_…)", e.Org)
}

// Unwrap makes an OrgError an orgs.ErrNoOrganization.
func (e *OrgError) Unwrap() error { return orgs.ErrNoOrganization }

// CheckOrg refuses an empty or malformed organization id (orgs.CheckOrganization) with an
// *OrgError.
func CheckOrg(org string) error {
	if orgs.CheckOrganization(org) != nil {
		return &OrgError{Org: org}
	}
	return nil
}

// Content reads stored objects (corrected content, changes) by key.
type Content interface {
	Content(ctx context.Context, key string) ([]byte, error)
}

// Service reads and writes the transcripts of organizations in one namespace.
type Service struct {
	// Namespace holds the transcripts.
	Namespace string
	// Cache serves lists; it must have the IndexOrganization index on transcripts.
	Cache client.Reader
	// APIReader reads from the API server directly, for objects the cache may not have yet.
	APIReader client.Reader
	// Client writes objects.
	Client client.Client
	// Store reads the stored content and changes.
	Store Content
	// Results is the results store of archived transcripts; nil means none are archived.
	Results *results.Store
	// Files holds the files of uploads; nil refuses their confirmation.
	Files Files
	// Processor records review decisions (Decide); nil refuses them.
	Processor *pipeline.Processor
	// Clock is what the time of decisions is read from; nil means the real clock.
	Clock clock.PassiveClock
	// ReviewStored, when set, is called once the objects of a new review version of transcript
	// id are stored and before its status names them (tests stop a process there).
	ReviewStored func(ctx context.Context, id string)
	// Written, when set, is called after each status write with the transcript as written
	// (the API notes it there for its lists).
	Written func(ctx context.Context, t *tcsv1.Transcript)
	// Listing, when set, is called before a list of org reads the cache (the API waits there
	// until its informer cache holds the organization's writes that Written saw).
	Listing func(ctx context.Context, org string)
}

// discardWait bounds how long a request that resumes an earlier run waits for the transcript
// of that run, being discarded, to go: the reconciler's removal of its stored objects.
const discardWait = 10 * time.Second

// IndexOrganization is the cache index of transcripts by their organization id.
const IndexOrganization = "tcs.dev/transcript-organization"

// OrganizationIndex extracts the index value of IndexOrganization.
func OrganizationIndex(obj client.Object) []string {
	if t, ok := obj.(*tcsv1.Transcript); ok && t.Spec.Organization != "" {
		return []string{t.Spec.Organization}
	}
	return nil
}

func (s *Service) key(id string) types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: tcsv1.TranscriptName(id)}
}

// Belongs is the one "not yours" rule: it reports whether t belongs to org. An empty org
// owns nothing.
func Belongs(org string, t *tcsv1.Transcript) bool {
	return org != "" && t.Spec.Organization == org
}

// owned is Belongs as an error: nil, or ErrForeign.
func owned(org string, t *tcsv1.Transcript) error {
	if !Belongs(org, t) {
		return fmt.Errorf("transcript %s: %w", t.Spec.ID, ErrForeign)
	}
	return nil
}

// visible reports whether a transcript of the organization is shown: not deleted, and not an
// upload grant waiting for its file.
func visible(t *tcsv1.Transcript) bool {
	return t.Status.DeletedAt == nil && !(t.Status.Phase == "" && t.Spec.Source.Type == tcsv1.SourceUpload)
}

// New returns the resource of a new transcript id of org (not yet created).
func (s *Service) New(org, id string, src tcsv1.TranscriptSource, opts tcsv1.TranscriptOptions) (*tcsv1.Transcript, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	src.InputRef = pipeline.KeysFor(org, id).Input
	return &tcsv1.Transcript{
		ObjectMeta: metav1.ObjectMeta{
			Name:      tcsv1.TranscriptName(id),
			Namespace: s.Namespace,
			Labels: map[string]string{
				tcsv1.LabelOrganization: org,
				tcsv1.LabelSourceType:   string(src.Type),
			},
			Finalizers: []string{tcsv1.FinalizerStoredObjects},
		},
		Spec: tcsv1.TranscriptSpec{ID: id, Organization: org, Source: src, Options: opts},
	}, nil
}

// Create creates t, a new transcript of org (made by New).
func (s *Service) Create(ctx context.Context, org string, t *tcsv1.Transcript) error {
	if err := CheckOrg(org); err != nil {
		return err
	}
	if err := owned(org, t); err != nil {
		return err
	}
	return s.Client.Create(ctx, t)
}

// Get returns transcript id of org, and whether it was read from its archived record rather
// than from its resource. The resource is read first and the record after: the archiver writes
// the record before it deletes the resource, so a transcript is always in one of the two.
func (s *Service) Get(ctx context.Context, org, id string) (*tcsv1.Transcript, bool, error) {
	if err := CheckOrg(org); err != nil {
		return nil, false, err
	}
	if !ids.Valid("tr", id) {
		return nil, false, fmt.Errorf("transcript %q: %w", id, ErrNotFound)
	}
	t := &tcsv1.Transcript{}
	archived := false
	// One read by name from the API server: the informer cache may lag a write of a moment ago
	// (a create, a completion, a delete), and a client that just wrote must read its write.
	err := s.APIReader.Get(ctx, s.key(id), t)
	switch {
	case apierrors.IsNotFound(err):
		rec, err := s.record(ctx, id)
		if err != nil {
			return nil, false, err
		}
		if rec == nil {
			return nil, false, fmt.Errorf("transcript %s: %w", id, ErrNotFound)
		}
		t, archived = rec, true
	case err != nil:
		return nil, false, fmt.Errorf("reading transcript %s: %w", id, err)
	case !t.DeletionTimestamp.IsZero() && t.Annotations[tcsv1.AnnotationArchivedAt] != "":
		// Leaving the cluster for its record, which already holds it: what is done to it
		// from now on is done to the record.
		rec, err := s.record(ctx, id)
		if err != nil {
			return nil, false, err
		}
		if rec != nil {
			t, archived = rec, true
		}
	}
	if err := owned(org, t); err != nil {
		return nil, false, err
	}
	if !visible(t) {
		return nil, false, fmt.Errorf("transcript %s: %w", id, ErrNotFound)
	}
	return t, archived, nil
}

// Find returns transcript id of org as it is, deleted or an unconfirmed upload alike, from
// its resource or else its archived record; nil when there is neither. It is for requests
// that resume what an earlier run of theirs made.
func (s *Service) Find(ctx context.Context, org, id string) (*tcsv1.Transcript, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	t := &tcsv1.Transcript{}
	err := s.APIReader.Get(ctx, s.key(id), t)
	if err == nil && discarded(t) {
		// What the earlier run made is on its way out: the request makes it anew once it is
		// gone, as the objects stored for it are removed before it goes.
		err = s.awaitGone(ctx, t)
	}
	switch {
	case apierrors.IsNotFound(err):
		rec, err := s.record(ctx, id)
		if err != nil || rec == nil {
			return nil, err
		}
		t = rec
	case err != nil:
		return nil, fmt.Errorf("reading transcript %s: %w", id, err)
	}
	if err := owned(org, t); err != nil {
		return nil, err
	}
	return t, nil
}

// discarded tells whether t is a paste without a status being deleted: one whose request
// died before its input was stored, which the reconciler discards.
func discarded(t *tcsv1.Transcript) bool {
	return !t.DeletionTimestamp.IsZero() && t.Status.Phase == "" && t.Spec.Source.Type == tcsv1.SourcePaste
}

// awaitGone waits, within discardWait, until t, being deleted, is gone, and then returns a
// NotFound error; after the wait, an error saying it is still there.
func (s *Service) awaitGone(ctx context.Context, t *tcsv1.Transcript) error {
	uid := t.UID
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, discardWait, true, func(ctx context.Context) (bool, error) {
		err := s.APIReader.Get(ctx, client.ObjectKeyFromObject(t), t)
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case err != nil:
			return false, err
		}
		return t.UID != uid, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for transcript %s, being discarded, to go: %w", t.Spec.ID, err)
	}
	if t.UID != uid {
		return nil // made anew meanwhile, by another run of the request
	}
	return apierrors.NewNotFound(tcsv1.GroupVersion.WithResource("transcripts").GroupResource(), t.Name)
}

// Archived returns the archived record of transcript id of org, soft-deleted or not; nil when
// there is none (or no results store).
func (s *Service) Archived(ctx context.Context, org, id string) (*tcsv1.Transcript, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	rec, err := s.record(ctx, id)
	if err != nil || rec == nil {
		return nil, err
	}
	if err := owned(org, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// record reads the archived record of id, of whichever organization; only the methods above,
// which check the organization, call it.
func (s *Service) record(ctx context.Context, id string) (*tcsv1.Transcript, error) {
	if s.Results == nil {
		return nil, nil
	}
	rec, err := s.Results.Get(ctx, id, results.GetOptions{IncludeDeleted: true})
	switch {
	case errors.Is(err, results.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the archived record of %s: %w", id, err)
	}
	return rec.Transcript, nil
}

// Upload returns the upload grant id of org for its confirmation, confirmed already or not,
// from its resource or else (confirmed and archived since) its record.
func (s *Service) Upload(ctx context.Context, org, id string) (*tcsv1.Transcript, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	if !ids.Valid("tr", id) {
		return nil, fmt.Errorf("upload %q: %w", id, ErrNotFound)
	}
	t, err := s.Find(ctx, org, id)
	switch {
	case err != nil:
		return nil, err
	case t == nil:
		return nil, fmt.Errorf("upload %s: %w", id, ErrNotFound)
	}
	return t, nil
}

// Content returns the corrected content of t, a transcript of org, once it is completed (the
// reviewed content while a review is in force); nil before, or when its content is gone.
func (s *Service) Content(ctx context.Context, org string, t *tcsv1.Transcript) (*string, error) {
	if err := CheckOrg(org); err != nil {
		return nil, err
	}
	if err := owned(org, t); err != nil {
		return nil, err
	}
	ref := t.ShownContentRef()
	if t.Status.Phase != tcsv1.PhaseCompleted || ref == "" {
		return nil, nil
	}
	data, err := s.Store.Content(ctx, ref)
	switch {
	case errors.Is(err, blob.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the content of %s: %w", t.Spec.ID, err)
	}
	c := string(data)
	return &c, nil
}

// Changes returns transcript id of org with its changes in text order, each with its latest
// decision while a review is in force.
func (s *Service) Changes(ctx context.Context, org, id string) (*tcsv1.Transcript, []pipeline.Change, error) {
	t, _, err := s.Get(ctx, org, id)
	if err != nil {
		return nil, nil, err
	}
	var changes []pipeline.Change
	if ref := t.ShownChangesRef(); ref != "" {
		raw, err := s.Store.Content(ctx, ref)
		if err != nil && !errors.Is(err, blob.ErrNotFound) {
			return nil, nil, fmt.Errorf("reading the changes of %s: %w", t.Spec.ID, err)
		}
		if err == nil {
			if err := json.Unmarshal(raw, &changes); err != nil {
				return nil, nil, fmt.Errorf("decoding the changes of %s: %w", t.Spec.ID, err)
			}
		}
	}
	return t, changes, nil
}

// Job returns job jobID of org and its transcript. When the split of the id into its
// transcript's is uncertain, the transcript that has the job is the one; ErrForeign only when
// no candidate of org has it and one of another organization exists.
func (s *Service) Job(ctx context.Context, org, jobID string) (*tcsv1.Transcript, *tcsv1.Job, error) {
	if err := CheckOrg(org); err != nil {
		return nil, nil, err
	}
	if !ids.Valid("job", jobID) {
		return nil, nil, fmt.Errorf("job %q: %w", jobID, ErrNotFound)
	}
	foreign := false
	for _, trID := range tcsv1.TranscriptIDsOfJob(jobID) {
		cand, _, err := s.Get(ctx, org, trID)
		switch {
		case err == nil:
			if j := cand.Job(jobID); j != nil {
				return cand, j, nil
			}
		case errors.Is(err, ErrForeign):
			foreign = true
		case !errors.Is(err, ErrNotFound):
			return nil, nil, err
		}
	}
	if foreign {
		return nil, nil, fmt.Errorf("job %s: %w", jobID, ErrForeign)
	}
	return nil, nil, fmt.Errorf("job %s: %w", jobID, ErrNotFound)
}

// UpdateStatus applies mutate to the latest t, a transcript of org, and patches its status
// with the change, retrying on conflicts; mutate returns false to leave the status as it is.
// The patch is locked, as mutate decides on what it read (a transcript deleted once answers
// 404 the second time). A transcript the archiver marked (recorded, waiting out of the cache
// for its deletion) is brought back into the working set first, so that the controllers see
// the change and the list shows it.
func (s *Service) UpdateStatus(ctx context.Context, org string, t *tcsv1.Transcript, mutate func(*tcsv1.Transcript) bool) error {
	return s.updateStatus(ctx, org, t, mutate, statuspatch.ReadFirst)
}

// updateMade is UpdateStatus of t as Make returned it, the API server's answer of a moment
// ago: its first try writes that copy's whole first status without reading it again. The
// write is locked, so a status another writer (the reconciler) wrote since makes it read and
// decide anew.
func (s *Service) updateMade(ctx context.Context, org string, t *tcsv1.Transcript, mutate func(*tcsv1.Transcript) bool) error {
	if t.ResourceVersion == "" || t.Labels[tcsv1.LabelArchived] != "" {
		// Not an answer of the API server, or marked by the archiver: read it (and bring it
		// back into the working set) first.
		return s.UpdateStatus(ctx, org, t, mutate)
	}
	return s.updateStatus(ctx, org, t, mutate, statuspatch.Replace)
}

func (s *Service) updateStatus(ctx context.Context, org string, t *tcsv1.Transcript, mutate func(*tcsv1.Transcript) bool, opts ...statuspatch.Option) error {
	if err := CheckOrg(org); err != nil {
		return err
	}
	if err := owned(org, t); err != nil {
		return err
	}
	// A transcript being deleted takes no write: one the reconciler discards (a paste whose
	// request it found dead) would otherwise be answered, then be gone. The write is locked,
	// and the deletion changes the version, so a write that crossed it reads it here.
	leaving := false
	written, err := statuspatch.Retry(ctx, s.Client, statusReader{s: s, org: org}, retry.DefaultRetry, t, statuspatch.OwnerAPI,
		func() bool {
			if leaving = !t.DeletionTimestamp.IsZero(); leaving {
				return false
			}
			return mutate(t)
		}, append(opts, statuspatch.Locked)...)
	if written && s.Written != nil {
		s.Written(ctx, t)
	}
	switch {
	case err == nil && leaving:
		err = fmt.Errorf("transcript %s: %w (%w)", t.Spec.ID, ErrGone,
			apierrors.NewNotFound(tcsv1.GroupVersion.WithResource("transcripts").GroupResource(), t.Name))
	case apierrors.IsNotFound(err):
		err = fmt.Errorf("transcript %s: %w (%w)", t.Spec.ID, ErrGone, err)
	}
	return err
}

// statusReader reads a transcript of org for UpdateStatus, at each try: from the API server, refusing another organization's, and bringing one the
// archiver marked back into the working set.
type statusReader struct {
	s   *Service
	org string
}

func (r statusReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	t, ok := obj.(*tcsv1.Transcript)
	if !ok {
		return fmt.Errorf("reading %s: a %T is not a transcript", key, obj)
	}
	if err := r.s.APIReader.Get(ctx, key, t, opts...); err != nil {
		return err
	}
	if err := owned(r.org, t); err != nil {
		return err
	}
	return workingset.Rejoin(ctx, r.s.Client, t)
}

func (r statusReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.s.APIReader.List(ctx, list, opts...)
}

// SetOptions sets the options of t, an upload grant of org, before its confirmation queues
// its job; a grant confirmed meanwhile is left as it is (t shows it).
func (s *Service) SetOptions(ctx context.Context, org string, t *tcsv1.Transcript, opts tcsv1.TranscriptOptions) error {
	if err := CheckOrg(org); err != nil {
		return err
	}
	if err := owned(org, t); err != nil {
		return err
	}
	_, err := statuspatch.Update(ctx, s.Client, s.APIReader, retry.DefaultRetry, t, func() (bool, error) {
		if err := owned(org, t); err != nil {
			return false, err
		}
		if t.Status.Phase != "" {
			return false, nil // confirmed meanwhile: the caller's check answers
		}
		t.Spec.Options = opts
		return true, nil
	})
	return err
}

// Delete soft-deletes transcript id of org at now and returns it: it reads as ErrNotFound and
// leaves lists at once; its content is purged after the retention window. ErrDeleted says a
// concurrent delete came first.
func (s *Service) Delete(ctx context.Context, org, id string, now metav1.Time) (*tcsv1.Transcript, error) {
	t, archived, err := s.Get(ctx, org, id)
	if err != nil {
		return nil, err
	}
	var already bool
	if !archived {
		err = s.UpdateStatus(ctx, org, t, func(t *tcsv1.Transcript) bool {
			if t.Status.DeletedAt != nil {
				already = true
				return false
			}
			t.Status.DeletedAt = &now
			return true
		})
		// Archived since it was read: its record takes the delete.
		archived = apierrors.IsNotFound(err) && s.Results != nil
	}
	if archived {
		var changed bool
		changed, err = s.Results.SoftDelete(ctx, t.Spec.ID, now.Time)
		already = !changed || errors.Is(err, results.ErrNotFound)
		if errors.Is(err, results.ErrNotFound) {
			err = nil
		}
	}
	switch {
	case err != nil:
		return t, fmt.Errorf("deleting transcript %s: %w", t.Spec.ID, err)
	case already:
		return t, fmt.Errorf("transcript %s: %w", t.Spec.ID, ErrDeleted)
	}
	return t, nil
}

// Discard deletes t, a transcript of org that its request made and will not answer (it
// could not store the input), at once: it removes the finalizer t was created with,
// conditional on the version t holds (a transcript another writer took over since is kept),
// then t. The caller removes the objects it stored for t first. A retry of the request makes
// the transcript anew under the same id.
func (s *Service) Discard(ctx context.Context, org string, t *tcsv1.Transcript) error {
	if err := owned(org, t); err != nil {
		return err
	}
	err := finalizers.Remove(ctx, s.Client, t, tcsv1.FinalizerStoredObjects)
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		return nil
	case err != nil:
		return fmt.Errorf("discarding transcript %s: %w", t.Spec.ID, err)
	}
	uid := t.UID
	if err := s.Client.Delete(ctx, t, client.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("discarding transcript %s: %w", t.Spec.ID, err)
	}
	return nil
}
