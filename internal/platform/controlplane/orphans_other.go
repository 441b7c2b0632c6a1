//go:build !linux

package controlplane

import (
	"errors"
	"time"
)

// ExecChild does nothing outside Linux.
func ExecChild() {}

func shim(dir, exe, assets string) (etcd, apiserver string, err error) {
	return "", "", errors.New("running etcd and kube-apiserver so that they die with their parent needs Linux")
}

// Leftover is a process of an earlier control plane on the same etcd data dir.
type Leftover struct {
	PID  int
	Name string
}

// FindLeftovers finds nothing outside Linux.
func FindLeftovers(dataDir string) ([]Leftover, error) { return nil, nil }

// StopLeftovers stops nothing outside Linux.
func StopLeftovers(dataDir string, grace time.Duration) ([]Leftover, error) { return nil, nil }
