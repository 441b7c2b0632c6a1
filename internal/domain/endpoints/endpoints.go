// Package endpoints manages the webhook endpoints of organizations and their deliveries: the one
// set of rules that `tcs admin webhook` and the dashboard both apply.
package endpoints

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/netpolicy"
	"tcs.dev/tcs/internal/platform/results"
)

// SecretType is the type of the Secrets that hold webhook signing secrets.
const SecretType corev1.SecretType = "tcs.dev/webhook-secret"

// Events are the event types an endpoint can subscribe to, in their canonical order. An
// endpoint stores its types expanded ("all" as the list of the moment), so a type added here
// reaches only the endpoints that choose it from then on.
var Events = []string{
	tcsv1.EventTranscriptCreated,
	tcsv1.EventTranscriptCompleted,
	tcsv1.EventTranscriptFailed,
	tcsv1.EventAIPassStarted,
	tcsv1.EventAIPassCompleted,
	tcsv1.EventAIPassFailed,
	tcsv1.EventTranscriptReviewed,
}

// ErrNotFound is returned for an endpoint or delivery that does not exist, or belongs to
// another organization than the one asked for.
var ErrNotFound = errors.New("not found")

// ErrNoOrganization is returned by the organization-scoped methods for an empty organization:
// only the cluster admin's methods (ListAll, GetAny, DeliveryAny) read across organizations.
var ErrNoOrganization = errors.New("no organization given")

// checkOrg refuses an empty organization.
func checkOrg(org string) error {
	if org == "" {
		return ErrNoOrganization
	}
	return nil
}

// FieldError is input refused before anything changed; Field names the offending input
// ("url", "events").
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// SecretName returns the name of the Secret of the endpoint object named endpointName.
func SecretName(endpointName string) string {
	return "whsec-" + endpointName
}

// ParseEvents returns the event types of list without duplicates, in the order given; "all"
// stands for every one. It refuses unknown types and an empty list.
func ParseEvents(list []string) ([]string, error) {
	var events []string
	add := func(e string) {
		if !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	for _, e := range list {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case e == "all":
			for _, all := range Events {
				add(all)
			}
		case slices.Contains(Events, e):
			add(e)
		default:
			return nil, &FieldError{Field: "events", Message: fmt.Sprintf("unknown event type %q (known: %s, or all)", e, strings.Join(Events, ", "))}
		}
	}
	if len(events) == 0 {
		return nil, &FieldError{Field: "events", Message: "events is required: one or more of " + strings.Join(Events, ", ")}
	}
	return events, nil
}

// ValidateURL accepts the URL of a webhook endpoint that netpolicy.CheckURL accepts for
// [netpolicy.Webhook]: an absolute https URL without credentials whose host is not a private or
// reserved address, unless allow holds it; plain http only for an IP literal that allow holds
// (local receivers of tests and `tcs dev`).
func ValidateURL(raw string, allow []netip.Prefix) error {
	if strings.TrimSpace(raw) == "" {
		return &FieldError{Field: "url", Message: "url is required"}
	}
	if reason := netpolicy.CheckURL(raw, netpolicy.Webhook, allow); reason != "" {
		// A URL too long to repeat whole is cut.
		return &FieldError{Field: "url", Message: fmt.Sprintf("url %.256q: %s", raw, reason)}
	}
	return nil
}

// Archive reads the deliveries archived in the results store (*results.Store).
type Archive interface {
	GetDelivery(ctx context.Context, id string) (*results.Delivery, error)
	ListDeliveries(ctx context.Context, opts results.DeliveryListOptions) (*results.DeliveryPage, error)
}

// Manager reads and writes the endpoints of one namespace.
type Manager struct {
	// Client writes objects and reads endpoints and deliveries.
	Client client.Client
	// Secrets reads Secrets (the dashboard's cache holds only API keys); nil means Client.
	Secrets client.Reader
	// Namespace holds the endpoints.
	Namespace string
	// AllowCIDRs is the outbound allow-list URLs are checked against.
	AllowCIDRs []netip.Prefix
	// Archive holds the deliveries moved out of the cluster; nil means none are.
	Archive Archive
}

