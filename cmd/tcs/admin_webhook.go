package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/ids"
	"tcs.dev/tcs/internal/orgs"
	"tcs.dev/tcs/internal/webhook"
)

// secretTypeWebhook is the type of the Secrets that hold webhook signing secrets.
const secretTypeWebhook corev1.SecretType = "tcs.dev/webhook-secret"

// webhookEvents are the event types an endpoint can subscribe to, in their canonical order.
var webhookEvents = []string{
	tcsv1.EventTranscriptCreated,
	tcsv1.EventTranscriptCompleted,
	tcsv1.EventTranscriptFailed,
	tcsv1.EventAIPassStarted,
	tcsv1.EventAIPassCompleted,
	tcsv1.EventAIPassFailed,
}

// webhookSecretName returns the name of the Secret of the endpoint object named endpointName.
func webhookSecretName(endpointName string) string {
	return "whsec-" + endpointName
}

// parseWebhookEvents turns a comma-separated list of event types (or "all") into a list
// without duplicates; it refuses unknown and empty lists.
func parseWebhookEvents(list string) ([]string, error) {
	var events []string
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case e == "all":
			for _, all := range webhookEvents {
				if !slices.Contains(events, all) {
					events = append(events, all)
				}
			}
		case slices.Contains(webhookEvents, e):
			if !slices.Contains(events, e) {
				events = append(events, e)
			}
		default:
			return nil, fmt.Errorf("unknown event type %q (known: %s, or all)", e, strings.Join(webhookEvents, ", "))
		}
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("--events is required: one or more of %s, or all", strings.Join(webhookEvents, ", "))
	}
	return events, nil
}

// validateWebhookURL accepts an absolute https URL, or http only when the host is a loopback IP.
func validateWebhookURL(raw string) error {
	if raw == "" {
		return errors.New("--url is required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--url %q is not a URL: %w", raw, err)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("--url %q has no host", raw)
	}
	if u.User != nil {
		return fmt.Errorf("--url %q must not carry credentials", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("--url %q: http is allowed only for a loopback IP (127.0.0.1, ::1); use https", raw)
	default:
		return fmt.Errorf("--url %q: the scheme must be https (or http for a loopback IP)", raw)
	}
}

func newAdminWebhookCommand(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Webhook endpoints: create, list, pause, rotate secrets, inspect and replay deliveries",
	}
	cmd.AddCommand(
		newAdminWebhookCreateCommand(o),
		newAdminWebhookListCommand(o),
		newAdminWebhookPauseCommand(o, "pause", true),
		newAdminWebhookPauseCommand(o, "resume", false),
		newAdminWebhookRotateCommand(o),
		newAdminWebhookRevealCommand(o),
		newAdminWebhookDeleteCommand(o),
		newAdminWebhookDeliveriesCommand(o),
		newAdminWebhookReplayCommand(o),
	)
	return cmd
}

func newAdminWebhookCreateCommand(o *adminOptions) *cobra.Command {
	var org, rawURL, rawEvents string
	cmd := &cobra.Command{
		Use:   "create --org ORG_ID --url URL --events EVENT[,EVENT…]",
		Short: "Create a webhook endpoint and print its id and signing secret, tab-separated",
		Long: "Create a webhook endpoint for an organization and print its id (we_…) and its signing secret (whsec_…).\n\n" +
			"The URL must be https; plain http is accepted only when the host is a loopback IP address " +
			"(127.0.0.1, ::1), for local testing.\n\n" +
			"Event types: " + strings.Join(webhookEvents, ", ") + "; \"all\" subscribes to every one.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			if err := validateWebhookURL(rawURL); err != nil {
				return err
			}
			events, err := parseWebhookEvents(rawEvents)
			if err != nil {
				return err
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if err := c.Get(ctx, types.NamespacedName{Namespace: o.namespace, Name: orgs.ObjectName(org)}, &tcsv1.Organization{}); err != nil {
				if apierrors.IsNotFound(err) {
					return fmt.Errorf("organization %s does not exist in namespace %s", org, o.namespace)
				}
				return fmt.Errorf("looking up organization %s: %w", org, err)
			}
			id := ids.New("we")
			name := orgs.ObjectName(id)
			secret := webhook.NewSecret()
			labels := map[string]string{tcsv1.LabelOrganization: org}
			sec := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: webhookSecretName(name), Namespace: o.namespace, Labels: labels},
				Type:       secretTypeWebhook,
				Data:       map[string][]byte{tcsv1.SecretKeyWebhookSecret: []byte(secret)},
			}
			if err := c.Create(ctx, sec); err != nil {
				return fmt.Errorf("creating the signing secret: %w", err)
			}
			ep := &tcsv1.WebhookEndpoint{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.namespace, Labels: map[string]string{tcsv1.LabelOrganization: org}},
				Spec: tcsv1.WebhookEndpointSpec{
					ID:           id,
					Organization: org,
					URL:          rawURL,
					Events:       events,
					SecretName:   sec.Name,
				},
			}
			if err := c.Create(ctx, ep); err != nil {
				// Do not leave an orphaned secret behind.
				_ = c.Delete(context.WithoutCancel(ctx), sec)
				return fmt.Errorf("creating the webhook endpoint: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\n", id, secret)
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "id of the organization (org_…) that owns the endpoint")
	cmd.Flags().StringVar(&rawURL, "url", "", "URL receiving the deliveries: https, or http only for a loopback IP (127.0.0.1, ::1)")
	cmd.Flags().StringVar(&rawEvents, "events", "", "comma-separated event types ("+strings.Join(webhookEvents, ", ")+"), or all")
	return cmd
}

