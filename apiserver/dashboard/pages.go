package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/audit"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/blob"
	"tcs.dev/tcs/internal/platform/mail"
	"tcs.dev/tcs/internal/platform/ratelimit"
	"tcs.dev/tcs/internal/text/pipeline"
)

// readErr answers a failed read of the transcripts service: the dashboard's one "not found"
// page when the transcript does not exist or belongs to another organization (saying it is
// not theirs would tell that it exists), the refused parameter's message for a bad query, or a
// server error.
func (d *Dashboard) readErr(w http.ResponseWriter, r *http.Request, v *view, err error) {
	var pe *transcripts.ParamError
	switch {
	case errors.Is(err, transcripts.ErrNotFound), errors.Is(err, transcripts.ErrForeign):
		d.notFound(w, r, v)
	case errors.As(err, &pe):
		v.Title, v.Data = http.StatusText(http.StatusBadRequest), pe.Message
		d.render(w, r, http.StatusBadRequest, "error", v)
	default:
		d.serverError(w, r, err)
	}
}

// listPage reads the page of the organization's transcripts that the list query q selects
// (the API's list parameters), as the API's list shows them (without content), with the
// names staff know them by.
func (d *Dashboard) listPage(ctx context.Context, org string, q url.Values) ([]trRow, bool, error) {
	o, err := transcripts.ParseListQuery(q)
	if err != nil {
		return nil, false, err
	}
	page, hasMore, err := d.o.Transcripts.List(ctx, org, o)
	if err != nil {
		return nil, false, err
	}
	out := make([]trRow, 0, len(page))
	for _, t := range page {
		out = append(out, newRow(t))
	}
	return out, hasMore, nil
}

// readTranscript reads transcript id of org with its corrected content, as the API shows it.
func (d *Dashboard) readTranscript(ctx context.Context, org, id string) (*tcsv1.Transcript, apiview.Transcript, error) {
	t, _, err := d.o.Transcripts.Get(ctx, org, id)
	if err != nil {
		return nil, apiview.Transcript{}, err
	}
	content, err := d.o.Transcripts.Content(ctx, org, t)
	if err != nil {
		return nil, apiview.Transcript{}, err
	}
	return t, apiview.NewTranscript(t, content), nil
}

// transcriptData is the transcript page's.
type transcriptData struct {
	T          apiview.Transcript
	Changes    []changeRow
	Jobs       []apiview.Job
	Deliveries []tcsv1.WebhookDelivery
	Finished   bool
	// ConfirmDelete asks to confirm the transcript's deletion.
	ConfirmDelete bool
	// Finish is what finishing the transcript needs: its name, plain text and downloads.
	Finish *finishData
	// Review is its text with the changes in place and the forms to decide on them.
	Review *reviewData
}

// changeRow is a change with its context: the line of the corrected content it is on, cut
// around the text the change left there (its replacement, or its original when not applied).
type changeRow struct {
	pipeline.Change
	Applied              bool
	Before, Match, After string
}

// contextRunes is how much of a line is shown on each side of a change.
const contextRunes = 60

// withContext fills in the context of each change from the lines of content. Changes of one
// line that left the same text there (rows are in text order) are each found at their own
// occurrence: the second after the first.
func withContext(rows []changeRow, content string) {
	lines := strings.Split(content, "\n")
	// next is where the search for a text on a line goes on, by line and text.
	type lineText struct {
		line int
		text string
	}
	next := map[lineText]int{}
	for i := range rows {
		c := &rows[i]
		if c.Line < 1 || c.Line > len(lines) {
			continue
		}
		line := lines[c.Line-1]
		find := c.Original
		if c.Applied {
			find = c.Replacement
		}
		if find == "" {
			continue
		}
		key := lineText{c.Line, find}
		from := next[key]
		at := strings.Index(line[from:], find)
		if at < 0 {
			// Fewer occurrences than changes: the first stands for the others.
			from, at = 0, strings.Index(line, find)
			if at < 0 {
				continue
			}
		}
		at += from
		next[key] = at + len(find)
		before, after := []rune(line[:at]), []rune(line[at+len(find):])
		if len(before) > contextRunes {
			before = append([]rune("…"), before[len(before)-contextRunes:]...)
		}
		if len(after) > contextRunes {
			after = append(after[:contextRunes], []rune("…")...)
		}
		c.Before, c.Match, c.After = string(before), find, string(after)
	}
}

