package v1alpha1

import "strconv"

// ReviewInForce returns the review of t that its content and change list follow: nil before
// the first decision, and once an AI pass replaced the change list the decisions were made on
// (until decisions are made on the new one).
func (t *Transcript) ReviewInForce() *ReviewStatus {
	r := t.Status.Review
	if r == nil || r.BaseChangesRef != t.Status.ChangesRef {
		return nil
	}
	return r
}

// ReviewVersion returns the number of t's review version: 0 before the first decision.
func (t *Transcript) ReviewVersion() int64 {
	if t.Status.Review == nil {
		return 0
	}
	return t.Status.Review.Version
}

// ReviewKey returns the key of t's review event of version: its decimal number, so that each
// version is emitted (and delivered) once.
func ReviewKey(version int64) string {
	return strconv.FormatInt(version, 10)
}

// ShownContentRef returns the object-store key of the content clients get: the reviewed
// content while a review is in force, the passes' content otherwise.
func (t *Transcript) ShownContentRef() string {
	if r := t.ReviewInForce(); r != nil {
		return r.ContentRef
	}
	return t.Status.ContentRef
}

// ShownChangesRef returns the object-store key of the change list clients get: the one with
// the decisions while a review is in force, the passes' otherwise.
func (t *Transcript) ShownChangesRef() string {
	if r := t.ReviewInForce(); r != nil {
		return r.ChangesRef
	}
	return t.Status.ChangesRef
}

// ShownChangesSummary returns the counts of the changes clients get (see ShownChangesRef).
func (t *Transcript) ShownChangesSummary() *ChangesSummary {
	if r := t.ReviewInForce(); r != nil && r.ChangesSummary != nil {
		return r.ChangesSummary
	}
	return t.Status.ChangesSummary
}

// Undecided counts the suggestions of a completed t that no one decided on: the transcripts
// with some need review. It is 0 for a transcript not completed.
func (t *Transcript) Undecided() int {
	if t.Status.Phase != PhaseCompleted {
		return 0
	}
	if r := t.ReviewInForce(); r != nil {
		return r.Undecided
	}
	if s := t.Status.ChangesSummary; s != nil {
		return s.NeedsReview
	}
	return 0
}