func newAdminWebhookListCommand(o *adminOptions) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "list [--org ORG_ID]",
		Short: "List webhook endpoints",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := []client.ListOption{client.InNamespace(o.namespace)}
			if org != "" {
				if !ids.Valid("org", org) {
					return fmt.Errorf("--org %q is not an organization id (org_…)", org)
				}
				opts = append(opts, client.MatchingLabels{tcsv1.LabelOrganization: org})
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			var list tcsv1.WebhookEndpointList
			if err := c.List(cmd.Context(), &list, opts...); err != nil {
				return fmt.Errorf("listing webhook endpoints: %w", err)
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
			now := time.Now()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tORG\tURL\tEVENTS\tPAUSED\tAGE")
			for _, e := range items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%t\t%s\n", e.Spec.ID, e.Spec.Organization, e.Spec.URL,
					strings.Join(e.Spec.Events, ","), e.Spec.Paused, age(now, e.CreationTimestamp))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "list only the endpoints of this organization (org_…)")
	return cmd
}

// age is how long ago t was, like kubectl prints it.
func age(now time.Time, t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// endpointTarget is the endpoint an ID argument names, with an optional --org that it must
// belong to.
type endpointTarget struct {
	o   *adminOptions
	org string
}

func (t *endpointTarget) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.org, "org", "", "fail unless the endpoint belongs to this organization (org_…)")
}

// get validates id and returns a client and the endpoint it names.
func (t *endpointTarget) get(ctx context.Context, id string) (client.Client, *tcsv1.WebhookEndpoint, error) {
	if !ids.Valid("we", id) {
		return nil, nil, fmt.Errorf("%q is not a webhook endpoint id (we_…)", id)
	}
	if t.org != "" && !ids.Valid("org", t.org) {
		return nil, nil, fmt.Errorf("--org %q is not an organization id (org_…)", t.org)
	}
	c, err := t.o.client()
	if err != nil {
		return nil, nil, err
	}
	ep := &tcsv1.WebhookEndpoint{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: t.o.namespace, Name: orgs.ObjectName(id)}, ep); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, fmt.Errorf("webhook endpoint %s does not exist in namespace %s", id, t.o.namespace)
		}
		return nil, nil, fmt.Errorf("getting webhook endpoint %s: %w", id, err)
	}
	if ep.Spec.ID != id {
		return nil, nil, fmt.Errorf("webhook endpoint %s does not exist in namespace %s", id, t.o.namespace)
	}
	if t.org != "" && ep.Spec.Organization != t.org {
		return nil, nil, fmt.Errorf("webhook endpoint %s belongs to organization %s, not %s", id, ep.Spec.Organization, t.org)
	}
	return c, ep, nil
}

func secretRef(ep *tcsv1.WebhookEndpoint) types.NamespacedName {
	name := ep.Spec.SecretName
	if name == "" {
		name = webhookSecretName(ep.Name)
	}
	return types.NamespacedName{Namespace: ep.Namespace, Name: name}
}

