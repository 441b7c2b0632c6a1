package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/endpoints"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/webhook"
	"tcs.dev/tcs/internal/platform/results"
)

// webhookManager returns the endpoint manager of the cluster o reaches.
func (o *adminOptions) webhookManager(allow []string) (*endpoints.Manager, error) {
	cidrs, err := parseCIDRs("outbound-allow-cidrs", allow)
	if err != nil {
		return nil, err
	}
	c, err := o.client()
	if err != nil {
		return nil, err
	}
	return &endpoints.Manager{Client: c, Namespace: o.namespace, AllowCIDRs: cidrs, Archive: &lazyArchive{o: o}}, nil
}

// lazyArchive is the results store of archived deliveries, opened on first use. An SQLite
// database file that does not exist holds nothing archived, and is not created.
type lazyArchive struct {
	o  *adminOptions
	rs *results.Store
}

func (a *lazyArchive) open(ctx context.Context) (*results.Store, error) {
	if a.rs != nil {
		return a.rs, nil
	}
	if path, ok := sqlitePath(a.o.resultsDSN); ok {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	rs, err := a.o.results(ctx)
	a.rs = rs
	return rs, err
}

// GetDelivery returns the archived delivery id.
func (a *lazyArchive) GetDelivery(ctx context.Context, id string) (*results.Delivery, error) {
	rs, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if rs == nil {
		return nil, fmt.Errorf("delivery record %s: %w", id, results.ErrNotFound)
	}
	return rs.GetDelivery(ctx, id)
}

// ListDeliveries returns a page of archived deliveries.
func (a *lazyArchive) ListDeliveries(ctx context.Context, opts results.DeliveryListOptions) (*results.DeliveryPage, error) {
	rs, err := a.open(ctx)
	if err != nil || rs == nil {
		return &results.DeliveryPage{}, err
	}
	return rs.ListDeliveries(ctx, opts)
}

// sqlitePath returns the database file of an SQLite results DSN, and false for PostgreSQL.
func sqlitePath(dsn string) (string, bool) {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return "", false
	case strings.HasPrefix(dsn, "sqlite://"):
		return strings.TrimPrefix(dsn, "sqlite://"), true
	case strings.HasPrefix(dsn, "sqlite:"):
		return strings.TrimPrefix(dsn, "sqlite:"), true
	}
	return dsn, true
}

