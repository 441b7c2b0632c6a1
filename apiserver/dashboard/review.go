package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gorilla/mux"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/text/aipass"
	"tcs.dev/tcs/internal/text/correction"
	"tcs.dev/tcs/internal/text/pipeline"
)

// reviewData is the review part of the transcript page (issue #23, review): its text with
// each change in place and the forms that decide on them.
type reviewData struct {
	// Version is the review version the page shows, which its forms send back.
	Version int64
	// Pieces are the text and the changes shown in place, in text order; nil when the text
	// cannot be shown (its submitted document is gone).
	Pieces []reviewPiece
	// Apart are the changes that overlap one shown in place.
	Apart []*reviewChange
	// All are every change, in list order.
	All []*reviewChange
	// Confirmed counts the suggestions no one decided on that the AI check confirmed.
	Confirmed int
	// Open counts the suggestions no one decided on.
	Open int
	// Closed says why no decision can be taken now; empty when they can.
	Closed string
}

// reviewPiece is a stretch of the text: plain text (at Src in the submitted document, or -1)
// or a change.
type reviewPiece struct {
	Text string
	Src  int
	C    *reviewChange
}

// reviewChange is a change as the review shows it.
type reviewChange struct {
	pipeline.Change
	Applied bool
	// Shown is the text the change leaves in the content.
	Shown string
	// N is the change's number in the list, from 1.
	N int
}

// Suggested reports whether c is a suggestion: not applied by the engine on its own.
func (c *reviewChange) Suggested() bool { return c.Status == correction.StatusNeedsReview }

// Added reports whether a person added c.
func (c *reviewChange) Added() bool { return c.Rule == pipeline.RuleReviewAdded }

// Decided returns what was decided on c, in words: "" when no one decided.
func (c *reviewChange) Decided() string {
	if c.Decision == nil {
		return ""
	}
	w := say(wordDecision, decisionKind(c.Decision.Action, c.Suggested()))
	if c.Decision.Action == pipeline.ActionReplace {
		w += " “" + c.Decision.Replacement + "”"
	}
	return w
}

// decisionKind returns the kind of a decision of action (the wordDecision words): an accept of
// a change that was no suggestion keeps it, a reject of an automatic change undoes it.
func decisionKind(action string, suggested bool) string {
	switch {
	case action == pipeline.ActionAccept && !suggested:
		return "keep"
	case action == pipeline.ActionReject && !suggested:
		return "undo"
	}
	return action
}

// Label is what the change is, for a screen reader and a tooltip.
func (c *reviewChange) Label() string {
	switch {
	case c.Added():
		return "Correction added by a person: “" + c.Original + "” changed to “" + c.Shown + "”"
	case c.Applied:
		return "Change made: “" + c.Original + "” changed to “" + c.Shown + "”"
	}
	return "Suggestion: change “" + c.Original + "” to “" + c.Replacement + "”"
}

// AIConfirmed reports whether the AI check confirmed c.
func (c *reviewChange) AIConfirmed() bool { return c.AIVerdict == aipass.Confirmed }

// review fills in the review part of the transcript page from t and its changes.
func (d *Dashboard) review(ctx context.Context, org string, t *tcsv1.Transcript, changes []pipeline.Change) (*reviewData, []*reviewChange, error) {
	rd := &reviewData{Version: t.ReviewVersion(), Closed: closedWhy(t)}
	rows := make([]*reviewChange, len(changes))
	for i := range changes {
		c := &reviewChange{Change: changes[i], Applied: changes[i].IsApplied(), N: i + 1}
		c.Shown = c.Original
		if c.Applied {
			c.Shown = c.Written()
		}
		if c.Suggested() && c.Decision == nil {
			rd.Open++
			if c.AIConfirmed() && !c.Applied {
				rd.Confirmed++
			}
		}
		rows[i] = c
	}
	rd.All = rows
	m, err := d.o.Transcripts.Marked(ctx, org, t, changes)
	if err != nil || m == nil {
		return rd, rows, err
	}
	for _, p := range m.Pieces {
		rp := reviewPiece{Text: p.Text, Src: p.Src}
		if p.Change >= 0 {
			rp.C = rows[p.Change]
		}
		rd.Pieces = append(rd.Pieces, rp)
	}
	for _, i := range m.Apart {
		rd.Apart = append(rd.Apart, rows[i])
	}
	return rd, rows, nil
}

// closedWhy returns why no decision can be taken on t now, in words; "" when they can.
func closedWhy(t *tcsv1.Transcript) string {
	switch {
	case t.Status.Phase != tcsv1.PhaseCompleted:
		return "Changes can be decided once the transcript is ready."
	case t.AIPassBusy():
		return "The AI check is going through this transcript: changes can be decided once it has finished."
	}
	return ""
}