func (m *Manager) secrets() client.Reader {
	if m.Secrets != nil {
		return m.Secrets
	}
	return m.Client
}

// Create validates url and events, then creates an endpoint of organization org with a new
// signing secret, which it returns.
func (m *Manager) Create(ctx context.Context, org, rawURL string, events []string) (*tcsv1.WebhookEndpoint, string, error) {
	if err := ValidateURL(rawURL, m.AllowCIDRs); err != nil {
		return nil, "", err
	}
	events, err := ParseEvents(events)
	if err != nil {
		return nil, "", err
	}
	if err := m.Client.Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: orgs.ObjectName(org)}, &tcsv1.Organization{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, "", fmt.Errorf("organization %s does not exist in namespace %s", org, m.Namespace)
		}
		return nil, "", fmt.Errorf("looking up organization %s: %w", org, err)
	}
	id := ids.New("we")
	name := orgs.ObjectName(id)
	secret := webhook.NewSecret()
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: SecretName(name), Namespace: m.Namespace, Labels: map[string]string{tcsv1.LabelOrganization: org}},
		Type:       SecretType,
		Data:       map[string][]byte{tcsv1.SecretKeyWebhookSecret: []byte(secret)},
	}
	if err := m.Client.Create(ctx, sec); err != nil {
		return nil, "", fmt.Errorf("creating the signing secret: %w", err)
	}
	ep := &tcsv1.WebhookEndpoint{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: m.Namespace, Labels: map[string]string{tcsv1.LabelOrganization: org}},
		Spec: tcsv1.WebhookEndpointSpec{
			ID:           id,
			Organization: org,
			URL:          rawURL,
			Events:       events,
			SecretName:   sec.Name,
		},
	}
	if err := m.Client.Create(ctx, ep); err != nil {
		// Do not leave an orphaned secret behind.
		_ = m.Client.Delete(context.WithoutCancel(ctx), sec)
		return nil, "", fmt.Errorf("creating the webhook endpoint: %w", err)
	}
	return ep, secret, nil
}

// List returns the endpoints of org, oldest first; an empty org is ErrNoOrganization.
func (m *Manager) List(ctx context.Context, org string) ([]tcsv1.WebhookEndpoint, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	return m.list(ctx, org)
}

// ListAll returns the endpoints of every organization, by organization then oldest first: for
// the cluster admin (`tcs admin webhook list`), never for a front-end of organizations.
func (m *Manager) ListAll(ctx context.Context) ([]tcsv1.WebhookEndpoint, error) {
	return m.list(ctx, "")
}

// list returns the endpoints of org, or every organization's when org is empty.
func (m *Manager) list(ctx context.Context, org string) ([]tcsv1.WebhookEndpoint, error) {
	opts := []client.ListOption{client.InNamespace(m.Namespace)}
	if org != "" {
		opts = append(opts, client.MatchingLabels{tcsv1.LabelOrganization: org})
	}
	var list tcsv1.WebhookEndpointList
	if err := m.Client.List(ctx, &list, opts...); err != nil {
		return nil, fmt.Errorf("listing webhook endpoints: %w", err)
	}
	items := list.Items
	if org != "" {
		// The label is a convenience; the spec is the truth.
		items = slices.DeleteFunc(items, func(e tcsv1.WebhookEndpoint) bool { return e.Spec.Organization != org })
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Spec.Organization != items[j].Spec.Organization {
			return items[i].Spec.Organization < items[j].Spec.Organization
		}
		return items[i].CreationTimestamp.Before(&items[j].CreationTimestamp)
	})
	return items, nil
}

// OrgMismatchError says that an object exists but belongs to another organization than the
// one asked for; it wraps ErrNotFound, so callers that must not tell the difference need not.
type OrgMismatchError struct {
	What, ID, Org, Want string
}

func (e *OrgMismatchError) Error() string {
	return fmt.Sprintf("%s %s belongs to organization %s, not %s", e.What, e.ID, e.Org, e.Want)
}

func (e *OrgMismatchError) Unwrap() error { return ErrNotFound }

// Get returns the endpoint id of org: another organization's is an *OrgMismatchError (which
// is ErrNotFound), an empty org is ErrNoOrganization.
func (m *Manager) Get(ctx context.Context, id, org string) (*tcsv1.WebhookEndpoint, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	return m.get(ctx, id, org)
}

