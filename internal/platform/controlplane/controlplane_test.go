package controlplane

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func writeBinaries(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindAssets(t *testing.T) {
	platform := KubernetesVersion + "-" + runtime.GOOS + "-" + runtime.GOARCH
	t.Run("KUBEBUILDER_ASSETS wins", func(t *testing.T) {
		dir := t.TempDir()
		writeBinaries(t, dir, "etcd", "kube-apiserver", "kubectl")
		root := t.TempDir()
		writeBinaries(t, filepath.Join(root, "bin", "k8s", platform), "etcd", "kube-apiserver", "kubectl")
		t.Setenv("KUBEBUILDER_ASSETS", dir)
		if got, err := FindAssets(root); err != nil || got != dir {
			t.Fatalf("FindAssets = %q, %v; want %q", got, err, dir)
		}
	})
	t.Run("incomplete KUBEBUILDER_ASSETS is an error", func(t *testing.T) {
		dir := t.TempDir()
		writeBinaries(t, dir, "etcd", "kube-apiserver")
		t.Setenv("KUBEBUILDER_ASSETS", dir)
		if _, err := FindAssets(t.TempDir()); !errors.Is(err, ErrNoAssets) {
			t.Fatalf("err = %v, want ErrNoAssets", err)
		}
	})
	t.Run("bin/k8s of the project", func(t *testing.T) {
		t.Setenv("KUBEBUILDER_ASSETS", "")
		t.Setenv("XDG_DATA_HOME", t.TempDir())
		root := t.TempDir()
		dir := filepath.Join(root, "bin", "k8s", platform)
		writeBinaries(t, dir, "etcd", "kube-apiserver", "kubectl")
		if got, err := FindAssets(root); err != nil || got != dir {
			t.Fatalf("FindAssets = %q, %v; want %q", got, err, dir)
		}
	})
	t.Run("the setup-envtest directory", func(t *testing.T) {
		t.Setenv("KUBEBUILDER_ASSETS", "")
		data := t.TempDir()
		t.Setenv("XDG_DATA_HOME", data)
		dir := filepath.Join(data, "kubebuilder-envtest", "k8s", platform)
		writeBinaries(t, dir, "etcd", "kube-apiserver", "kubectl")
		if got, err := FindAssets(t.TempDir()); err != nil || got != dir {
			t.Fatalf("FindAssets = %q, %v; want %q", got, err, dir)
		}
	})
	t.Run("nothing built", func(t *testing.T) {
		t.Setenv("KUBEBUILDER_ASSETS", "")
		t.Setenv("XDG_DATA_HOME", t.TempDir())
		if _, err := FindAssets(t.TempDir()); !errors.Is(err, ErrNoAssets) {
			t.Fatalf("err = %v, want ErrNoAssets", err)
		}
	})
}
