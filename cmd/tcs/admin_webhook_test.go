package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/results"
)

// adminCLI runs `tcs admin …` against the test control plane in one namespace.
type adminCLI struct {
	kubeconfig string
	namespace  string
}

func newAdminCLI(t *testing.T) *adminCLI {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return &adminCLI{kubeconfig: kubeconfig, namespace: env.Namespace(t, "admin-webhook")}
}

// run runs tcs admin args… and returns its output.
func (a *adminCLI) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetArgs(append([]string{"admin", "--kubeconfig", a.kubeconfig, "--namespace", a.namespace}, args...))
	root.SetIn(strings.NewReader(""))
	root.SetOut(&out)
	root.SetErr(&errOut)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// mustRun runs tcs admin args… and fails t on error.
func (a *adminCLI) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := a.run(t, args...)
	if err != nil {
		t.Fatalf("tcs admin %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// mustFail runs tcs admin args… and fails t unless it fails with an error mentioning want.
func (a *adminCLI) mustFail(t *testing.T, want string, args ...string) {
	t.Helper()
	out, err := a.run(t, args...)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("tcs admin %s = %q, %v; want an error mentioning %q", strings.Join(args, " "), out, err, want)
	}
}

// createEndpoint creates an endpoint with the CLI and returns its id and secret.
func (a *adminCLI) createEndpoint(t *testing.T, org, url, events string) (id, secret string) {
	t.Helper()
	out := a.mustRun(t, "webhook", "create", "--org", org, "--url", url, "--events", events)
	fields := strings.Split(strings.TrimSpace(out), "\t")
	if len(fields) != 2 || !ids.Valid("we", fields[0]) || !strings.HasPrefix(fields[1], "whsec_") {
		t.Fatalf("webhook create printed %q, want we_…<TAB>whsec_…", out)
	}
	return fields[0], fields[1]
}

func TestAdminWebhook(t *testing.T) {
	a := newAdminCLI(t)
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ctx := context.Background()
	org := strings.TrimSpace(a.mustRun(t, "org", "create", "Grace Chapel"))
	other := strings.TrimSpace(a.mustRun(t, "org", "create", "Hope Church"))
	if !ids.Valid("org", org) || !ids.Valid("org", other) {
		t.Fatalf("org create printed %q and %q", org, other)
	}

	getEndpoint := func(t *testing.T, id string) *tcsv1.WebhookEndpoint {
		t.Helper()
		ep := &tcsv1.WebhookEndpoint{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: a.namespace, Name: orgs.ObjectName(id)}, ep); err != nil {
			t.Fatalf("getting endpoint %s: %v", id, err)
		}
		return ep
	}
	getSecret := func(t *testing.T, id string) *corev1.Secret {
		t.Helper()
		sec := &corev1.Secret{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: a.namespace, Name: "whsec-" + orgs.ObjectName(id)}, sec); err != nil {
			t.Fatalf("getting the secret of %s: %v", id, err)
		}
		return sec
	}

	id, secret := a.createEndpoint(t, org, "https://hooks.example.com/tcs", "transcript.completed, ai_pass.failed,transcript.completed")
	otherID, _ := a.createEndpoint(t, other, "http://127.0.0.1:8080/hook", "all")

	t.Run("create", func(t *testing.T) {
		ep := getEndpoint(t, id)
		if ep.Spec.ID != id || ep.Spec.Organization != org || ep.Spec.URL != "https://hooks.example.com/tcs" ||
			strings.Join(ep.Spec.Events, ",") != "transcript.completed,ai_pass.failed" || ep.Spec.Paused ||
			ep.Spec.SecretName != "whsec-"+orgs.ObjectName(id) || ep.Labels[tcsv1.LabelOrganization] != org {
			t.Fatalf("endpoint = %+v, labels %v", ep.Spec, ep.Labels)
		}
		sec := getSecret(t, id)
		if sec.Type != "tcs.dev/webhook-secret" || sec.Labels[tcsv1.LabelOrganization] != org ||
			string(sec.Data[tcsv1.SecretKeyWebhookSecret]) != secret || len(secret) != len("whsec_")+32 {
			t.Fatalf("secret = type %q labels %v data %q; printed %q", sec.Type, sec.Labels, sec.Data, secret)
		}
		if got := getEndpoint(t, otherID).Spec.Events; !slices.Equal(got, webhook.Events()) || !slices.Contains(got, tcsv1.EventTranscriptReviewed) {
			t.Fatalf("--events all gave %v", got)
		}
	})

	t.Run("create refuses bad input", func(t *testing.T) {
		for _, tc := range []struct {
			want string
			args []string
		}{
			{"organization id", []string{"--org", "acme", "--url", "https://x.example", "--events", "all"}},
			{"does not exist", []string{"--org", "org_nosuchorg", "--url", "https://x.example", "--events", "all"}},
			{"--url is required", []string{"--org", org, "--events", "all"}},
			{"loopback", []string{"--org", org, "--url", "http://hooks.example.com/x", "--events", "all"}},
			{"loopback", []string{"--org", org, "--url", "http://localhost:8080/x", "--events", "all"}},
			{"scheme must be https", []string{"--org", org, "--url", "ftp://hooks.example.com", "--events", "all"}},
			{"no host", []string{"--org", org, "--url", "https:///path", "--events", "all"}},
			{"credentials", []string{"--org", org, "--url", "https://u:p@hooks.example.com", "--events", "all"}},
			{`unknown event type "transcript.deleted"`, []string{"--org", org, "--url", "https://x.example", "--events", "transcript.created,transcript.deleted"}},
			{"--events is required", []string{"--org", org, "--url", "https://x.example", "--events", " , "}},
		} {
			a.mustFail(t, tc.want, append([]string{"webhook", "create"}, tc.args...)...)
		}
		var list tcsv1.WebhookEndpointList
		if err := c.List(ctx, &list, client.InNamespace(a.namespace)); err != nil || len(list.Items) != 2 {
			t.Fatalf("%d endpoints after refused creates (%v), want 2", len(list.Items), err)
		}
		var secrets corev1.SecretList
		if err := c.List(ctx, &secrets, client.InNamespace(a.namespace), client.HasLabels{tcsv1.LabelOrganization}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range secrets.Items {
			if s.Type == "tcs.dev/webhook-secret" {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("%d webhook secrets after refused creates, want 2", n)
		}
	})

	t.Run("list", func(t *testing.T) {
		out := a.mustRun(t, "webhook", "list")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "ID ORG URL EVENTS PAUSED AGE" {
			t.Fatalf("list:\n%s", out)
		}
		if !strings.Contains(out, id) || !strings.Contains(out, otherID) ||
			!strings.Contains(out, "transcript.completed,ai_pass.failed") {
			t.Fatalf("list:\n%s", out)
		}
		out = a.mustRun(t, "webhook", "list", "--org", org)
		lines = strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], id) || strings.Contains(out, otherID) {
			t.Fatalf("list --org %s:\n%s", org, out)
		}
		f := strings.Fields(lines[1])
		if f[1] != org || f[2] != "https://hooks.example.com/tcs" || f[4] != "false" {
			t.Fatalf("list row %q", lines[1])
		}
		a.mustFail(t, "organization id", "webhook", "list", "--org", "nope")
	})

	t.Run("pause and resume", func(t *testing.T) {
		if out := a.mustRun(t, "webhook", "pause", id); out != "paused "+id+"\n" {
			t.Fatalf("pause printed %q", out)
		}
		if !getEndpoint(t, id).Spec.Paused {
			t.Fatal("endpoint not paused")
		}
		if out := a.mustRun(t, "webhook", "list", "--org", org); !strings.Contains(out, " true ") {
			t.Fatalf("list after pause:\n%s", out)
		}
		a.mustRun(t, "webhook", "pause", id) // idempotent
		if out := a.mustRun(t, "webhook", "resume", id, "--org", org); out != "resumed "+id+"\n" {
			t.Fatalf("resume printed %q", out)
		}
		if getEndpoint(t, id).Spec.Paused {
			t.Fatal("endpoint still paused")
		}
		a.mustFail(t, "belongs to organization "+org, "webhook", "pause", id, "--org", other)
		a.mustFail(t, "does not exist", "webhook", "pause", "we_nosuchendpoint")
		a.mustFail(t, "not a webhook endpoint id", "webhook", "resume", "evt_abc")
		if getEndpoint(t, id).Spec.Paused {
			t.Fatal("a refused pause paused the endpoint")
		}
	})

	t.Run("reveal and rotate", func(t *testing.T) {
		if out := a.mustRun(t, "webhook", "reveal", id); out != secret+"\n" {
			t.Fatalf("reveal printed %q, want %q", out, secret)
		}
		before := time.Now().Add(-time.Second)
		out := a.mustRun(t, "webhook", "rotate", id)
		rotated := strings.TrimSpace(out)
		if !strings.HasPrefix(rotated, "whsec_") || rotated == secret {
			t.Fatalf("rotate printed %q (old %q)", out, secret)
		}
		sec := getSecret(t, id)
		if string(sec.Data[tcsv1.SecretKeyWebhookSecret]) != rotated || string(sec.Data[tcsv1.SecretKeyWebhookPrevious]) != secret {
			t.Fatalf("after rotate: data %q", sec.Data)
		}
		at, err := time.Parse(time.RFC3339, sec.Annotations[tcsv1.AnnotationRotatedAt])
		if err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) {
			t.Fatalf("rotated-at %q (%v), want about now", sec.Annotations[tcsv1.AnnotationRotatedAt], err)
		}
		if out := a.mustRun(t, "webhook", "reveal", id); out != rotated+"\n" {
			t.Fatalf("reveal after rotate printed %q, want %q", out, rotated)
		}
		again := strings.TrimSpace(a.mustRun(t, "webhook", "rotate", id))
		if sec := getSecret(t, id); string(sec.Data[tcsv1.SecretKeyWebhookPrevious]) != rotated || string(sec.Data[tcsv1.SecretKeyWebhookSecret]) != again {
			t.Fatalf("after the second rotate: data %q", sec.Data)
		}
		a.mustFail(t, "belongs to organization", "webhook", "reveal", id, "--org", other)
		a.mustFail(t, "does not exist", "webhook", "rotate", "we_nosuchendpoint")
	})

	// Deliveries of id: older one failed, newer one succeeded; one of the other endpoint.
	newDelivery := func(t *testing.T, endpointID, orgID, event string, created time.Time, status tcsv1.WebhookDeliveryStatus) string {
		t.Helper()
		evt := ids.NewSortable("evt", created)
		d := &tcsv1.WebhookDelivery{
			ObjectMeta: metav1.ObjectMeta{Name: orgs.ObjectName(evt), Namespace: a.namespace},
			Spec: tcsv1.WebhookDeliverySpec{
				ID: evt, Organization: orgID, Endpoint: orgs.ObjectName(endpointID), Event: event,
				TranscriptID: "tr_abc123", Sequence: 1, PayloadRef: "webhooks/" + evt + ".json",
			},
		}
		if err := c.Create(ctx, d); err != nil {
			t.Fatalf("creating delivery: %v", err)
		}
		d.Status = status
		if err := c.Status().Update(ctx, d); err != nil {
			t.Fatalf("setting the delivery status: %v", err)
		}
		return evt
	}
	failedAt := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	failed := newDelivery(t, id, org, tcsv1.EventTranscriptCompleted, time.Now().Add(-time.Minute), tcsv1.WebhookDeliveryStatus{
		State: tcsv1.DeliveryFailed,
		Attempts: []tcsv1.DeliveryAttempt{
			{Time: failedAt, StatusCode: 500, Error: "server\terror", DurationMillis: 12},
			{Time: failedAt, StatusCode: 503, Error: "receiver returned 503", DurationMillis: 7},
		},
		CompletedAt: &failedAt,
	})
	succeeded := newDelivery(t, id, org, tcsv1.EventAIPassFailed, time.Now(), tcsv1.WebhookDeliveryStatus{
		State:    tcsv1.DeliverySucceeded,
		Attempts: []tcsv1.DeliveryAttempt{{Time: metav1.Now(), StatusCode: 204, DurationMillis: 3}},
	})
	otherDelivery := newDelivery(t, otherID, other, tcsv1.EventTranscriptCreated, time.Now(), tcsv1.WebhookDeliveryStatus{State: tcsv1.DeliveryPending})

	t.Run("deliveries", func(t *testing.T) {
		out := a.mustRun(t, "webhook", "deliveries", id)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "DELIVERY EVENT TRANSCRIPT STATE ATTEMPTS LAST CODE LAST ERROR NEXT" {
			t.Fatalf("deliveries:\n%s", out)
		}
		if strings.Contains(out, otherDelivery) {
			t.Fatalf("deliveries of %s list one of %s:\n%s", id, otherID, out)
		}
		if got := strings.Fields(lines[1]); strings.Join(got, " ") != succeeded+" ai_pass.failed tr_abc123 succeeded 1 204 - -" {
			t.Fatalf("newest row %q", lines[1])
		}
		if got := strings.Fields(lines[2]); strings.Join(got, " ") != failed+" transcript.completed tr_abc123 failed 2 503 receiver returned 503 -" {
			t.Fatalf("older row %q", lines[2])
		}
		out = a.mustRun(t, "webhook", "deliveries", id, "--limit", "1")
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], succeeded) {
			t.Fatalf("deliveries --limit 1:\n%s", out)
		}
		a.mustFail(t, "does not exist", "webhook", "deliveries", "we_nosuchendpoint")
		a.mustFail(t, "belongs to organization", "webhook", "deliveries", otherID, "--org", org)
	})

	t.Run("replay", func(t *testing.T) {
		before := time.Now().Add(-time.Second)
		if out := a.mustRun(t, "webhook", "replay", failed); out != "replaying "+failed+"\n" {
			t.Fatalf("replay printed %q", out)
		}
		d := &tcsv1.WebhookDelivery{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: a.namespace, Name: orgs.ObjectName(failed)}, d); err != nil {
			t.Fatal(err)
		}
		st := d.Status
		if st.State != tcsv1.DeliveryPending || st.Replays != 1 || st.NextAttemptAt == nil || st.ReplayedAt == nil ||
			st.NextAttemptAt.Time.Before(before) || st.ReplayedAt.Time.Before(before) || len(st.Attempts) != 2 {
			t.Fatalf("status after replay = %+v", st)
		}
		a.mustRun(t, "webhook", "replay", failed)
		if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil || d.Status.Replays != 2 {
			t.Fatalf("replays after the second replay = %d (%v), want 2", d.Status.Replays, err)
		}
		if out := a.mustRun(t, "webhook", "deliveries", id); !strings.Contains(out, failed) || !strings.Contains(out, " pending ") {
			t.Fatalf("deliveries after replay:\n%s", out)
		}
		a.mustFail(t, "does not exist", "webhook", "replay", "evt_0123456789abcdef")
		a.mustFail(t, "not a delivery id", "webhook", "replay", id)
		a.mustFail(t, "belongs to organization", "webhook", "replay", failed, "--org", other)
	})

	t.Run("archived", func(t *testing.T) {
		// A delivery moved to the results store: listed after the live ones (it is older),
		// and a replay brings it back into the cluster with its attempts.
		dsn := "sqlite://" + filepath.Join(t.TempDir(), "results.db")
		rs, err := results.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		created := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
		evt := ids.NewSortable("evt", created)
		ended := metav1.NewTime(created.Add(time.Minute))
		archived := &tcsv1.WebhookDelivery{
			ObjectMeta: metav1.ObjectMeta{Name: orgs.ObjectName(evt), Namespace: a.namespace, CreationTimestamp: metav1.NewTime(created)},
			Spec: tcsv1.WebhookDeliverySpec{ID: evt, Organization: org, Endpoint: orgs.ObjectName(id), Event: tcsv1.EventTranscriptCreated,
				TranscriptID: "tr_abc123", PayloadRef: "webhooks/" + evt + ".json"},
			Status: tcsv1.WebhookDeliveryStatus{State: tcsv1.DeliveryFailed, CompletedAt: &ended,
				Attempts: []tcsv1.DeliveryAttempt{{Time: ended, StatusCode: 410, Error: "gone"}}},
		}
		if _, err := rs.PutDelivery(ctx, archived, 1); err != nil {
			t.Fatal(err)
		}
		out := a.mustRun(t, "--results-dsn", dsn, "webhook", "deliveries", id)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[3], evt) || !strings.Contains(lines[3], " failed ") {
			t.Fatalf("deliveries with the archived one:\n%s", out)
		}
		if out := a.mustRun(t, "--results-dsn", dsn, "webhook", "replay", evt); out != "replaying "+evt+"\n" {
			t.Fatalf("replay of the archived delivery printed %q", out)
		}
		d := &tcsv1.WebhookDelivery{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: a.namespace, Name: orgs.ObjectName(evt)}, d); err != nil {
			t.Fatalf("the replayed archived delivery is not back: %v", err)
		}
		if st := d.Status; st.State != tcsv1.DeliveryPending || st.Replays != 1 || len(st.Attempts) != 1 || st.Attempts[0].StatusCode != 410 || d.Spec != archived.Spec {
			t.Fatalf("the archived delivery after its replay: %+v %+v", d.Spec, st)
		}
	})

	t.Run("delete", func(t *testing.T) {
		a.mustFail(t, "belongs to organization", "webhook", "delete", id, "--org", other)
		if out := a.mustRun(t, "webhook", "delete", id); out != "deleted "+id+"\n" {
			t.Fatalf("delete printed %q", out)
		}
		if err := c.Get(ctx, types.NamespacedName{Namespace: a.namespace, Name: orgs.ObjectName(id)}, &tcsv1.WebhookEndpoint{}); !apierrors.IsNotFound(err) {
			t.Fatalf("endpoint after delete: %v", err)
		}
		if err := c.Get(ctx, types.NamespacedName{Namespace: a.namespace, Name: "whsec-" + orgs.ObjectName(id)}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
			t.Fatalf("secret after delete: %v", err)
		}
		a.mustFail(t, "does not exist", "webhook", "delete", id)
		a.mustFail(t, "does not exist", "webhook", "reveal", id)
		out := a.mustRun(t, "webhook", "list")
		if strings.Contains(out, id) || !strings.Contains(out, otherID) {
			t.Fatalf("list after delete:\n%s", out)
		}
	})
}