// The actions of the decisions form beyond the pipeline's: every confirmed suggestion at once.
const actionAcceptConfirmed = "accept-confirmed"

// decide records the decision of the transcript page's forms on transcript {id}, at the review
// version the page showed: one change accepted, rejected or replaced, a correction added, or
// every suggestion the AI check confirmed accepted.
func (d *Dashboard) decide(w http.ResponseWriter, r *http.Request, v *view) {
	ctx, org, id := r.Context(), v.Org.OrganizationID, mux.Vars(r)["id"]
	t, changes, err := d.o.Transcripts.Changes(ctx, org, id)
	if err != nil {
		d.readErr(w, r, v, err)
		return
	}
	version, err := strconv.ParseInt(r.PostFormValue("version"), 10, 64)
	if err != nil || version < 0 {
		d.fail(w, r, http.StatusBadRequest, "The form did not say which state of the review it shows. Reload the transcript and decide again.")
		return
	}
	action, changeID := r.PostFormValue("action"), r.PostFormValue("change")
	field := "add"
	if changeID != "" {
		field = "change-" + changeID
	} else if action == actionAcceptConfirmed {
		field = "confirmed"
	}
	refuse := func(status int, msg string) {
		v.Errors, v.Form = map[string]string{field: msg}, r.PostForm
		d.transcriptPage(w, r, v, status)
	}
	if version != t.ReviewVersion() {
		d.moved(w, r, v)
		return
	}
	batch, done, msg := decisionsOf(r.PostForm, changes, d.marked(ctx, org, t, changes))
	if msg != "" {
		refuse(http.StatusBadRequest, msg)
		return
	}
	_, err = d.o.Transcripts.Decide(ctx, org, id, transcripts.Batch{Decisions: batch, By: v.Session.Email}, &version)
	var moved *transcripts.ReviewMovedError
	var de *pipeline.DecisionError
	var ce *transcripts.ConflictError
	switch {
	case errors.As(err, &moved):
		d.moved(w, r, v)
		return
	case errors.As(err, &de):
		refuse(http.StatusBadRequest, decisionWords(de))
		return
	case errors.As(err, &ce):
		refuse(http.StatusConflict, "This transcript is being corrected or checked again: decide once it is ready.")
		return
	case err != nil:
		d.readErr(w, r, v, err)
		return
	}
	at := ""
	if changeID != "" {
		at = "#c-" + changeID
	}
	d.redirect(w, r, v, "/transcripts/"+id+at, done)
}

// moved answers a decision sent from a page whose review someone else moved on since.
func (d *Dashboard) moved(w http.ResponseWriter, r *http.Request, v *view) {
	v.Flash = "Someone else decided on this transcript since you opened it, so what you chose was not recorded. Here is the current state: decide again if you still want to."
	d.transcriptPage(w, r, v, http.StatusConflict)
}

// marked returns the text of t with changes in place, or nil when it cannot be read.
func (d *Dashboard) marked(ctx context.Context, org string, t *tcsv1.Transcript, changes []pipeline.Change) *pipeline.Marked {
	m, err := d.o.Transcripts.Marked(ctx, org, t, changes)
	if err != nil {
		return nil
	}
	return m
}

// decisionsOf returns the decisions form asks for on changes and what to say once they are
// recorded; msg says what is wrong with the form instead.
func decisionsOf(form url.Values, changes []pipeline.Change, m *pipeline.Marked) (batch []pipeline.Decision, done, msg string) {
	action, changeID, replacement := form.Get("action"), form.Get("change"), strings.TrimSpace(form.Get("replacement"))
	var c *pipeline.Change
	if changeID != "" {
		for i := range changes {
			if changes[i].ID == changeID {
				c = &changes[i]
			}
		}
		if c == nil {
			return nil, "", "This change is no longer in the transcript. Reload the page to see its changes as they are now."
		}
	}
	switch action {
	case pipeline.ActionAccept, pipeline.ActionReject:
		if c == nil {
			return nil, "", "Choose a change first."
		}
		kind := decisionKind(action, c.Status == correction.StatusNeedsReview)
		switch kind {
		case pipeline.ActionAccept:
			done = say(wordDecision, kind) + ": “" + c.Original + "” is now “" + c.Written() + "”."
		case "keep":
			done = say(wordDecision, kind) + ": “" + c.Written() + "”."
		default:
			done = say(wordDecision, kind) + ": “" + c.Original + "” stays as it was."
		}
		return []pipeline.Decision{{ChangeID: c.ID, Action: action}}, done, ""
	case pipeline.ActionReplace:
		if c == nil {
			return nil, "", "Choose a change first."
		}
		if replacement == "" {
			return nil, "", "Type the words to write instead."
		}
		return []pipeline.Decision{{ChangeID: c.ID, Action: action, Replacement: replacement}}, say(wordDecision, pipeline.ActionReplace) + " “" + replacement + "”, where the text had “" + c.Original + "”.", ""
	case pipeline.ActionAdd:
		return added(form, replacement, m)
	case actionAcceptConfirmed:
		for i := range changes {
			c := &changes[i]
			if c.Status == correction.StatusNeedsReview && c.AIVerdict == aipass.Confirmed && c.Decision == nil && !c.IsApplied() {
				batch = append(batch, pipeline.Decision{ChangeID: c.ID, Action: pipeline.ActionAccept})
			}
		}
		if len(batch) == 0 {
			return nil, "", "No suggestion the AI check agreed with is left to accept."
		}
		return batch, "Accepted the " + counted(len(batch), "suggestion", "suggestions") + " the AI check agreed with.", ""
	}
	return nil, "", "Choose what to do: accept, undo, replace or add a correction."
}