// GetAny returns the endpoint id of whichever organization: for the cluster admin only.
func (m *Manager) GetAny(ctx context.Context, id string) (*tcsv1.WebhookEndpoint, error) {
	return m.get(ctx, id, "")
}

// get returns the endpoint id; when org is not empty the endpoint must belong to it.
func (m *Manager) get(ctx context.Context, id, org string) (*tcsv1.WebhookEndpoint, error) {
	if !ids.Valid("we", id) {
		return nil, &FieldError{Field: "id", Message: fmt.Sprintf("%q is not a webhook endpoint id (we_…)", id)}
	}
	ep := &tcsv1.WebhookEndpoint{}
	if err := m.Client.Get(ctx, types.NamespacedName{Namespace: m.Namespace, Name: orgs.ObjectName(id)}, ep); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("webhook endpoint %s does not exist in namespace %s: %w", id, m.Namespace, ErrNotFound)
		}
		return nil, fmt.Errorf("getting webhook endpoint %s: %w", id, err)
	}
	if ep.Spec.ID != id {
		return nil, fmt.Errorf("webhook endpoint %s does not exist in namespace %s: %w", id, m.Namespace, ErrNotFound)
	}
	if org != "" && ep.Spec.Organization != org {
		return nil, &OrgMismatchError{What: "webhook endpoint", ID: id, Org: ep.Spec.Organization, Want: org}
	}
	return ep, nil
}

// secretRef names the Secret of ep.
func secretRef(ep *tcsv1.WebhookEndpoint) types.NamespacedName {
	name := ep.Spec.SecretName
	if name == "" {
		name = SecretName(ep.Name)
	}
	return types.NamespacedName{Namespace: ep.Namespace, Name: name}
}

// secretMissing says that the signing secret of ep is gone.
func secretMissing(ep *tcsv1.WebhookEndpoint) error {
	return fmt.Errorf("the signing secret %s of webhook endpoint %s does not exist", secretRef(ep).Name, ep.Spec.ID)
}

// update applies mutate to the current ep and writes it when mutate reports a change.
func (m *Manager) update(ctx context.Context, ep *tcsv1.WebhookEndpoint, mutate func(*tcsv1.WebhookEndpoint) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := m.Client.Get(ctx, client.ObjectKeyFromObject(ep), ep); err != nil {
			return err
		}
		if !mutate(ep) {
			return nil
		}
		return m.Client.Update(ctx, ep)
	})
}

// SetPaused pauses or resumes ep: a paused endpoint's events are recorded as skipped.
func (m *Manager) SetPaused(ctx context.Context, ep *tcsv1.WebhookEndpoint, paused bool) error {
	err := m.update(ctx, ep, func(ep *tcsv1.WebhookEndpoint) bool {
		if ep.Spec.Paused == paused {
			return false
		}
		ep.Spec.Paused = paused
		return true
	})
	if err != nil {
		return fmt.Errorf("setting paused=%t on %s: %w", paused, ep.Spec.ID, err)
	}
	return nil
}

// Edit validates and sets the URL and event types of ep.
func (m *Manager) Edit(ctx context.Context, ep *tcsv1.WebhookEndpoint, rawURL string, events []string) error {
	if err := ValidateURL(rawURL, m.AllowCIDRs); err != nil {
		return err
	}
	events, err := ParseEvents(events)
	if err != nil {
		return err
	}
	err = m.update(ctx, ep, func(ep *tcsv1.WebhookEndpoint) bool {
		if ep.Spec.URL == rawURL && slices.Equal(ep.Spec.Events, events) {
			return false
		}
		ep.Spec.URL, ep.Spec.Events = rawURL, events
		return true
	})
	if err != nil {
		return fmt.Errorf("editing %s: %w", ep.Spec.ID, err)
	}
	return nil
}