func TestAdminMember(t *testing.T) {
	a := newAdminCLI(t)
	org := strings.TrimSpace(a.mustRun(t, "org", "create", "Grace Chapel"))
	link := strings.TrimSpace(a.mustRun(t, "member", "add", "--org", org, "--email", "Pastor@Grace.example", "--role", "owner", "--public-url", "https://tcs.example.org/"))
	// The token rides in the fragment, which browsers send to no server.
	if !regexp.MustCompile(`^https://tcs\.example\.org/dashboard/invitation#[a-z0-9]{40}$`).MatchString(link) {
		t.Fatalf("member add printed %q", link)
	}
	a.mustFail(t, "role must be one of owner, admin, member", "member", "add", "--org", org, "--email", "x@grace.example", "--role", "root")
	a.mustFail(t, "email is not an email address", "member", "add", "--org", org, "--email", "nobody", "--role", "member")
	a.mustFail(t, "organization id", "member", "add", "--org", "grace", "--email", "x@grace.example")
	a.mustRun(t, "member", "add", "--org", org, "--email", "reader@grace.example")
	// Invited people are not members until they accept.
	if out := a.mustRun(t, "member", "list", "--org", org); !regexp.MustCompile(`pastor@grace.example\s+owner\s+invited until`).MatchString(out) ||
		!regexp.MustCompile(`reader@grace.example\s+member\s+invited until`).MatchString(out) {
		t.Fatalf("member list:\n%s", out)
	}
	a.mustFail(t, "not found", "member", "remove", "--org", org, "--email", "pastor@grace.example")
	a.mustRun(t, "member", "revoke", "--org", org, "--email", "reader@grace.example")
	if out := a.mustRun(t, "member", "list", "--org", org); strings.Contains(out, "reader@") {
		t.Fatalf("a revoked invitation is listed:\n%s", out)
	}
	a.mustFail(t, "not valid", "member", "revoke", "--org", org, "--email", "reader@grace.example")
	reset := strings.TrimSpace(a.mustRun(t, "member", "reset-password", "--email", "pastor@grace.example", "--public-url", "https://tcs.example.org"))
	if !regexp.MustCompile(`^https://tcs\.example\.org/dashboard/reset#[a-z0-9]{40}$`).MatchString(reset) {
		t.Fatalf("member reset-password printed %q", reset)
	}
	a.mustFail(t, "not found", "member", "reset-password", "--email", "nobody@grace.example")

	// API keys: a label is required; list shows the prefix; revoke removes the key.
	a.mustFail(t, "--label is required", "key", "create", org)
	fields := strings.Fields(a.mustRun(t, "key", "create", org, "--label", "sermon uploader"))
	if len(fields) != 2 || !strings.HasPrefix(fields[1], "sk_live_") {
		t.Fatalf("key create printed %q", fields)
	}
	if out := a.mustRun(t, "key", "list", org); !strings.Contains(out, fields[0]) || !strings.Contains(out, fields[1][:12]+"…") || !strings.Contains(out, "never") {
		t.Fatalf("key list:\n%s", out)
	}
	a.mustRun(t, "key", "revoke", org, fields[0])
	a.mustFail(t, "does not exist", "key", "revoke", org, fields[0])
}
