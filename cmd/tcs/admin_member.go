package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"tcs.dev/tcs/apiserver/dashboard"
	"tcs.dev/tcs/internal/domain/accounts"
	"tcs.dev/tcs/internal/domain/ids"
)

func (o *adminOptions) accounts() (*accounts.Accounts, error) {
	c, err := o.client()
	if err != nil {
		return nil, err
	}
	return accounts.New(accounts.Options{Client: c, Namespace: o.namespace, Clock: o.clock})
}

// adminActor is who the invitations of `tcs admin` are from.
const adminActor = "a cluster admin"

func newAdminMemberCommand(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "member", Short: "Dashboard members: invite, list, remove, revoke invitations, reset passwords"}
	var org, email, role, publicURL string
	add := &cobra.Command{
		Use:   "add --org ORG_ID --email EMAIL --role owner|admin|member",
		Short: "Invite someone to an organization; for a new account, print the link where they set a password",
		Long: "Invite EMAIL to the organization with ROLE. The invitation grants nothing until accepted, and " +
			"expires after 7 days. When EMAIL has no password yet, this prints a one-time link at which " +
			"its owner sets one and joins: pass it to that person only. When EMAIL has a password, it " +
			"prints no link: the person signs in and accepts under Invitations. Nothing here sets or " +
			"resets a password; `tcs admin member reset-password` prints a reset link.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !ids.Valid("org", org) {
				return fmt.Errorf("--org %q is not an organization id (org_…)", org)
			}
			if _, err := accounts.NormalizeEmail(email); err != nil {
				return fmt.Errorf("--%w", err)
			}
			if err := accounts.ValidateRole(role); err != nil {
				return fmt.Errorf("--%w", err)
			}
			a, err := o.accounts()
			if err != nil {
				return err
			}
			inv, token, err := a.Invite(cmd.Context(), org, email, role, adminActor)
			if err != nil {
				return err
			}
			if token == "" {
				fmt.Fprintf(cmd.OutOrStdout(), "invited %s, who has an account: they sign in to accept (until %s)\n", inv.Email, inv.ExpiresAt.UTC().Format(time.RFC3339))
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), dashboard.InvitationURL(publicURL, token))
			return nil
		},
	}
	add.Flags().StringVar(&org, "org", "", "id of the organization (org_…)")
	add.Flags().StringVar(&email, "email", "", "the member's email address")
	add.Flags().StringVar(&role, "role", accounts.RoleMember, "owner (everything), admin (keys and endpoints) or member (reads)")
	add.Flags().StringVar(&publicURL, "public-url", envOr("TCS_PUBLIC_URL", "http://127.0.0.1:8080"), "base URL people reach the service at (env TCS_PUBLIC_URL)")

	var listOrg string
	list := &cobra.Command{
		Use:   "list --org ORG_ID",
		Short: "List the members of an organization and its pending invitations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := o.accounts()
			if err != nil {
				return err
			}
			org, err := a.Organization(cmd.Context(), listOrg)
			if err != nil {
				return err
			}
			invs, err := a.Invitations(cmd.Context(), listOrg)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "EMAIL\tROLE\tSTATUS")
			for _, m := range org.Spec.Members {
				fmt.Fprintf(tw, "%s\t%s\tmember\n", m.Email, m.Role)
			}
			for _, inv := range invs {
				fmt.Fprintf(tw, "%s\t%s\tinvited until %s\n", inv.Email, inv.Role, inv.ExpiresAt.UTC().Format(time.RFC3339))
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&listOrg, "org", "", "id of the organization (org_…)")

	var rmOrg, rmEmail string
	remove := &cobra.Command{
		Use:   "remove --org ORG_ID --email EMAIL",
		Short: "Remove a member: their sessions reach nothing of the organization from then on",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := o.accounts()
			if err != nil {
				return err
			}
			if err := a.RemoveMember(cmd.Context(), rmOrg, rmEmail); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %s from %s\n", rmEmail, rmOrg)
			return nil
		},
	}
	remove.Flags().StringVar(&rmOrg, "org", "", "id of the organization (org_…)")
	remove.Flags().StringVar(&rmEmail, "email", "", "the member's email address")

	var rvOrg, rvEmail string
	revoke := &cobra.Command{
		Use:   "revoke --org ORG_ID --email EMAIL",
		Short: "Revoke a pending invitation: its link, if any, stops working",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := o.accounts()
			if err != nil {
				return err
			}
			if _, err := a.RevokeInvitation(cmd.Context(), rvOrg, rvEmail); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked the invitation of %s to %s\n", rvEmail, rvOrg)
			return nil
		},
	}
	revoke.Flags().StringVar(&rvOrg, "org", "", "id of the organization (org_…)")
	revoke.Flags().StringVar(&rvEmail, "email", "", "the invited email address")

	var resetEmail, resetURL string
	reset := &cobra.Command{
		Use:   "reset-password --email EMAIL",
		Short: "Print a one-time link, valid 1 hour, at which the owner of EMAIL sets a new password",
		Long: "Print a one-time link, valid 1 hour, at which the owner of EMAIL (a member, or someone " +
			"invited) sets a new password, which ends all their sessions. Pass it to that person only; " +
			"people with an email can also ask for one themselves under \"Forgot your password?\".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := o.accounts()
			if err != nil {
				return err
			}
			token, err := a.IssueReset(cmd.Context(), resetEmail)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), dashboard.ResetURL(resetURL, token))
			return nil
		},
	}
	reset.Flags().StringVar(&resetEmail, "email", "", "the member's email address")
	reset.Flags().StringVar(&resetURL, "public-url", envOr("TCS_PUBLIC_URL", "http://127.0.0.1:8080"), "base URL people reach the service at (env TCS_PUBLIC_URL)")
	cmd.AddCommand(add, list, remove, revoke, reset)
	return cmd
}