// maxChanges bounds the changes one page shows.
const maxChanges = 1000

func (d *Dashboard) transcript(w http.ResponseWriter, r *http.Request, v *view) {
	d.transcriptPage(w, r, v, http.StatusOK)
}

// transcriptPage answers with the page of transcript {id} and status.
func (d *Dashboard) transcriptPage(w http.ResponseWriter, r *http.Request, v *view, status int) {
	ctx, org, id := r.Context(), v.Org.OrganizationID, mux.Vars(r)["id"]
	data := &transcriptData{}
	t, view, err := d.readTranscript(ctx, org, id)
	if err != nil {
		d.readErr(w, r, v, err)
		return
	}
	data.T, data.Finish = view, finishing(t, view)
	tc, changes, err := d.o.Transcripts.Changes(ctx, org, id)
	if err != nil {
		d.readErr(w, r, v, err)
		return
	}
	if data.Review, _, err = d.review(ctx, org, tc, changes[:min(len(changes), maxChanges)]); err != nil {
		d.serverError(w, r, err)
		return
	}
	for _, c := range changes[:min(len(changes), maxChanges)] {
		data.Changes = append(data.Changes, changeRow{Change: c, Applied: c.IsApplied()})
	}
	if data.T.Content != nil {
		withContext(data.Changes, *data.T.Content)
	}
	for _, ref := range data.T.Jobs {
		if j := t.Job(ref.ID); j != nil {
			data.Jobs = append(data.Jobs, apiview.NewJob(t, j))
		}
	}
	dels, err := d.o.Endpoints.Deliveries(ctx, endpoints.DeliveryFilter{Organization: org, TranscriptID: id, Limit: 100})
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data.Deliveries = dels
	data.ConfirmDelete = r.URL.Query().Get("confirm") == "delete"
	data.Finished = data.T.Status != tcsv1.PhasePending && data.T.AIPassStatus != tcsv1.AIPassQueued && data.T.AIPassStatus != tcsv1.AIPassRunning
	v.Title, v.Data = data.Finish.Name, data
	d.render(w, r, status, "transcript", v)
}

// keysData is the API keys page's.
type keysData struct {
	Keys []orgs.Key
	// Created is the key just created, shown once.
	Created *orgs.Key
	// Revealed is the key whose value is shown.
	Revealed *orgs.Key
	// Revoke is the key whose revocation is to be confirmed.
	Revoke *orgs.Key
	// BaseURL is where the API is reached.
	BaseURL string
}

func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, v *view, status int, data *keysData) {
	keys, err := orgs.Keys(r.Context(), d.o.Client, d.o.Namespace, v.Org.OrganizationID)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data.Keys, data.BaseURL = keys, d.origin
	if id := r.URL.Query().Get("revoke"); id != "" && r.Method == http.MethodGet {
		for i := range keys {
			if keys[i].ID == id {
				data.Revoke = &keys[i]
			}
		}
	}
	v.Title, v.Data = "API keys", data
	d.render(w, r, status, "keys", v)
}

func (d *Dashboard) keys(w http.ResponseWriter, r *http.Request, v *view) {
	d.keysPage(w, r, v, http.StatusOK, &keysData{})
}

func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, v *view) {
	label := r.PostFormValue("label")
	if err := orgs.ValidateLabel(label); err != nil {
		v.Errors, v.Form = map[string]string{"label": err.Error()}, r.PostForm
		d.keysPage(w, r, v, http.StatusBadRequest, &keysData{})
		return
	}
	k, err := orgs.CreateKey(r.Context(), d.o.Client, d.o.Namespace, v.Org.OrganizationID, label)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.APIKeyCreated, "%s created API key %s (%q)", v.Session.Email, k.ID, k.Label)
	// The cache sees the new key a moment later; the list shows it from the answer.
	d.waitForKey(r, v, k.ID, true)
	v.Flash = "API key created. Copy it now: it is shown here once (it can be revealed again later)."
	d.keysPage(w, r, v, http.StatusOK, &keysData{Created: k})
}