// endpointCommand returns the command `use` on the endpoint its one argument names (with the
// --org check); run gets the client, the endpoint and its id.
func endpointCommand(o *adminOptions, use, short string, run func(cmd *cobra.Command, c client.Client, ep *tcsv1.WebhookEndpoint, id string) error) *cobra.Command {
	t := &endpointTarget{o: o}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ep, err := t.get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return run(cmd, c, ep, args[0])
		},
	}
	t.addFlags(cmd)
	return cmd
}

// secretMissing says that the signing secret of endpoint id is gone.
func secretMissing(ep *tcsv1.WebhookEndpoint, id string) error {
	return fmt.Errorf("the signing secret %s of webhook endpoint %s does not exist", secretRef(ep).Name, id)
}

func newAdminWebhookPauseCommand(o *adminOptions, verb string, paused bool) *cobra.Command {
	short := "Pause a webhook endpoint: its events are recorded as skipped, to be replayed later"
	if !paused {
		short = "Resume a paused webhook endpoint"
	}
	cmd := endpointCommand(o, verb+" ENDPOINT_ID", short, func(cmd *cobra.Command, c client.Client, ep *tcsv1.WebhookEndpoint, id string) error {
		ctx := cmd.Context()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(ep), ep); err != nil {
				return err
			}
			if ep.Spec.Paused == paused {
				return nil
			}
			ep.Spec.Paused = paused
			return c.Update(ctx, ep)
		})
		if err != nil {
			return fmt.Errorf("%s %s: %w", verb, id, err)
		}
		state := "paused"
		if !paused {
			state = "resumed"
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", state, id)
		return nil
	})
	return cmd
}

func newAdminWebhookRotateCommand(o *adminOptions) *cobra.Command {
	cmd := endpointCommand(o, "rotate ENDPOINT_ID", "Rotate an endpoint's signing secret and print the new one", func(cmd *cobra.Command, c client.Client, ep *tcsv1.WebhookEndpoint, id string) error {
		ctx := cmd.Context()
		secret := webhook.NewSecret()
		sec := &corev1.Secret{}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := c.Get(ctx, secretRef(ep), sec); err != nil {
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
			sec.Annotations[tcsv1.AnnotationRotatedAt] = time.Now().UTC().Format(time.RFC3339)
			return c.Update(ctx, sec)
		})
		if apierrors.IsNotFound(err) {
			return secretMissing(ep, id)
		}
		if err != nil {
			return fmt.Errorf("rotating the secret of %s: %w", id, err)
		}
		fmt.Fprintln(cmd.OutOrStdout(), secret)
		return nil
	})
	cmd.Long = "Rotate an endpoint's signing secret and print the new one. The old secret becomes the previous one: " +
		"for 24 hours, deliveries carry a signature with it too, so receivers can switch without losing events."
	return cmd
}

func newAdminWebhookRevealCommand(o *adminOptions) *cobra.Command {
	cmd := endpointCommand(o, "reveal ENDPOINT_ID", "Print an endpoint's current signing secret", func(cmd *cobra.Command, c client.Client, ep *tcsv1.WebhookEndpoint, id string) error {
		ctx := cmd.Context()
		sec := &corev1.Secret{}
		if err := c.Get(ctx, secretRef(ep), sec); err != nil {
			if apierrors.IsNotFound(err) {
				return secretMissing(ep, id)
			}
			return fmt.Errorf("getting the secret of %s: %w", id, err)
		}
		cur := sec.Data[tcsv1.SecretKeyWebhookSecret]
		if len(cur) == 0 {
			return fmt.Errorf("the signing secret %s of webhook endpoint %s holds no %q", sec.Name, id, tcsv1.SecretKeyWebhookSecret)
		}
		fmt.Fprintln(cmd.OutOrStdout(), string(cur))
		return nil
	})
	return cmd
}

func newAdminWebhookDeleteCommand(o *adminOptions) *cobra.Command {
	cmd := endpointCommand(o, "delete ENDPOINT_ID", "Delete a webhook endpoint and its signing secret", func(cmd *cobra.Command, c client.Client, ep *tcsv1.WebhookEndpoint, id string) error {
		ctx := cmd.Context()
		if err := c.Delete(ctx, ep); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting webhook endpoint %s: %w", id, err)
		}
		ref := secretRef(ep)
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
		if err := c.Delete(ctx, sec); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the signing secret %s of %s: %w", ref.Name, id, err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", id)
		return nil
	})
	return cmd
}

