package correction

import (
	"fmt"
	"math"
)

// Thresholds are the confidence bounds of a Find or Correct call: they
// decide which changes are applied automatically, which are suggested
// and which are dropped. The zero value keeps the engine's own
// decisions.
//
// A change is applied automatically only when the engine (or the
// glossary entry) would apply it and its confidence is at least
// AutoApply; an automatic change below AutoApply becomes a suggestion. A
// suggestion is never promoted to an automatic change, however high
// AutoApply is set: the engine suggests a change because evidence is
// missing (no reference after an English-word book, a name heard only by
// its sound), and its confidence says how likely the name is, not that
// the missing evidence was found. Every change below Suggest, automatic
// or suggested, is dropped.
//
// Either bound may be left 0, which keeps the engine's decisions on its
// side: an AutoApply of 0 demotes nothing, a Suggest of 0 drops nothing.
// Find and Correct apply the bounds as given; Validate tells whether they
// make sense.
type Thresholds struct {
	AutoApply float64 // the least confidence of an automatic change, 0 to 1
	Suggest   float64 // the least confidence of any change, 0 to 1, at most a set AutoApply
}

// FieldError is an invalid value of an option or a glossary entry. Field
// names it as the API does: "auto_apply", "entries[3].forms[1]".
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Validate reports whether t holds two confidences from 0 to 1 with
// Suggest at most AutoApply, when AutoApply is set (not 0). Its error is
// a *FieldError naming "auto_apply" or "suggest".
func (t Thresholds) Validate() error {
	if !(t.AutoApply >= 0 && t.AutoApply <= 1) { // NaN fails too
		return &FieldError{Field: "auto_apply", Reason: fmt.Sprintf("must be a confidence from 0 to 1, got %v", t.AutoApply)}
	}
	if !(t.Suggest >= 0 && t.Suggest <= 1) {
		return &FieldError{Field: "suggest", Reason: fmt.Sprintf("must be a confidence from 0 to 1, got %v", t.Suggest)}
	}
	if t.AutoApply > 0 && t.Suggest > t.AutoApply {
		return &FieldError{Field: "suggest", Reason: fmt.Sprintf("must not be above auto_apply (%v > %v)", t.Suggest, t.AutoApply)}
	}
	return nil
}

// apply demotes the automatic changes below AutoApply and drops the
// changes below Suggest, in place; it returns the changes kept.
func (t Thresholds) apply(changes []Change) []Change {
	if t == (Thresholds{}) {
		return changes
	}
	kept := changes[:0]
	for _, c := range changes {
		if c.Confidence < t.Suggest || math.IsNaN(c.Confidence) {
			continue
		}
		if c.Status == StatusAutoApplied && c.Confidence < t.AutoApply {
			c.Status = StatusNeedsReview
		}
		kept = append(kept, c)
	}
	return kept
}