// waitForKey waits, briefly, until the cache the API authenticates with shows key id (or no
// longer does), so that what the page says is what the API does.
func (d *Dashboard) waitForKey(r *http.Request, v *view, id string, present bool) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		_, err := orgs.GetKey(r.Context(), d.o.Client, d.o.Namespace, v.Org.OrganizationID, id)
		if (err == nil) == present {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (d *Dashboard) revealKey(w http.ResponseWriter, r *http.Request, v *view) {
	k, err := orgs.GetKey(r.Context(), d.o.Client, d.o.Namespace, v.Org.OrganizationID, mux.Vars(r)["id"])
	if errors.Is(err, orgs.ErrNotFound) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	// The entry is recorded before the key is shown, or the key is not shown.
	if err := d.auditBefore(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.APIKeyRevealed, k.ID, "%s revealed API key %s (%q)", v.Session.Email, k.ID, k.Label); err != nil {
		d.serverError(w, r, err)
		return
	}
	d.keysPage(w, r, v, http.StatusOK, &keysData{Revealed: k})
}

func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, v *view) {
	id := mux.Vars(r)["id"]
	label := ""
	if k, err := orgs.GetKey(r.Context(), d.o.Client, d.o.Namespace, v.Org.OrganizationID, id); err == nil {
		label = k.Label // for the audit trail's words; RevokeKey answers a key that is gone
	}
	err := orgs.RevokeKey(r.Context(), d.o.Client, d.o.Namespace, v.Org.OrganizationID, id)
	if errors.Is(err, orgs.ErrNotFound) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.APIKeyRevoked, "%s revoked API key %s (%q)", v.Session.Email, id, label)
	d.waitForKey(r, v, id, false)
	d.redirect(w, r, v, "/keys", "API key "+id+" is revoked: the API refuses it from now on.")
}

// notFoundMessage is what every page says of what does not exist for the member: a page, an
// object of their organization, an object of another organization, or an organization they
// are not a member of. One wording, so that no answer tells what exists elsewhere.
const notFoundMessage = "There is no such page."

// notFound answers with the one "not found" page.
func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title, v.Data = "Not found", notFoundMessage
	d.render(w, r, http.StatusNotFound, "error", v)
}

// endpointsData is the webhook endpoints page's.
type endpointsData struct {
	Endpoints []tcsv1.WebhookEndpoint
	Events    []string
	// Created is the endpoint just created, with its secret.
	Created *tcsv1.WebhookEndpoint
	Secret  string
	// Rates are the endpoints' recent success rates, by object name.
	Rates map[string]deliveryRate
}

func (d *Dashboard) endpointsPage(w http.ResponseWriter, r *http.Request, v *view, status int, data *endpointsData) {
	eps, err := d.o.Endpoints.List(r.Context(), v.Org.OrganizationID)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data.Endpoints, data.Events = eps, webhook.Events()
	if data.Rates, err = d.rates(r.Context(), v.Org.OrganizationID, eps); err != nil {
		d.serverError(w, r, err)
		return
	}
	v.Title, v.Data = "Webhook endpoints", data
	d.render(w, r, status, "endpoints", v)
}

func (d *Dashboard) endpoints(w http.ResponseWriter, r *http.Request, v *view) {
	d.endpointsPage(w, r, v, http.StatusOK, &endpointsData{})
}

// fieldErrors turns a refused input into messages by field; ok is false for other errors.
func fieldErrors(err error) (map[string]string, bool) {
	var fe *endpoints.FieldError
	if errors.As(err, &fe) {
		return map[string]string{fe.Field: fe.Message}, true
	}
	var ae *accounts.FieldError
	if errors.As(err, &ae) {
		return map[string]string{ae.Field: ae.Message}, true
	}
	return nil, false
}

