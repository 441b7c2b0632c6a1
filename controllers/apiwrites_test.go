package controllers

import (
	"context"
	"testing"

	"tcs.dev/tcs/internal/tooling/apicount"
)

// apiWrites returns the writes (create, update, patch, delete) the control plane's
// kube-apiserver has served so far, by resource (its status included), as its
// apiserver_request_total metric counts them: the cost of a change where it is paid.
func apiWrites(t testing.TB) map[string]int {
	t.Helper()
	return apiRequests(t, apicount.Writes...)
}

// apiGets returns the GETs of one object the control plane's kube-apiserver has served so
// far, by resource.
func apiGets(t testing.TB) map[string]int {
	t.Helper()
	return apiRequests(t, "GET")
}

// apiRequests returns the requests with one of verbs the control plane's kube-apiserver has
// served so far, by resource.
func apiRequests(t testing.TB, verbs ...string) map[string]int {
	t.Helper()
	c, err := apicount.Read(context.Background(), env.Config)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for r, n := range c.ByResource(verbs...) {
		out[r] = int(n)
	}
	return out
}

// writesSince returns the writes by resource since before (an apiWrites).
func writesSince(t testing.TB, before map[string]int) map[string]int {
	t.Helper()
	return since(before, apiWrites(t))
}

// since returns the requests by resource of now that came after before.
func since(before, now map[string]int) map[string]int {
	diff := map[string]int{}
	for r, n := range now {
		if d := n - before[r]; d != 0 {
			diff[r] = d
		}
	}
	return diff
}
