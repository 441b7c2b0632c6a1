package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"tcs.dev/tcs/internal/tooling/testenv"
)

// env is the local control plane the admin tests run against; the other tests need no cluster.
var env *testenv.Env

// childArgsEnv names the environment variable that makes the test binary run tcs with the
// arguments it holds (a JSON array) instead of the tests: a test's child process.
const childArgsEnv = "TCS_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(childArgsEnv); ok {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		root := newRootCommand()
		var list []string
		err := json.Unmarshal([]byte(args), &list)
		if err == nil {
			root.SetArgs(list)
			err = root.ExecuteContext(ctx)
		}
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "tcs:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	testenv.Main(m, &env)
}