// flagError names the flag of a refused input.
func flagError(err error) error {
	var fe *endpoints.FieldError
	if errors.As(err, &fe) && (fe.Field == "url" || fe.Field == "events") {
		return fmt.Errorf("--%s", fe.Message)
	}
	return err
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

// defaultWebhookAllow is the outbound allow-list of `tcs admin webhook create`: loopback, for
// the local receivers of a developer.
var defaultWebhookAllow = []string{"127.0.0.0/8", "::1/128"}

func newAdminWebhookCreateCommand(o *adminOptions) *cobra.Command {
	var org, rawURL, rawEvents string
	allow := defaultWebhookAllow
	cmd := &cobra.Command{
		Use:   "create --org ORG_ID --url URL --events EVENT[,EVENT…]",
		Short: "Create a webhook endpoint and print its id and signing secret, tab-separated",
		Long: "Create a webhook endpoint for an organization and print its id (we_…) and its signing secret (whsec_…).\n\n" +
			"The URL must be https and must not name a private or reserved address; plain http and private " +
			"addresses are accepted only within --outbound-allow-cidrs (loopback by default), for local testing.\n\n" +
			"Event types: " + strings.Join(webhook.Events(), ", ") + "; \"all\" subscribes to every one.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			m, err := o.webhookManager(allow)
			if err != nil {
				return err
			}
			ep, secret, err := m.Create(cmd.Context(), org, rawURL, strings.Split(rawEvents, ","))
			if err != nil {
				return flagError(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\n", ep.Spec.ID, secret)
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "id of the organization (org_…) that owns the endpoint")
	cmd.Flags().StringVar(&rawURL, "url", "", "URL receiving the deliveries: https, or http only for an address of --outbound-allow-cidrs")
	cmd.Flags().StringVar(&rawEvents, "events", "", "comma-separated event types ("+strings.Join(webhook.Events(), ", ")+"), or all")
	cmd.Flags().StringSliceVar(&allow, "outbound-allow-cidrs", allow, "CIDRs the URL may name although private")
	return cmd
}

func newAdminWebhookListCommand(o *adminOptions) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "list [--org ORG_ID]",
		Short: "List webhook endpoints",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if org != "" && !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			m, err := o.webhookManager(nil)
			if err != nil {
				return err
			}
			// Without --org the cluster admin lists every organization's.
			list := m.ListAll
			if org != "" {
				list = func(ctx context.Context) ([]tcsv1.WebhookEndpoint, error) { return m.List(ctx, org) }
			}
			items, err := list(cmd.Context())
			if err != nil {
				return err
			}
			now := o.clock.Now()
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

// endpointCommand returns the command `use` on the endpoint its one argument names (with an
// --org check); run gets the manager and the endpoint.
func endpointCommand(o *adminOptions, use, short string, run func(cmd *cobra.Command, m *endpoints.Manager, ep *tcsv1.WebhookEndpoint) error) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if org != "" && !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			m, err := o.webhookManager(nil)
			if err != nil {
				return err
			}
			// Without --org the cluster admin reaches every organization's.
			get := m.GetAny
			if org != "" {
				get = func(ctx context.Context, id string) (*tcsv1.WebhookEndpoint, error) { return m.Get(ctx, id, org) }
			}
			ep, err := get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return run(cmd, m, ep)
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "fail unless the endpoint belongs to this organization (org_…)")
	return cmd
}

func newAdminWebhookPauseCommand(o *adminOptions, verb string, paused bool) *cobra.Command {
	short := "Pause a webhook endpoint: its events are recorded as skipped, to be replayed later"
	if !paused {
		short = "Resume a paused webhook endpoint"
	}
	return endpointCommand(o, verb+" ENDPOINT_ID", short, func(cmd *cobra.Command, m *endpoints.Manager, ep *tcsv1.WebhookEndpoint) error {
		if err := m.SetPaused(cmd.Context(), ep, paused); err != nil {
			return err
		}
		state := "paused"
		if !paused {
			state = "resumed"
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", state, ep.Spec.ID)
		return nil
	})
}

func newAdminWebhookRotateCommand(o *adminOptions) *cobra.Command {
	cmd := endpointCommand(o, "rotate ENDPOINT_ID", "Rotate an endpoint's signing secret and print the new one", func(cmd *cobra.Command, m *endpoints.Manager, ep *tcsv1.WebhookEndpoint) error {
		secret, err := m.Rotate(cmd.Context(), ep, o.clock.Now())
		if err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), secret)
		return nil
	})
	cmd.Long = "Rotate an endpoint's signing secret and print the new one. The old secret becomes the previous one: " +
		"for 24 hours, deliveries carry a signature with it too, so receivers can switch without losing events."
	return cmd
}

func newAdminWebhookRevealCommand(o *adminOptions) *cobra.Command {
	return endpointCommand(o, "reveal ENDPOINT_ID", "Print an endpoint's current signing secret", func(cmd *cobra.Command, m *endpoints.Manager, ep *tcsv1.WebhookEndpoint) error {
		secret, err := m.Reveal(cmd.Context(), ep)
		if err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), secret)
		return nil
	})
}

func newAdminWebhookDeleteCommand(o *adminOptions) *cobra.Command {
	return endpointCommand(o, "delete ENDPOINT_ID", "Delete a webhook endpoint and its signing secret", func(cmd *cobra.Command, m *endpoints.Manager, ep *tcsv1.WebhookEndpoint) error {
		if err := m.Delete(cmd.Context(), ep); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", ep.Spec.ID)
		return nil
	})
}

func newAdminWebhookDeliveriesCommand(o *adminOptions) *cobra.Command {
	var limit int
	cmd := endpointCommand(o, "deliveries ENDPOINT_ID [--limit N]", "List an endpoint's deliveries, newest first", func(cmd *cobra.Command, m *endpoints.Manager, ep *tcsv1.WebhookEndpoint) error {
		items, err := m.Deliveries(cmd.Context(), endpoints.DeliveryFilter{Endpoint: ep.Name, Limit: limit})
		if err != nil {
			return err
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
	})
	prev := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if limit < 0 {
			return fmt.Errorf("--limit must not be negative, got %d", limit)
		}
		return prev(cmd, args)
	}
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
			if org != "" && !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			m, err := o.webhookManager(nil)
			if err != nil {
				return err
			}
			// Without --org the cluster admin reaches every organization's.
			get := m.DeliveryAny
			if org != "" {
				get = func(ctx context.Context, id string) (*tcsv1.WebhookDelivery, error) { return m.Delivery(ctx, id, org) }
			}
			d, err := get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := m.Replay(cmd.Context(), d, o.clock.Now()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "replaying %s\n", d.Spec.ID)
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "fail unless the delivery belongs to this organization (org_…)")
	return cmd
}