// added returns the add decision of form: the span it names (start and end, set where the
// reviewer selected the words) or else the occurrence of its words in the text.
func added(form url.Values, replacement string, m *pipeline.Marked) ([]pipeline.Decision, string, string) {
	words := form.Get("words")
	if strings.TrimSpace(words) == "" {
		return nil, "", "Select the words to correct in the text, or type them."
	}
	if replacement == "" {
		return nil, "", "Type the words to write instead."
	}
	start, errS := strconv.Atoi(form.Get("start"))
	end, errE := strconv.Atoi(form.Get("end"))
	if errS != nil || errE != nil || form.Get("start") == "" {
		if m == nil {
			return nil, "", "The text of this transcript cannot be searched any more."
		}
		var found []int
		for _, p := range m.Pieces {
			if p.Src < 0 {
				continue
			}
			for at := 0; ; {
				k := strings.Index(p.Text[at:], words)
				if k < 0 {
					break
				}
				if wordAt(p.Text, at+k, at+k+len(words)) {
					found = append(found, p.Src+at+k)
				}
				at += k + max(1, len(words))
			}
		}
		n := 1
		if o := form.Get("occurrence"); o != "" {
			var err error
			if n, err = strconv.Atoi(o); err != nil || n < 1 {
				return nil, "", "Say which one with a number, such as 2 for the second."
			}
		}
		switch {
		case len(found) == 0:
			return nil, "", "“" + words + "” is not in the text outside the changes already made. Type the words exactly as the text has them."
		case len(found) > 1 && form.Get("occurrence") == "":
			return nil, "", "“" + words + "” is " + counted(len(found), "time", "times") + " in the text: say which one with a number (1 for the first)."
		case n > len(found):
			return nil, "", "“" + words + "” is only " + counted(len(found), "time", "times") + " in the text."
		}
		start, end = found[n-1], found[n-1]+len(words)
	}
	d := pipeline.Decision{Action: pipeline.ActionAdd, Start: start, End: end, Replacement: replacement}
	return []pipeline.Decision{d}, say(wordDecision, pipeline.ActionAdd) + ": “" + words + "” is now “" + replacement + "”.", ""
}

// wordAt reports whether text[start:end] is not part of a longer word: no letter or digit
// touches it.
func wordAt(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	inWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	return !inWord(before) && !inWord(after)
}

// counted returns n with the word of its number.
func counted(n int, one, many string) string {
	return strconv.Itoa(n) + " " + plural(n, one, many)
}

// decisionWords says what is wrong with a refused decision in the words of staff.
func decisionWords(e *pipeline.DecisionError) string {
	m := e.Message
	switch {
	case strings.HasSuffix(e.Param, ".replacement") && strings.Contains(m, "empty"):
		return "Type the words to write instead."
	case strings.HasSuffix(e.Param, ".replacement") && strings.Contains(m, "line break"):
		return "The new words cannot hold a line break in this kind of file: write them on one line."
	case strings.HasSuffix(e.Param, ".replacement"):
		return "The new words are too long: write at most " + strconv.Itoa(pipeline.MaxReplacementBytes) + " letters."
	case strings.Contains(m, "overlaps"):
		return "Part of these words is already changed: undo or replace that change instead."
	case strings.Contains(m, "one stretch"):
		return "Select words within one line or caption, without crossing a line break, a caption's timing or formatting."
	case strings.Contains(m, "at most"):
		return "That selection is too long: select at most " + strconv.Itoa(pipeline.MaxAddedSpanBytes) + " letters."
	case strings.Contains(m, "empty"):
		return "Select at least one letter."
	case strings.Contains(m, "outside"):
		return "The selection is not in the text: select the words again."
	case strings.Contains(m, "no change"):
		return "This change is no longer in the transcript. Reload the page to see its changes as they are now."
	}
	return "That could not be recorded. Reload the page and try again."
}