func (d *Dashboard) createEndpoint(w http.ResponseWriter, r *http.Request, v *view) {
	_ = r.ParseForm()
	ep, secret, err := d.o.Endpoints.Create(r.Context(), v.Org.OrganizationID, strings.TrimSpace(r.PostFormValue("url")), r.PostForm["events"])
	if errs, ok := fieldErrors(err); ok {
		v.Errors, v.Form = errs, r.PostForm
		d.endpointsPage(w, r, v, http.StatusBadRequest, &endpointsData{})
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.WebhookEndpointCreated, "%s created webhook endpoint %s (%q)", v.Session.Email, ep.Spec.ID, ep.Spec.URL)
	v.Flash = "Webhook endpoint created. Its signing secret is below; it can be revealed again at any time."
	d.endpointsPage(w, r, v, http.StatusCreated, &endpointsData{Created: ep, Secret: secret})
}

// endpointData is a webhook endpoint's page's.
type endpointData struct {
	EP         *tcsv1.WebhookEndpoint
	Events     []string
	Secret     string
	Deliveries []tcsv1.WebhookDelivery
	// Rate is how its recent deliveries went.
	Rate deliveryRate
	// Confirm is the action to confirm before it is done: delete or rotate.
	Confirm string
}

func (d *Dashboard) getEndpoint(w http.ResponseWriter, r *http.Request, v *view) (*tcsv1.WebhookEndpoint, bool) {
	ep, err := d.o.Endpoints.Get(r.Context(), mux.Vars(r)["id"], v.Org.OrganizationID)
	var fe *endpoints.FieldError
	if errors.Is(err, endpoints.ErrNotFound) || errors.As(err, &fe) {
		d.notFound(w, r, v)
		return nil, false
	}
	if err != nil {
		d.serverError(w, r, err)
		return nil, false
	}
	return ep, true
}

func (d *Dashboard) endpointPage(w http.ResponseWriter, r *http.Request, v *view, status int, ep *tcsv1.WebhookEndpoint, secret string) {
	dels, err := d.o.Endpoints.Deliveries(r.Context(), endpoints.DeliveryFilter{Organization: v.Org.OrganizationID, Endpoint: ep.Name, Limit: 100})
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data := &endpointData{EP: ep, Events: webhook.Events(), Secret: secret, Deliveries: dels, Rate: rateOf(dels)}
	if c := r.URL.Query().Get("confirm"); r.Method == http.MethodGet && (c == "delete" || c == "rotate") {
		data.Confirm = c
	}
	v.Title, v.Data = "Endpoint "+ep.Spec.ID, data
	d.render(w, r, status, "endpoint", v)
}

func (d *Dashboard) endpoint(w http.ResponseWriter, r *http.Request, v *view) {
	if ep, ok := d.getEndpoint(w, r, v); ok {
		d.endpointPage(w, r, v, http.StatusOK, ep, "")
	}
}

func (d *Dashboard) editEndpoint(w http.ResponseWriter, r *http.Request, v *view) {
	ep, ok := d.getEndpoint(w, r, v)
	if !ok {
		return
	}
	_ = r.ParseForm()
	err := d.o.Endpoints.Edit(r.Context(), ep, strings.TrimSpace(r.PostFormValue("url")), r.PostForm["events"])
	if errs, ok := fieldErrors(err); ok {
		v.Errors, v.Form = errs, r.PostForm
		d.endpointPage(w, r, v, http.StatusBadRequest, ep, "")
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.WebhookEndpointEdited, "%s set webhook endpoint %s to %q for %s", v.Session.Email, ep.Spec.ID, ep.Spec.URL, strings.Join(ep.Spec.Events, ", "))
	d.redirect(w, r, v, "/endpoints/"+ep.Spec.ID, "Endpoint saved.")
}

func (d *Dashboard) revealEndpoint(w http.ResponseWriter, r *http.Request, v *view) {
	ep, ok := d.getEndpoint(w, r, v)
	if !ok {
		return
	}
	secret, err := d.o.Endpoints.Reveal(r.Context(), ep)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	// The entry is recorded before the secret is shown, or the secret is not shown.
	if err := d.auditBefore(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.WebhookSecretRevealed, ep.Spec.ID,
		"%s revealed the signing secret of webhook endpoint %s (%q)", v.Session.Email, ep.Spec.ID, ep.Spec.URL); err != nil {
		d.serverError(w, r, err)
		return
	}
	d.endpointPage(w, r, v, http.StatusOK, ep, secret)
}

