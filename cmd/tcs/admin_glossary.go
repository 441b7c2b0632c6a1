package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"tcs.dev/tcs/internal/domain/glossary"
	"tcs.dev/tcs/internal/domain/ids"
)

// glossaryActor is who `tcs admin glossary` records as having changed an entry.
const glossaryActor = "tcs admin"

// glossaryManager checks that org is an organization id and returns the glossary manager of
// the cluster o reaches.
func (o *adminOptions) glossaryManager(org string) (*glossary.Manager, error) {
	if !ids.Valid("org", org) {
		return nil, fmt.Errorf("--org %q is not an organization id (org_…)", org)
	}
	c, err := o.client()
	if err != nil {
		return nil, err
	}
	return &glossary.Manager{Client: c, Namespace: o.namespace, Clock: o.clock}, nil
}

// glossaryFlagError names the flag of a refused entry field.
func glossaryFlagError(err error) error {
	var fe *glossary.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	field, _, _ := strings.Cut(fe.Field, "[")
	flag, ok := map[string]string{"term": "term", "forms": "form", "sounds_like": "sounds-like", "auto": "auto", "category": "category"}[field]
	if !ok {
		return err
	}
	return fmt.Errorf("--%s: %s", flag, fe.Message)
}

func newAdminGlossaryCommand(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "glossary",
		Short: "Organization glossaries: list, add and remove entries, import and export CSV",
		Long: "An organization's glossary holds its own words (names of its people, church, ministries, places, " +
			"hymns) and the wrong forms speech recognizers make of them; the deterministic pass of its transcripts " +
			"writes them its way. Changes take effect for the next pass. See docs/glossary.md.",
	}
	cmd.AddCommand(
		newAdminGlossaryListCommand(o),
		newAdminGlossaryAddCommand(o),
		newAdminGlossaryRemoveCommand(o),
		newAdminGlossaryImportCommand(o),
		newAdminGlossaryExportCommand(o),
	)
	return cmd
}

func newAdminGlossaryListCommand(o *adminOptions) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "list --org ORG_ID",
		Short: "List the entries of an organization's glossary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := o.glossaryManager(org)
			if err != nil {
				return err
			}
			g, err := m.Get(cmd.Context(), org)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTERM\tFORMS\tSOUNDS LIKE\tAUTO\tCATEGORY\tUPDATED BY")
			for _, e := range g.Entries {
				cat := e.Category
				if cat == "" {
					cat = "glossary"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%t\t%s\t%s\n", e.ID, e.Term, strings.Join(e.Forms, "|"), e.SoundsLike, e.Auto, cat, e.UpdatedBy)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "id of the organization (org_…)")
	return cmd
}

func newAdminGlossaryAddCommand(o *adminOptions) *cobra.Command {
	var org string
	var in glossary.Input
	cmd := &cobra.Command{
		Use:   "add --org ORG_ID --term TERM [--form FORM]… [--sounds-like] [--auto] [--category CATEGORY]",
		Short: "Add an entry to an organization's glossary and print its id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := o.glossaryManager(org)
			if err != nil {
				return err
			}
			e, _, err := m.Add(cmd.Context(), org, glossaryActor, in, "")
			if err != nil {
				return glossaryFlagError(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), e.ID)
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "id of the organization (org_…)")
	cmd.Flags().StringVar(&in.Term, "term", "", "the right spelling, e.g. \"Pastor Okonkwo\"")
	cmd.Flags().StringArrayVar(&in.Forms, "form", nil, "a wrong form seen for the term, matched as whole words ignoring case (repeatable)")
	cmd.Flags().BoolVar(&in.SoundsLike, "sounds-like", false, "also suggest words that sound like the term's")
	cmd.Flags().BoolVar(&in.Auto, "auto", false, "apply the changes of the forms automatically instead of suggesting them")
	cmd.Flags().StringVar(&in.Category, "category", "", "category of the entry's changes, e.g. name (default glossary)")
	return cmd
}

func newAdminGlossaryRemoveCommand(o *adminOptions) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "remove --org ORG_ID ENTRY_ID",
		Short: "Remove an entry from an organization's glossary",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !ids.Valid(glossary.IDPrefix, args[0]) {
				return fmt.Errorf("%q is not a glossary entry id (%s_…)", args[0], glossary.IDPrefix)
			}
			m, err := o.glossaryManager(org)
			if err != nil {
				return err
			}
			if _, err := m.Delete(cmd.Context(), org, args[0], ""); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "id of the organization (org_…)")
	return cmd
}

func newAdminGlossaryImportCommand(o *adminOptions) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "import --org ORG_ID FILE.csv",
		Short: "Replace the entries of an organization's glossary by those of a CSV file (- for stdin)",
		Long: "Replace the entries of an organization's glossary by those of a CSV file, all or none.\n\n" +
			"The first line is the header " + glossary.CSVHeader + "; each further line is an entry: forms parted by |, " +
			"sounds_like and auto true or false (empty is false), category empty for glossary. Entries whose term " +
			"the glossary already has keep their id. A file refused names its line and column.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := o.glossaryManager(org)
			if err != nil {
				return err
			}
			var r io.Reader = cmd.InOrStdin()
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			g, err := m.Import(cmd.Context(), org, glossaryActor, r, "")
			if err != nil {
				var ce *glossary.CSVError
				if errors.As(err, &ce) {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d entries\n", len(g.Entries))
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "id of the organization (org_…)")
	return cmd
}

func newAdminGlossaryExportCommand(o *adminOptions) *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "export --org ORG_ID",
		Short: "Print an organization's glossary as CSV, as import reads it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := o.glossaryManager(org)
			if err != nil {
				return err
			}
			return m.Export(cmd.Context(), org, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "id of the organization (org_…)")
	return cmd
}
