package main

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestMetricsEndpointAnswersOnlyAuthorizedTokens runs `tcs manager` with its default
// --metrics-secure against the control plane and scrapes it as nobody, as a ServiceAccount
// without a role and as one bound to a metrics-reader ClusterRole.
func TestMetricsEndpointAnswersOnlyAuthorizedTokens(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "tcs-metrics")
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cmd := newServeCommand("manager", "controllers only", false, true)
	cmd.SetArgs([]string{"--kubeconfig", kubeconfig, "--namespace", ns, "--store", t.TempDir(),
		"--results-dsn", "sqlite://" + filepath.Join(t.TempDir(), "results.db"),
		"--metrics-bind-address", addr, "--health-probe-bind-address", "0", "--public-url", "http://127.0.0.1:9"})
	cmd.SilenceUsage = true
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(runCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("tcs manager: %v", err)
		}
	})

	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	reader := "tcs-metrics-reader-" + ns
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: reader},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), reader, metav1.DeleteOptions{}) })
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), reader, metav1.DeleteOptions{})
	})
	token := func(sa string) string {
		if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	allowed, other := token("prometheus"), token("someone-else")

	// The certificate is self-signed: no --metrics-cert-path.
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	scrape := func(bearer string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := hc.Do(req)
			if err == nil {
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				return res.StatusCode, string(body)
			}
			if time.Now().After(deadline) {
				t.Fatalf("scraping %s: %v", addr, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if code, body := scrape(""); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d %s, want 401", code, body)
	}
	if code, body := scrape(other); code != http.StatusForbidden {
		t.Errorf("a token without the role: %d %s, want 403", code, body)
	}
	code, body := scrape(allowed)
	if code != http.StatusOK {
		t.Fatalf("the metrics reader: %d %s", code, body)
	}
	for _, want := range []string{
		`tcs_transcripts_ended_total{outcome="failed",source="url"} 0`,
		`tcs_api_rate_limited_requests_total{class="sync"} 0`,
		"rest_client_requests_total",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the metrics lack %q", want)
		}
	}
	// Plain HTTP is not served.
	if res, err := http.Get("http://" + addr + "/metrics"); err == nil {
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			t.Error("plain HTTP answered 200")
		}
	}
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
