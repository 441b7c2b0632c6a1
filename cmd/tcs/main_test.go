package main

import (
	"testing"

	"tcs.dev/tcs/internal/testenv"
)

// env is the local control plane the admin tests run against; the other tests need no cluster.
var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Main(m, &env)
}