func (d *Dashboard) rotateEndpoint(w http.ResponseWriter, r *http.Request, v *view) {
	ep, ok := d.getEndpoint(w, r, v)
	if !ok {
		return
	}
	secret, err := d.o.Endpoints.Rotate(r.Context(), ep, d.o.Clock.Now())
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.WebhookSecretRotated, "%s rotated the signing secret of webhook endpoint %s (%q)", v.Session.Email, ep.Spec.ID, ep.Spec.URL)
	v.Flash = "Secret rotated. For 24 hours deliveries carry a signature with the previous secret too."
	d.endpointPage(w, r, v, http.StatusOK, ep, secret)
}

func (d *Dashboard) pauseEndpoint(paused bool) orgHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view) {
		ep, ok := d.getEndpoint(w, r, v)
		if !ok {
			return
		}
		if err := d.o.Endpoints.SetPaused(r.Context(), ep, paused); err != nil {
			d.serverError(w, r, err)
			return
		}
		reason, verb := audit.WebhookEndpointPaused, "paused"
		if !paused {
			reason, verb = audit.WebhookEndpointResumed, "resumed"
		}
		d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, reason, "%s %s webhook endpoint %s (%q)", v.Session.Email, verb, ep.Spec.ID, ep.Spec.URL)
		d.redirect(w, r, v, "/endpoints/"+ep.Spec.ID, "Endpoint "+verb+".")
	}
}

func (d *Dashboard) deleteEndpoint(w http.ResponseWriter, r *http.Request, v *view) {
	ep, ok := d.getEndpoint(w, r, v)
	if !ok {
		return
	}
	if err := d.o.Endpoints.Delete(r.Context(), ep); err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.WebhookEndpointDeleted, "%s deleted webhook endpoint %s (%q)", v.Session.Email, ep.Spec.ID, ep.Spec.URL)
	d.redirect(w, r, v, "/endpoints", "Endpoint "+ep.Spec.ID+" deleted.")
}

// deliveryData is a delivery's page's.
type deliveryData struct {
	D       *tcsv1.WebhookDelivery
	Payload string
	// Endpoint is the id of the delivery's endpoint and EndpointURL its address, when it
	// still exists.
	Endpoint, EndpointURL string
	// Transcript is the name staff know the delivery's transcript by, when it has one.
	Transcript string
	// MaxHeaders and MaxBodyBytes are how much of a receiver's answer an attempt keeps.
	MaxHeaders, MaxBodyBytes int
}

func (d *Dashboard) delivery(w http.ResponseWriter, r *http.Request, v *view) {
	del, err := d.o.Endpoints.Delivery(r.Context(), mux.Vars(r)["id"], v.Org.OrganizationID)
	var fe *endpoints.FieldError
	if errors.Is(err, endpoints.ErrNotFound) || errors.As(err, &fe) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data := &deliveryData{D: del, Payload: "(the payload is no longer stored)", MaxHeaders: tcsv1.MaxResponseHeaders, MaxBodyBytes: tcsv1.MaxResponseBodyBytes}
	if raw, err := d.o.Payloads.Get(r.Context(), del.Spec.PayloadRef); err == nil {
		var buf bytes.Buffer
		if json.Indent(&buf, raw, "", "  ") == nil {
			data.Payload = buf.String()
		} else {
			data.Payload = string(raw)
		}
	} else if !errors.Is(err, blob.ErrNotFound) {
		d.serverError(w, r, fmt.Errorf("reading the payload of %s: %w", del.Spec.ID, err))
		return
	}
	var ep tcsv1.WebhookEndpoint
	if err := d.o.Client.Get(r.Context(), client.ObjectKey{Namespace: del.Namespace, Name: del.Spec.Endpoint}, &ep); err == nil && ep.Spec.Organization == v.Org.OrganizationID {
		data.Endpoint, data.EndpointURL = ep.Spec.ID, ep.Spec.URL
	}
	if id := del.Spec.TranscriptID; id != "" {
		data.Transcript = id
		if t, _, err := d.o.Transcripts.Get(r.Context(), v.Org.OrganizationID, id); err == nil {
			data.Transcript = displayName(t)
		}
	}
	v.Title, v.Data = "Delivery "+del.Spec.ID, data
	d.render(w, r, http.StatusOK, "delivery", v)
}

