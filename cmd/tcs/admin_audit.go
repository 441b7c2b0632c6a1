package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"tcs.dev/tcs/internal/domain/ids"
	"tcs.dev/tcs/internal/platform/results"
)

// auditListMax bounds --limit of `tcs admin audit list`.
const auditListMax = 10000

func newAdminAuditCommand(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "The organizations' audit trail, kept in the results store"}
	var (
		org   string
		since string
		limit int
	)
	list := &cobra.Command{
		Use:   "list --org ORG_ID [--since 720h|2026-01-02T15:04:05Z] [--limit N]",
		Short: "List the audit trail of an organization, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			if limit <= 0 || limit > auditListMax {
				return fmt.Errorf("--limit %d is not between 1 and %d", limit, auditListMax)
			}
			opts := results.AuditListOptions{Organization: org}
			if since != "" {
				t, err := parseSince(since, o.clock.Now())
				if err != nil {
					return err
				}
				opts.Since = t
			}
			rs, err := o.results(cmd.Context())
			if err != nil {
				return err
			}
			defer rs.Close()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tACTOR\tACTION\tTARGET\tMESSAGE")
			for left := limit; left > 0; {
				opts.Limit = min(left, 500)
				page, err := rs.ListAudit(cmd.Context(), opts)
				if err != nil {
					return err
				}
				for _, e := range page.Entries {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Time.UTC().Format(time.RFC3339), e.Actor, e.Action, e.Target, e.Message)
				}
				left -= len(page.Entries)
				if !page.HasMore || len(page.Entries) == 0 {
					break
				}
				c := page.Entries[len(page.Entries)-1].Cursor()
				opts.After = &c
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&org, "org", "", "the organization (org_…)")
	list.Flags().StringVar(&since, "since", "", "only entries since this long ago (720h) or this time (RFC 3339)")
	list.Flags().IntVar(&limit, "limit", 100, "the most entries to print")
	cmd.AddCommand(list)
	return cmd
}

// parseSince reads --since: a duration before now, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("--since %q is negative", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--since %q is neither a duration (720h) nor an RFC 3339 time", s)
	}
	return t, nil
}