// Rotate gives ep a new signing secret and returns it. The old one becomes the previous
// secret: for 24 hours deliveries carry a signature with it too.
func (m *Manager) Rotate(ctx context.Context, ep *tcsv1.WebhookEndpoint, now time.Time) (string, error) {
	secret := webhook.NewSecret()
	sec := &corev1.Secret{}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := m.secrets().Get(ctx, secretRef(ep), sec); err != nil {
			return err
		}
		if sec.Data == nil {
			sec.Data = map[string][]byte{}
		}
		if cur, ok := sec.Data[tcsv1.SecretKeyWebhookSecret]; ok {
			sec.Data[tcsv1.SecretKeyWebhookPrevious] = cur
		}
		sec.Data[tcsv1.SecretKeyWebhookSecret] = []byte(secret)
		if sec.Annotations == nil {
			sec.Annotations = map[string]string{}
		}
		sec.Annotations[tcsv1.AnnotationRotatedAt] = now.UTC().Format(time.RFC3339)
		return m.Client.Update(ctx, sec)
	})
	if apierrors.IsNotFound(err) {
		return "", secretMissing(ep)
	}
	if err != nil {
		return "", fmt.Errorf("rotating the secret of %s: %w", ep.Spec.ID, err)
	}
	return secret, nil
}

// Reveal returns the current signing secret of ep.
func (m *Manager) Reveal(ctx context.Context, ep *tcsv1.WebhookEndpoint) (string, error) {
	sec := &corev1.Secret{}
	if err := m.secrets().Get(ctx, secretRef(ep), sec); err != nil {
		if apierrors.IsNotFound(err) {
			return "", secretMissing(ep)
		}
		return "", fmt.Errorf("getting the secret of %s: %w", ep.Spec.ID, err)
	}
	cur := sec.Data[tcsv1.SecretKeyWebhookSecret]
	if len(cur) == 0 {
		return "", fmt.Errorf("the signing secret %s of webhook endpoint %s holds no %q", sec.Name, ep.Spec.ID, tcsv1.SecretKeyWebhookSecret)
	}
	return string(cur), nil
}

// Delete deletes ep and its signing secret.
func (m *Manager) Delete(ctx context.Context, ep *tcsv1.WebhookEndpoint) error {
	if err := m.Client.Delete(ctx, ep); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting webhook endpoint %s: %w", ep.Spec.ID, err)
	}
	ref := secretRef(ep)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
	if err := m.Client.Delete(ctx, sec); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the signing secret %s of %s: %w", ref.Name, ep.Spec.ID, err)
	}
	return nil
}

// DeliveryFilter selects deliveries; empty fields select all, but Organization or Endpoint
// must be set (an endpoint belongs to one organization).
type DeliveryFilter struct {
	// Organization is the organization the deliveries belong to.
	Organization string
	// Endpoint is the object name of the endpoint (not its id).
	Endpoint string
	// TranscriptID is the transcript the events are about.
	TranscriptID string
	// Limit bounds the result; zero means no bound.
	Limit int
}

// Deliveries returns the deliveries f selects, newest first: those in the cluster, then the
// archived ones. The cluster is read first, and the archiver writes a record before it deletes
// the resource, so no delivery is missed while it moves.
func (m *Manager) Deliveries(ctx context.Context, f DeliveryFilter) ([]tcsv1.WebhookDelivery, error) {
	if f.Organization == "" && f.Endpoint == "" {
		return nil, fmt.Errorf("listing webhook deliveries: select an organization or an endpoint: %w", ErrNoOrganization)
	}
	var list tcsv1.WebhookDeliveryList
	if err := m.Client.List(ctx, &list, client.InNamespace(m.Namespace)); err != nil {
		return nil, fmt.Errorf("listing webhook deliveries: %w", err)
	}
	selected := func(d *tcsv1.WebhookDelivery) bool {
		return (f.Organization == "" || d.Spec.Organization == f.Organization) &&
			(f.Endpoint == "" || d.Spec.Endpoint == f.Endpoint) &&
			(f.TranscriptID == "" || d.Spec.TranscriptID == f.TranscriptID)
	}
	items := slices.DeleteFunc(list.Items, func(d tcsv1.WebhookDelivery) bool { return !selected(&d) })
	archived, err := m.archivedDeliveries(ctx, f, len(items))
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for i := range items {
		live[items[i].Spec.ID] = true
	}
	for _, d := range archived {
		if !live[d.ID] && selected(d.Delivery) {
			items = append(items, *d.Delivery)
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].CreationTimestamp, items[j].CreationTimestamp
		if !a.Equal(&b) {
			return b.Before(&a)
		}
		if items[i].Spec.TranscriptID == items[j].Spec.TranscriptID && items[i].Spec.Sequence != items[j].Spec.Sequence {
			return items[i].Spec.Sequence > items[j].Spec.Sequence
		}
		return items[i].Spec.ID > items[j].Spec.ID
	})
	if f.Limit > 0 && len(items) > f.Limit {
		items = items[:f.Limit]
	}
	return items, nil
}