// allowWebhookSend counts a test event or a replay of v's organization and answers 429 past
// limits.WebhookSendsPerMinute: each makes a request to the customer's endpoint.
func (d *Dashboard) allowWebhookSend(w http.ResponseWriter, r *http.Request, v *view) bool {
	limit := ratelimit.PerMinute(limits.WebhookSendsPerMinute)
	res, err := d.o.Limiter.Allow(r.Context(), v.Org.OrganizationID+":webhook_send", limit)
	if err != nil {
		// The limiter's store is down: send rather than refuse, and say so.
		d.o.Log.Error(err, "rate limiter unavailable; webhook send not counted", "organization", v.Org.OrganizationID)
		return true
	}
	res.Headers(w.Header())
	if !res.Allowed {
		d.fail(w, r, http.StatusTooManyRequests, fmt.Sprintf("This organization sent %d webhook test events and replays in the last minute, the most allowed; retry in %d s.", limit.Rate, res.RetryAfterSeconds()))
		return false
	}
	return true
}

func (d *Dashboard) testEndpoint(w http.ResponseWriter, r *http.Request, v *view) {
	ep, ok := d.getEndpoint(w, r, v)
	if !ok {
		return
	}
	if !d.allowWebhookSend(w, r, v) {
		return
	}
	del, err := d.o.Endpoints.SendTest(r.Context(), d.o.Payloads, ep, d.o.Clock.Now())
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.WebhookTestSent, "%s sent test event %s to webhook endpoint %s (%q)", v.Session.Email, del.Spec.ID, ep.Spec.ID, ep.Spec.URL)
	d.redirect(w, r, v, "/endpoints/"+ep.Spec.ID, "Test event "+del.Spec.ID+" is on its way.")
}

func (d *Dashboard) replayDelivery(w http.ResponseWriter, r *http.Request, v *view) {
	del, err := d.o.Endpoints.Delivery(r.Context(), mux.Vars(r)["id"], v.Org.OrganizationID)
	var fe *endpoints.FieldError
	if errors.Is(err, endpoints.ErrNotFound) || errors.As(err, &fe) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	if !d.allowWebhookSend(w, r, v) {
		return
	}
	if err := d.o.Endpoints.Replay(r.Context(), del, d.o.Clock.Now()); err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.WebhookDeliveryReplayed, "%s replayed delivery %s", v.Session.Email, del.Spec.ID)
	back := safeBack(r.PostFormValue("back"), v)
	d.redirectWithFlash(w, r, back, "Delivery "+del.Spec.ID+" replayed: its next attempt is on its way.")
}

// safeBack returns back when it is a page of the current organization, else its endpoints page.
func safeBack(back string, v *view) string {
	if strings.HasPrefix(back, v.Base()+"/") && !strings.ContainsAny(back, "?#\\\r\n") {
		return back
	}
	return v.Base() + "/endpoints"
}

// membersData is the members page's.
type membersData struct {
	Members []tcsv1.Member
	// Invited are the pending invitations: not members until they accept.
	Invited []accounts.Invitation
	Roles   []string
	// Remove is the member whose removal is to be confirmed.
	Remove string
}

func (d *Dashboard) membersPage(w http.ResponseWriter, r *http.Request, v *view, status int, data *membersData) {
	org, err := d.o.Accounts.Organization(r.Context(), v.Org.OrganizationID)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	invited, err := d.o.Accounts.Invitations(r.Context(), v.Org.OrganizationID)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data.Members, data.Invited, data.Roles = org.Spec.Members, invited, accounts.Roles
	if email := r.URL.Query().Get("remove"); email != "" && r.Method == http.MethodGet {
		for _, m := range org.Spec.Members {
			if strings.EqualFold(m.Email, email) {
				data.Remove = m.Email
			}
		}
	}
	v.Title, v.Data = "Members", data
	d.render(w, r, status, "members", v)
}

func (d *Dashboard) members(w http.ResponseWriter, r *http.Request, v *view) {
	d.membersPage(w, r, v, http.StatusOK, &membersData{})
}

