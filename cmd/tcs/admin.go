package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/apiview"
	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/domain/orgs"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/platform/kube/statuspatch"
	"tcs.dev/tcs/internal/platform/results"
)

// adminOptions reach the cluster tcs runs in.
type adminOptions struct {
	kubeconfig string
	namespace  string
	// resultsDSN names the results store of archived transcripts.
	resultsDSN string
	// clock is what the admin tools read the time from.
	clock clock.PassiveClock
}

// results opens the results store of archived transcripts.
func (o *adminOptions) results(ctx context.Context) (*results.Store, error) {
	rs, err := results.Open(ctx, o.resultsDSN)
	if err != nil {
		return nil, fmt.Errorf("--results-dsn: %w", err)
	}
	return rs, nil
}

// transcriptClient checks that id is a transcript id and returns the cluster client the
// transcript commands read it with.
func (o *adminOptions) transcriptClient(id string) (client.Client, error) {
	if !ids.Valid("tr", id) {
		return nil, fmt.Errorf("%q is not a transcript id (tr_…)", id)
	}
	return o.client()
}

func (o *adminOptions) client() (client.Client, error) {
	cfg, err := loadConfig(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("creating a client: %w", err)
	}
	return c, nil
}

func newAdminCommand() *cobra.Command {
	o := &adminOptions{clock: clock.RealClock{}}
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Cluster-admin tools: organizations, API keys, transcripts",
	}
	cmd.PersistentFlags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file; empty means in-cluster or $KUBECONFIG")
	cmd.PersistentFlags().StringVar(&o.namespace, "namespace", envOr("TCS_NAMESPACE", "tcs-system"), "namespace of the service (env TCS_NAMESPACE)")
	cmd.PersistentFlags().StringVar(&o.resultsDSN, "results-dsn", envOr("TCS_RESULTS_DSN", "sqlite:///var/lib/tcs/results.db"), "results store of archived transcripts, the service's --results-dsn (env TCS_RESULTS_DSN)")

	org := &cobra.Command{Use: "org", Short: "Organizations"}
	org.AddCommand(&cobra.Command{
		Use:   "create NAME",
		Short: "Create an organization and print its id",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			created, err := orgs.Create(cmd.Context(), c, o.namespace, args[0], nil)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), created.Spec.ID)
			return nil
		},
	})

	var label string
	key := &cobra.Command{Use: "key", Short: "API keys"}
	createKey := &cobra.Command{
		Use:   "create ORG_ID",
		Short: "Create an API key for an organization and print it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !ids.Valid("org", args[0]) {
				return fmt.Errorf("%q is not an organization id (org_…)", args[0])
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			if err := orgs.ValidateLabel(label); err != nil {
				return fmt.Errorf("--%w", err)
			}
			k, err := orgs.CreateKey(cmd.Context(), c, o.namespace, args[0], label)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\n", k.ID, k.Value)
			return nil
		},
	}
	createKey.Flags().StringVar(&label, "label", "", "the key's label: what it is for (required)")
	key.AddCommand(createKey, &cobra.Command{
		Use:   "list ORG_ID",
		Short: "List the API keys of an organization: id, label, prefix, created, last used",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !ids.Valid("org", args[0]) {
				return fmt.Errorf("%q is not an organization id (org_…)", args[0])
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			keys, err := orgs.Keys(cmd.Context(), c, o.namespace, args[0])
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tLABEL\tPREFIX\tCREATED\tLAST USED")
			for _, k := range keys {
				used := "never"
				if !k.LastUsed.IsZero() {
					used = k.LastUsed.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID, oneLine(k.Label, 40), k.Prefix(), k.Created.UTC().Format(time.RFC3339), used)
			}
			return tw.Flush()
		},
	}, &cobra.Command{
		Use:   "revoke ORG_ID KEY_ID",
		Short: "Revoke an API key: the API refuses it from then on",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.client()
			if err != nil {
				return err
			}
			if err := orgs.RevokeKey(cmd.Context(), c, o.namespace, args[0], args[1]); err != nil {
				if errors.Is(err, orgs.ErrNotFound) {
					return fmt.Errorf("API key %s of organization %s does not exist", args[1], args[0])
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[1])
			return nil
		},
	})

	transcript := &cobra.Command{Use: "transcript", Short: "Transcripts"}
	transcript.AddCommand(&cobra.Command{
		Use:   "restore TRANSCRIPT_ID",
		Short: "Bring back a soft-deleted transcript within its retention window",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			c, err := o.transcriptClient(id)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			t := &tcsv1.Transcript{}
			notDeleted := false
			t.Namespace, t.Name = o.namespace, tcsv1.TranscriptName(id)
			// Locked: it decides on the deletedAt it read.
			_, err = statuspatch.Retry(ctx, c, c, retry.DefaultRetry, t, statuspatch.OwnerAdmin, func() bool {
				notDeleted = t.Status.DeletedAt == nil
				t.Status.DeletedAt = nil
				return !notDeleted
			}, statuspatch.Locked, statuspatch.ReadFirst)
			if apierrors.IsNotFound(err) {
				// Not in the cluster: archived, perhaps.
				rs, rerr := o.results(ctx)
				if rerr != nil {
					return rerr
				}
				defer rs.Close()
				restored, rerr := rs.Restore(ctx, id)
				notDeleted, err = !restored, rerr
				if errors.Is(err, results.ErrNotFound) {
					err = apierrors.NewNotFound(tcsv1.GroupVersion.WithResource("transcripts").GroupResource(), id)
				}
			}
			switch {
			case apierrors.IsNotFound(err):
				return fmt.Errorf("transcript %s does not exist (or was purged after its retention window)", id)
			case err != nil:
				return fmt.Errorf("restoring %s: %w", id, err)
			case notDeleted:
				return fmt.Errorf("transcript %s is not deleted", id)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restored %s\n", id)
			return nil
		},
	})
	transcript.AddCommand(&cobra.Command{
		Use:   "get TRANSCRIPT_ID",
		Short: "Print a transcript as the API shows it (without its content), from the cluster or the results store",
		Long: `get prints the transcript as JSON, as GET /api/v1/transcripts/{id} shows it but without its
content, with "location": "cluster" while it is a resource (kubectl get transcripts shows these)
or "results_store" once archived, and "deleted_at" when it is soft-deleted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			c, err := o.transcriptClient(id)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			t := &tcsv1.Transcript{}
			location := "cluster"
			err = c.Get(ctx, types.NamespacedName{Namespace: o.namespace, Name: tcsv1.TranscriptName(id)}, t)
			if apierrors.IsNotFound(err) {
				rs, rerr := o.results(ctx)
				if rerr != nil {
					return rerr
				}
				defer rs.Close()
				rec, rerr := rs.Get(ctx, id, results.GetOptions{IncludeDeleted: true})
				if errors.Is(rerr, results.ErrNotFound) {
					return fmt.Errorf("transcript %s does not exist (or was purged after its retention window)", id)
				}
				if rerr != nil {
					return rerr
				}
				t, location, err = rec.Transcript, "results_store", nil
			}
			if err != nil {
				return fmt.Errorf("reading %s: %w", id, err)
			}
			out := struct {
				Location  string `json:"location"`
				DeletedAt *int64 `json:"deleted_at"`
				apiview.Transcript
			}{Location: location, Transcript: apiview.NewTranscript(t, nil)}
			if t.Status.DeletedAt != nil {
				out.DeletedAt = ptr.To(t.Status.DeletedAt.Unix())
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	})
	transcript.AddCommand(newAdminDecideCommand(o))
	cmd.AddCommand(org, key, transcript, newAdminWebhookCommand(o), newAdminMemberCommand(o), newAdminAuditCommand(o), newAdminGlossaryCommand(o))
	return cmd
}