// archivedDeliveries returns the archived deliveries that may be among the first f.Limit
// (all of them when it is zero) once merged with the live ones, of which shadow may also be
// archived: the first f.Limit+shadow, and those of the same second as the last of them, whose
// order the store does not know.
func (m *Manager) archivedDeliveries(ctx context.Context, f DeliveryFilter, shadow int) ([]*results.Delivery, error) {
	if m.Archive == nil {
		return nil, nil
	}
	opts := results.DeliveryListOptions{Organization: f.Organization, Limit: 500}
	switch {
	case f.TranscriptID != "":
		opts.TranscriptID = f.TranscriptID
	case f.Endpoint != "":
		opts.Endpoint = f.Endpoint
	}
	want := 0
	if f.Limit > 0 {
		want = f.Limit + shadow
		opts.Limit = want
	}
	var out []*results.Delivery
	for {
		page, err := m.Archive.ListDeliveries(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing archived webhook deliveries: %w", err)
		}
		out = append(out, page.Deliveries...)
		if !page.HasMore || len(page.Deliveries) == 0 {
			return out, nil
		}
		if last := out[len(out)-1]; want > 0 && len(out) >= want && !last.CreatedAt.Equal(out[want-1].CreatedAt) {
			return out, nil
		}
		c := out[len(out)-1].Cursor()
		opts.StartingAfter = &c
	}
}

// Delivery returns the delivery id of org, from the cluster or else from the archive: another
// organization's is an *OrgMismatchError (which is ErrNotFound), an empty org is
// ErrNoOrganization.
func (m *Manager) Delivery(ctx context.Context, id, org string) (*tcsv1.WebhookDelivery, error) {
	if err := checkOrg(org); err != nil {
		return nil, err
	}
	return m.delivery(ctx, id, org)
}

// DeliveryAny returns the delivery id of whichever organization: for the cluster admin only.
func (m *Manager) DeliveryAny(ctx context.Context, id string) (*tcsv1.WebhookDelivery, error) {
	return m.delivery(ctx, id, "")
}

// delivery returns the delivery id; when org is not empty it must belong to it.
func (m *Manager) delivery(ctx context.Context, id, org string) (*tcsv1.WebhookDelivery, error) {
	if !ids.Valid("evt", id) {
		return nil, &FieldError{Field: "id", Message: fmt.Sprintf("%q is not a delivery id (evt_…)", id)}
	}
	var list tcsv1.WebhookDeliveryList
	if err := m.Client.List(ctx, &list, client.InNamespace(m.Namespace)); err != nil {
		return nil, fmt.Errorf("listing webhook deliveries: %w", err)
	}
	var d *tcsv1.WebhookDelivery
	if i := slices.IndexFunc(list.Items, func(d tcsv1.WebhookDelivery) bool { return d.Spec.ID == id }); i >= 0 {
		d = &list.Items[i]
	} else if m.Archive != nil {
		rec, err := m.Archive.GetDelivery(ctx, id)
		switch {
		case errors.Is(err, results.ErrNotFound):
		case err != nil:
			return nil, fmt.Errorf("reading archived delivery %s: %w", id, err)
		default:
			d = rec.Delivery
		}
	}
	if d == nil {
		return nil, fmt.Errorf("delivery %s does not exist in namespace %s: %w", id, m.Namespace, ErrNotFound)
	}
	if org != "" && d.Spec.Organization != org {
		return nil, &OrgMismatchError{What: "delivery", ID: id, Org: d.Spec.Organization, Want: org}
	}
	return d, nil
}

