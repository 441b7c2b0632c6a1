package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"tcs.dev/tcs/apiserver/dashboard"
	"tcs.dev/tcs/internal/accounts"
	"tcs.dev/tcs/internal/ids"
)

func (o *adminOptions) accounts() (*accounts.Accounts, error) {
	c, err := o.client()
	if err != nil {
		return nil, err
	}
	return accounts.New(accounts.Options{Client: c, Namespace: o.namespace, Clock: o.clock})
}

func newAdminMemberCommand(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "member", Short: "Dashboard members: invite (or reset a password), list, remove"}
	var org, email, role, publicURL string
	add := &cobra.Command{
		Use:   "add --org ORG_ID --email EMAIL --role owner|admin|member",
		Short: "Make someone a member and print a one-time invitation link where they set a password",
		Long: "Make EMAIL a member of the organization with ROLE (or change its role) and print a one-time " +
			"invitation link, valid for 7 days, at which the member sets a password. A new invitation " +
			"replaces the earlier ones: it is also how a forgotten password is reset.",
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
			token, err := a.Invite(cmd.Context(), org, email, role)
			if err != nil {
				return err
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
		Short: "List the members of an organization",
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
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "EMAIL\tROLE")
			for _, m := range org.Spec.Members {
				fmt.Fprintf(tw, "%s\t%s\n", m.Email, m.Role)
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
	cmd.AddCommand(add, list, remove)
	return cmd
}