func newAdminWebhookDeliveriesCommand(o *adminOptions) *cobra.Command {
	t := &endpointTarget{o: o}
	var limit int
	cmd := &cobra.Command{
		Use:   "deliveries ENDPOINT_ID [--limit N]",
		Short: "List an endpoint's deliveries, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return fmt.Errorf("--limit must not be negative, got %d", limit)
			}
			ctx := cmd.Context()
			c, ep, err := t.get(ctx, args[0])
			if err != nil {
				return err
			}
			var list tcsv1.WebhookDeliveryList
			if err := c.List(ctx, &list, client.InNamespace(o.namespace)); err != nil {
				return fmt.Errorf("listing webhook deliveries: %w", err)
			}
			items := slices.DeleteFunc(list.Items, func(d tcsv1.WebhookDelivery) bool { return d.Spec.Endpoint != ep.Name })
			sort.SliceStable(items, func(i, j int) bool {
				a, b := items[i].CreationTimestamp, items[j].CreationTimestamp
				if !a.Equal(&b) {
					return b.Before(&a)
				}
				// Delivery ids sort by creation time; the newest has the greatest.
				return items[i].Spec.ID > items[j].Spec.ID
			})
			if limit > 0 && len(items) > limit {
				items = items[:limit]
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "DELIVERY\tEVENT\tTRANSCRIPT\tSTATE\tATTEMPTS\tLAST CODE\tLAST ERROR\tNEXT")
			for _, d := range items {
				code, lastErr := "-", "-"
				if n := len(d.Status.Attempts); n > 0 {
					last := d.Status.Attempts[n-1]
					if last.StatusCode != 0 {
						code = strconv.Itoa(last.StatusCode)
					}
					if last.Error != "" {
						lastErr = oneLine(last.Error, 60)
					}
				}
				next := "-"
				if d.Status.NextAttemptAt != nil {
					next = d.Status.NextAttemptAt.UTC().Format(time.RFC3339)
				}
				state := string(d.Status.State)
				if state == "" {
					state = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", d.Spec.ID, d.Spec.Event, d.Spec.TranscriptID,
					state, len(d.Status.Attempts), code, lastErr, next)
			}
			return tw.Flush()
		},
	}
	t.addFlags(cmd)
	cmd.Flags().IntVar(&limit, "limit", 20, "show at most this many deliveries; 0 shows all")
	return cmd
}

// oneLine makes s fit a table cell: no tabs or newlines, at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

func newAdminWebhookReplayCommand(o *adminOptions) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "replay DELIVERY_ID",
		Short: "Send a delivery (evt_…) again, whatever its state",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if !ids.Valid("evt", id) {
				return fmt.Errorf("%q is not a delivery id (evt_…)", id)
			}
			if org != "" && !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			var list tcsv1.WebhookDeliveryList
			if err := c.List(ctx, &list, client.InNamespace(o.namespace)); err != nil {
				return fmt.Errorf("listing webhook deliveries: %w", err)
			}
			i := slices.IndexFunc(list.Items, func(d tcsv1.WebhookDelivery) bool { return d.Spec.ID == id })
			if i < 0 {
				return fmt.Errorf("delivery %s does not exist in namespace %s", id, o.namespace)
			}
			d := &list.Items[i]
			if org != "" && d.Spec.Organization != org {
				return fmt.Errorf("delivery %s belongs to organization %s, not %s", id, d.Spec.Organization, org)
			}
			err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
				if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
					return err
				}
				now := metav1.Now()
				d.Status.State = tcsv1.DeliveryPending
				d.Status.NextAttemptAt = &now
				d.Status.Replays++
				d.Status.ReplayedAt = &now
				return c.Status().Update(ctx, d)
			})
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("delivery %s does not exist in namespace %s", id, o.namespace)
			}
			if err != nil {
				return fmt.Errorf("replaying %s: %w", id, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "replaying %s\n", id)
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "fail unless the delivery belongs to this organization (org_…)")
	return cmd
}