// Replay sends d again, whatever its state: its controller makes a new attempt at once, which
// the history shows as one more attempt after the replay. An archived delivery is brought back
// into the cluster for it, and archived again once it ends.
func (m *Manager) Replay(ctx context.Context, d *tcsv1.WebhookDelivery, now time.Time) error {
	id, key := d.Spec.ID, types.NamespacedName{Namespace: m.Namespace, Name: d.Name}
	cur := &tcsv1.WebhookDelivery{}
	err := m.Client.Get(ctx, key, cur)
	if err == nil {
		// Locked: the count of replays goes up by one from the count read.
		_, err = statuspatch.Retry(ctx, m.Client, m.Client, retry.DefaultRetry, cur, statuspatch.OwnerEndpoints,
			func() bool { cur.Replay(now); return true }, statuspatch.Locked)
	}
	if err == nil {
		*d = *cur
	}
	if apierrors.IsNotFound(err) && m.Archive != nil {
		err = m.replayArchived(ctx, id, key, now)
	}
	if apierrors.IsNotFound(err) || errors.Is(err, results.ErrNotFound) {
		return fmt.Errorf("delivery %s does not exist in namespace %s: %w", id, m.Namespace, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("replaying %s: %w", id, err)
	}
	return nil
}

// replayArchived brings the archived delivery id back into the cluster as the resource key,
// marked with AnnotationUnarchived (the replay's time), and gives it its record's status with
// the replay. A run killed between the two leaves the mark, from which the delivery controller
// restores the status before it sends anything.
func (m *Manager) replayArchived(ctx context.Context, id string, key types.NamespacedName, now time.Time) error {
	rec, err := m.Archive.GetDelivery(ctx, id)
	if err != nil {
		return err
	}
	at := now.UTC().Truncate(time.Second)
	back := &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Labels: maps.Clone(rec.Delivery.Labels),
			Annotations: map[string]string{tcsv1.AnnotationUnarchived: at.Format(time.RFC3339)}},
		Spec: rec.Delivery.Spec,
	}
	if err := m.Client.Create(ctx, back); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil // brought back by a concurrent replay
		}
		return err
	}
	cur := &tcsv1.WebhookDelivery{}
	err = m.Client.Get(ctx, key, cur)
	if err == nil {
		// Locked: only a delivery the controller has not restored meanwhile gets the record's status.
		_, err = statuspatch.Retry(ctx, m.Client, m.Client, retry.DefaultRetry, cur, statuspatch.OwnerEndpoints, func() bool {
			if cur.Status.State != "" {
				return false // restored by the controller
			}
			cur.Status = rec.Delivery.Status
			cur.Replay(at)
			return true
		}, statuspatch.Locked)
	}
	if apierrors.IsNotFound(err) {
		// Not in a cache yet, or sent and archived again already: the controller restores
		// the status from the mark.
		return nil
	}
	return err
}

// PayloadStore keeps delivery bodies by key.
type PayloadStore interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
}

// SendTest creates a delivery of a test event to ep, which its controller sends, signs and
// retries like any other; its body says it is a test.
func (m *Manager) SendTest(ctx context.Context, store PayloadStore, ep *tcsv1.WebhookEndpoint, now time.Time) (*tcsv1.WebhookDelivery, error) {
	suffix := ids.Random(32)
	id, name := webhook.DeliveryID(suffix), webhook.DeliveryName(suffix)
	body, err := webhook.TestPayload(id, ep.Spec.Organization, ep.Spec.ID, now)
	if err != nil {
		return nil, err
	}
	key := webhook.PayloadKey(ep.Spec.Organization, id)
	if err := store.Put(ctx, key, body, "application/json"); err != nil {
		return nil, fmt.Errorf("writing the payload of %s: %w", id, err)
	}
	d := &tcsv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ep.Namespace, Labels: map[string]string{tcsv1.LabelOrganization: ep.Spec.Organization}},
		Spec: tcsv1.WebhookDeliverySpec{ID: id, Organization: ep.Spec.Organization, Endpoint: ep.Name,
			Event: webhook.EventTest, PayloadRef: key},
	}
	if err := m.Client.Create(ctx, d); err != nil {
		return nil, fmt.Errorf("creating a test delivery: %w", err)
	}
	return d, nil
}
