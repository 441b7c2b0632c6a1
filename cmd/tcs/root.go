package main

import (
	"os"

	"github.com/spf13/cobra"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "tcs",
		Short:         "The Transcript Cleaning Service",
		Long:          "tcs corrects Bible book and place names in sermon transcripts, behind a REST API backed by Kubernetes resources.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newServeCommand("run", "Run the REST API and the controllers against a cluster", true, true),
		newServeCommand("manager", "Run only the controllers against a cluster", false, true),
		newServeCommand("apiserver", "Run only the REST API against a cluster", true, false),
		newDevCommand(),
		newCleanCommand(),
		newAdminCommand(),
	)
	return root
}

// envOr returns the environment variable name, or def when it is unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