// inviteMember records an invitation and emails it to the invited person: a link to set a
// password for a new account, else a note to sign in and accept. The inviter sees neither.
func (d *Dashboard) inviteMember(w http.ResponseWriter, r *http.Request, v *view) {
	email, role := r.PostFormValue("email"), r.PostFormValue("role")
	inv, token, err := d.o.Accounts.Invite(r.Context(), v.Org.OrganizationID, email, role, v.Session.Email)
	if errs, ok := fieldErrors(err); ok {
		v.Errors, v.Form = errs, r.PostForm
		d.membersPage(w, r, v, http.StatusBadRequest, &membersData{})
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.MemberInvited, "%s invited %q as %q, until %s", v.Session.Email, inv.Email, inv.Role, formatTime(inv.ExpiresAt))
	if err := d.send(r.Context(), d.invitationMessage(inv, token)); err != nil {
		d.redirect(w, r, v, "/members", "The invitation of "+inv.Email+" is recorded, but the email could not be sent: invite again later.")
		return
	}
	if _, logged := d.o.Mail.(mail.Log); logged {
		d.redirect(w, r, v, "/members", "Invitation of "+inv.Email+" recorded, until "+when(v, inv.ExpiresAt)+
			". No SMTP server is set up: its email is in the service's log.")
		return
	}
	d.redirect(w, r, v, "/members", "Invitation emailed to "+inv.Email+"; it expires on "+when(v, inv.ExpiresAt)+".")
}

func (d *Dashboard) revokeInvitation(w http.ResponseWriter, r *http.Request, v *view) {
	inv, err := d.o.Accounts.RevokeInvitation(r.Context(), v.Org.OrganizationID, r.PostFormValue("email"))
	if _, ok := fieldErrors(err); ok || errors.Is(err, accounts.ErrInvitationGone) {
		d.notFound(w, r, v)
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.InvitationRevoked, "%s revoked the invitation of %q", v.Session.Email, inv.Email)
	d.redirect(w, r, v, "/members", "The invitation of "+inv.Email+" is revoked.")
}

func (d *Dashboard) changeRole(w http.ResponseWriter, r *http.Request, v *view) {
	email, role := r.PostFormValue("email"), r.PostFormValue("role")
	if _, err := d.o.Accounts.Role(r.Context(), v.Org.OrganizationID, strings.ToLower(strings.TrimSpace(email))); err != nil {
		d.notFound(w, r, v)
		return
	}
	err := d.o.Accounts.SetMember(r.Context(), v.Org.OrganizationID, email, role)
	if errs, ok := fieldErrors(err); ok {
		v.Errors = errs
		d.membersPage(w, r, v, http.StatusBadRequest, &membersData{})
		return
	}
	if errors.Is(err, accounts.ErrLastOwner) {
		v.Errors = map[string]string{"role": err.Error()}
		d.membersPage(w, r, v, http.StatusBadRequest, &membersData{})
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.MemberRoleChanged, "%s made %q %q", v.Session.Email, email, role)
	d.redirect(w, r, v, "/members", email+" is now "+role+".")
}

func (d *Dashboard) removeMember(w http.ResponseWriter, r *http.Request, v *view) {
	email := r.PostFormValue("email")
	err := d.o.Accounts.RemoveMember(r.Context(), v.Org.OrganizationID, email)
	switch {
	case errors.Is(err, accounts.ErrNotFound):
		d.notFound(w, r, v)
		return
	case errors.Is(err, accounts.ErrLastOwner):
		v.Errors = map[string]string{"remove": err.Error()}
		d.membersPage(w, r, v, http.StatusBadRequest, &membersData{})
		return
	case err != nil:
		if _, ok := fieldErrors(err); ok {
			d.notFound(w, r, v)
			return
		}
		d.serverError(w, r, err)
		return
	}
	d.live.endMember(v.Org.OrganizationID, email)
	d.auditf(r.Context(), v.Org.OrganizationID, v.Session.Email, audit.MemberRemoved, "%s removed %q", v.Session.Email, email)
	d.redirect(w, r, v, "/members", email+" was removed.")
}
