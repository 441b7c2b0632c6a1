// Command tcs is the Transcript Cleaning Service: the REST API, the controllers, a local
// development environment and the admin tools, as subcommands of one binary.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"tcs.dev/tcs/internal/platform/controlplane"
)

func main() {
	// Started as etcd or kube-apiserver by tcs dev: become it, dying with tcs dev.
	controlplane.ExecChild()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCommand().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "tcs:", err)
		os.Exit(1)
	}
}
