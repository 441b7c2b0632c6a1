package helm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/controlplane"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// listenerFlags are the flags of `tcs run` that open a listener, each of which a pod reaches
// through a declared container port.
var listenerFlags = []string{"--listen", "--metrics-bind-address", "--health-probe-bind-address"}

// httpClient talks to the service under test, on loopback only.
var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}

// tcsBinary returns $TCS_BIN, or a tcs binary built for this test.
func tcsBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("TCS_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "tcs")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tcs")
	build.Dir = testenv.Root()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tcs: %v\n%s", err, out)
	}
	return bin
}

// cleanEnv is the environment of the processes the tests start: nothing of this process's
// (no TCS_*, no KUBECONFIG), a home of their own, and extra.
func cleanEnv(home string, extra ...string) []string {
	return append([]string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin"}, extra...)
}

// flagValue returns the value args give flag (the last one wins) and whether they give one.
func flagValue(args []string, flag string) (string, bool) {
	value, found := "", false
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			value, found = v, true
		} else if a == flag && i+1 < len(args) {
			value, found = args[i+1], true
		}
	}
	return value, found
}

// flagDefault returns the default of flag that `--help` output help states.
func flagDefault(help, flag string) (string, error) {
	m := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(flag) + ` \S+\s.*\(default "([^"]*)"\)\s*$`).FindStringSubmatch(help)
	if m == nil {
		return "", fmt.Errorf("the help states no default of %s", flag)
	}
	return m[1], nil
}

// freePorts returns n distinct TCP ports on 127.0.0.1 that nothing listens on.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// get answers the status code and body of a GET of url.
func get(url string) (int, string, error) {
	res, err := httpClient.Get(url)
	if err != nil {
		return 0, "", fmt.Errorf("GET %s: %w", url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, "", fmt.Errorf("reading GET %s: %w", url, err)
	}
	return res.StatusCode, string(body), nil
}

// cluster is the control plane a test installs into.
type cluster struct {
	cp              *controlplane.ControlPlane
	admin           client.Client
	adminKubeconfig string
}

// startCluster starts etcd and kube-apiserver from KUBEBUILDER_ASSETS, without CRDs: the
// chart installs them.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is unset: the install test needs the local control plane; run `make test`, or set KUBEBUILDER_ASSETS=\"$(hack/envtest.sh)\"")
	}
	assets, err := controlplane.FindAssets(testenv.Root())
	if err != nil {
		t.Fatal(err)
	}
	cp, err := controlplane.Start(controlplane.Options{AssetsDir: assets, AttachOutput: os.Getenv("TCS_TEST_ATTACH") != ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	admin, err := client.New(cp.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "admin.kubeconfig")
	if err := os.WriteFile(path, cp.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return &cluster{cp: cp, admin: admin, adminKubeconfig: path}
}

// impersonatingKubeconfig writes a kubeconfig that acts as user through the cluster admin's
// credentials, and returns its path and contents.
func (c *cluster) impersonatingKubeconfig(t *testing.T, user string) (string, []byte) {
	t.Helper()
	cfg, err := clientcmd.Load(c.cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = user
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "serviceaccount.kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// TestInstall installs the chart into a real kube-apiserver with each installable value set
// and runs the real tcs as the installed Deployment's pod, checking that the service works.
func TestInstall(t *testing.T) {
	helmPath(t)
	c := startCluster(t)
	bin := tcsBinary(t)
	for _, vs := range valueSets {
		if !vs.install {
			t.Run(vs.name+"/flags-parse", func(t *testing.T) { checkFlagsParse(t, bin, vs) })
			continue
		}
		t.Run(vs.name, func(t *testing.T) { installAndRun(t, c, bin, vs) })
	}
	// After the installs, the CRDs are there: a replica whose ServiceAccount may not read
	// them lives, but is never ready.
	t.Run("not ready without access", func(t *testing.T) { notReadyWithoutAccess(t, c, bin) })
}

// notReadyWithoutAccess runs tcs as a ServiceAccount without any RBAC: its caches cannot
// sync, so its readiness probe must fail while its liveness probe passes.
func notReadyWithoutAccess(t *testing.T, c *cluster, bin string) {
	const ns, sa = "no-access", "tcs"
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}},
	} {
		if err := c.admin.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	user := "system:serviceaccount:" + ns + ":" + sa
	kubeconfig, _ := c.impersonatingKubeconfig(t, user)
	ports := freePorts(t, 3)
	args := []string{"run", "--namespace=" + ns, "--store=" + t.TempDir(),
		"--results-dsn=sqlite://" + filepath.Join(t.TempDir(), "results.db"),
		fmt.Sprintf("--listen=127.0.0.1:%d", ports[0]),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports[1]),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", ports[2])}
	proc := startProcess(t, bin, args, cleanEnv(t.TempDir(), "KUBECONFIG="+kubeconfig))
	probe := func(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", ports[2], path) }
	proc.waitFor(t, probe("/healthz"), 30*time.Second)
	// Three seconds are many times what a cache with access needs to sync here.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if code, body, err := get(probe("/readyz")); err != nil || code == http.StatusOK {
			t.Fatalf("readiness of a replica that cannot read its resources: %d %s %v, want a failure", code, body, err)
		}
		if code, body, err := get(probe("/healthz")); err != nil || code != http.StatusOK {
			t.Fatalf("liveness: %d %s %v, want 200", code, body, err)
		}
	}
}

// checkFlagsParse checks that tcs accepts the args the chart renders for vs: cobra parses
// every flag before it looks at --help.
func checkFlagsParse(t *testing.T, bin string, vs valueSet) {
	args := container(t, render(t, vs).deployments[0]).Args
	cmd := exec.Command(bin, append(args, "--help")...)
	cmd.Env = cleanEnv(t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tcs does not accept the rendered args %q: %v\n%s", args, err, out)
	}
}

// installAndRun installs the chart with vs and runs tcs as its Deployment's pod would run.
func installAndRun(t *testing.T, c *cluster, bin string, vs valueSet) {
	if vs.sharedStores {
		vs = withSharedStores(t, vs)
	}
	d := install(t, c, vs)
	// The NetworkPolicy the API server admitted, with the kube-apiserver's addresses that
	// helm looked up at install.
	var policies networkingv1.NetworkPolicyList
	if err := c.admin.List(t.Context(), &policies, client.InNamespace(vs.namespace)); err != nil {
		t.Fatal(err)
	}
	installed := &rendered{deployments: []*appsv1.Deployment{d}}
	for i := range policies.Items {
		installed.networkPolicies = append(installed.networkPolicies, &policies.Items[i])
	}
	checkNetworkPolicy(t, vs, installed, true)
	// The replicas, PodDisruptionBudget and anti-affinity the API server admitted.
	var budgets policyv1.PodDisruptionBudgetList
	if err := c.admin.List(t.Context(), &budgets, client.InNamespace(vs.namespace)); err != nil {
		t.Fatal(err)
	}
	for i := range budgets.Items {
		installed.disruptionBudgets = append(installed.disruptionBudgets, &budgets.Items[i])
	}
	checkHA(t, vs, installed)
	p := emulatePod(t, c, bin, d)
	proc := startProcess(t, bin, p.args, p.env)
	// The Deployment's further replicas, started once the first serves.
	var standbys []*process
	// The ServiceAccount's RBAC must suffice for everything, including what is only logged;
	// the log is read once tcs stopped, on success and on failure.
	defer func() {
		for _, s := range standbys {
			s.stop(t)
		}
		proc.stop(t)
		leaseReleased(t, c, vs.serviceNamespace)
		var refused []string
		for _, pr := range append(standbys, proc) {
			for line := range strings.SplitSeq(pr.log.String(), "\n") {
				if strings.Contains(strings.ToLower(line), "forbidden") {
					refused = append(refused, line)
				}
			}
		}
		if len(refused) > 0 {
			t.Errorf("tcs was refused %d times as %s, first:\n%s", len(refused), p.user, strings.Join(refused[:min(3, len(refused))], "\n"))
		}
	}()

	proc.waitFor(t, p.probes["readiness"], 30*time.Second)
	if code, body, err := get(p.probes["liveness"]); err != nil || code != http.StatusOK {
		t.Errorf("liveness probe %s: %d %s %v", p.probes["liveness"], code, body, err)
	}
	apiKey, id := useService(t, c, bin, vs, d, p, proc)
	standbys = runStandbys(t, c, bin, d, proc, apiKey, id)
	scrapeMetrics(t, c, vs, p)
	confined(t, c, vs, p.user)
}

// confined checks that user, the ServiceAccount the service ran as, may read and write its
// own namespace but nothing in another one, nor in all namespaces at once.
func confined(t *testing.T, c *cluster, vs valueSet, user string) {
	t.Helper()
	ctx := t.Context()
	const elsewhere = "tcs-elsewhere"
	if err := c.admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: elsewhere}}); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: elsewhere, Name: "not-yours"}, StringData: map[string]string{"key": "sk_live_of_someone_else"}}
	if err := c.admin.Create(ctx, secret); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	_, kubeconfig := c.impersonatingKubeconfig(t, user)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	as, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	for _, check := range []struct {
		what    string
		call    func() error
		allowed bool
	}{
		{"list Secrets in " + vs.serviceNamespace, func() error {
			return as.List(ctx, &corev1.SecretList{}, client.InNamespace(vs.serviceNamespace))
		}, true},
		{"list Transcripts in " + vs.serviceNamespace, func() error {
			return as.List(ctx, &tcsv1.TranscriptList{}, client.InNamespace(vs.serviceNamespace))
		}, true},
		{"read a Secret in " + elsewhere, func() error {
			return as.Get(ctx, client.ObjectKeyFromObject(secret), &corev1.Secret{})
		}, false},
		{"list Secrets in all namespaces", func() error { return as.List(ctx, &corev1.SecretList{}) }, false},
		{"create a Secret in " + elsewhere, func() error {
			return as.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: elsewhere, Name: "planted"}})
		}, false},
		{"list Transcripts in " + elsewhere, func() error {
			return as.List(ctx, &tcsv1.TranscriptList{}, client.InNamespace(elsewhere))
		}, false},
		{"list Transcripts in all namespaces", func() error { return as.List(ctx, &tcsv1.TranscriptList{}) }, false},
	} {
		err := check.call()
		switch {
		case check.allowed && err != nil:
			t.Errorf("%s may not %s: %v", user, check.what, err)
		case !check.allowed && !apierrors.IsForbidden(err):
			t.Errorf("%s may %s (error %v), want forbidden", user, check.what, err)
		}
	}
}

// install creates the namespaces and Secrets an operator would, installs the chart with vs,
// checks that the API server admits the Deployment's pod, and returns the Deployment.
func install(t *testing.T, c *cluster, vs valueSet) *appsv1.Deployment {
	ctx := t.Context()
	// The namespaces enforce the restricted Pod Security Standard.
	for _, ns := range []string{vs.namespace, vs.serviceNamespace} {
		obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": "restricted",
		}}}
		if err := c.admin.Create(ctx, obj); client.IgnoreAlreadyExists(err) != nil {
			t.Fatal(err)
		}
	}
	for _, s := range vs.secrets {
		obj := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: s.name}, StringData: s.data}
		if err := c.admin.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}

	// helm install creates the CRDs, then the release's objects.
	out, err := runHelm(t, append([]string{"install", vs.release, chartDir(), "--namespace", vs.namespace,
		"--kubeconfig", c.adminKubeconfig}, valuesArgs(t, vs)...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "STATUS: deployed") {
		t.Fatalf("helm install did not deploy the release:\n%s", out)
	}
	var deploys appsv1.DeploymentList
	if err := c.admin.List(ctx, &deploys, client.InNamespace(vs.namespace)); err != nil {
		t.Fatal(err)
	}
	if len(deploys.Items) != 1 {
		t.Fatalf("the release has %d Deployments, want 1", len(deploys.Items))
	}
	d := &deploys.Items[0]

	// No controller manager runs here to make the pod: create it as the ReplicaSet controller
	// would, so that the API server's validation and Pod Security admission judge it.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: d.Name + "-admission-check", Labels: d.Spec.Template.Labels},
		Spec:       *d.Spec.Template.Spec.DeepCopy(),
	}
	if err := c.admin.Create(ctx, pod); err != nil {
		t.Errorf("the API server refuses the Deployment's pod: %v", err)
	} else if err := c.admin.Delete(ctx, pod); err != nil {
		t.Error(err)
	}
	return d
}

// podRun is how the test runs a Deployment's container as a local process.
type podRun struct {
	// args are the container's args and the test's overrides; env is the process's environment.
	args, env []string
	// user is the ServiceAccount the process acts as.
	user string
	// listeners maps each of listenerFlags to the container port it serves.
	listeners map[string]int32
	// local maps container ports to the loopback ports the process listens on instead.
	local map[int32]int
	// probes maps "readiness" and "liveness" to the URLs of the container's probes.
	probes map[string]string
}

// url returns the URL of path on the loopback port that stands for the listener of flag.
func (p *podRun) url(flag, path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", p.local[p.listeners[flag]], path)
}

// emulatePod works out how to run d's container as a local process: its args with the
// listeners on free loopback ports and the store on a fresh directory standing for its
// volume, and the environment a kubelet would give it, acting as its ServiceAccount.
func emulatePod(t *testing.T, c *cluster, bin string, d *appsv1.Deployment) *podRun {
	ctr := container(t, d)
	if len(ctr.Command) != 0 {
		t.Fatalf("the container overrides the image's entrypoint with %q; the test runs the tcs binary", ctr.Command)
	}
	if len(ctr.Args) == 0 {
		t.Fatal("the container has no args")
	}
	helpCmd := exec.Command(bin, ctr.Args[0], "--help")
	helpCmd.Env = cleanEnv(t.TempDir())
	helpOut, err := helpCmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tcs %s --help: %v\n%s", ctr.Args[0], err, helpOut)
	}
	help := string(helpOut)
	p := &podRun{args: slices.Clone(ctr.Args), listeners: map[string]int32{}, local: map[int32]int{}, probes: map[string]string{}}

	// Each listener of tcs must be a declared container port; the test moves it to a free
	// loopback port.
	ports := freePorts(t, len(listenerFlags))
	for i, flag := range listenerFlags {
		port := listenerPort(t, ctr.Args, help, flag)
		if containerPort(ctr, intstr.FromInt32(port)) == 0 {
			t.Errorf("tcs listens on port %d (%s) but the container declares no such port", port, flag)
		}
		p.listeners[flag] = port
		p.local[port] = ports[i]
		p.args = append(p.args, fmt.Sprintf("%s=127.0.0.1:%d", flag, ports[i]))
	}
	for _, cp := range ctr.Ports {
		if _, ok := p.local[cp.ContainerPort]; !ok {
			t.Errorf("container port %s (%d) is served by none of %v", cp.Name, cp.ContainerPort, listenerFlags)
		}
	}
	p.args = append(p.args, "--store="+storeOnVolume(t, ctr, help))
	if !hasEnv(ctr, "TCS_RESULTS_DSN") {
		p.args = append(p.args, "--results-dsn="+resultsOnVolume(t, ctr, help))
	}

	// The probes ask the health probes' listener.
	for name, probe := range map[string]*corev1.Probe{"readiness": ctr.ReadinessProbe, "liveness": ctr.LivenessProbe} {
		if probe == nil || probe.HTTPGet == nil {
			t.Fatalf("the container has no HTTP %s probe", name)
		}
		port, want := containerPort(ctr, probe.HTTPGet.Port), p.listeners["--health-probe-bind-address"]
		if port != want {
			t.Fatalf("the %s probe targets container port %s (%d), not the health probes' port %d", name, probe.HTTPGet.Port.String(), port, want)
		}
		if probe.HTTPGet.Scheme != "" && probe.HTTPGet.Scheme != corev1.URISchemeHTTP {
			t.Fatalf("the %s probe uses %s; the health probes serve plain HTTP", name, probe.HTTPGet.Scheme)
		}
		p.probes[name] = p.url("--health-probe-bind-address", probe.HTTPGet.Path)
	}

	// The pod runs as its ServiceAccount, with the chart's RBAC and nothing more.
	sa := d.Spec.Template.Spec.ServiceAccountName
	if sa == "" {
		t.Fatal("the Deployment's pods run as the namespace's default ServiceAccount")
	}
	if err := c.admin.Get(t.Context(), client.ObjectKey{Namespace: d.Namespace, Name: sa}, &corev1.ServiceAccount{}); err != nil {
		t.Fatalf("the pods' ServiceAccount: %v", err)
	}
	p.user = "system:serviceaccount:" + d.Namespace + ":" + sa
	kubeconfig, kubeconfigData := c.impersonatingKubeconfig(t, p.user)
	checkNotAdmin(t, kubeconfigData, p.user)

	// The environment a kubelet would give: the container's env with its Secret references
	// resolved, and the cluster's address and credentials (here the ServiceAccount's
	// kubeconfig). The root filesystem is read-only, so there is no writable temp dir.
	home := t.TempDir()
	p.env = cleanEnv(home, "KUBECONFIG="+kubeconfig, "TMPDIR="+filepath.Join(home, "read-only-root", "tmp"))
	if len(ctr.EnvFrom) != 0 {
		t.Fatalf("the test does not resolve envFrom %v", ctr.EnvFrom)
	}
	for _, e := range ctr.Env {
		switch {
		case e.ValueFrom == nil:
			p.env = append(p.env, e.Name+"="+e.Value)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			var s corev1.Secret
			if err := c.admin.Get(t.Context(), client.ObjectKey{Namespace: d.Namespace, Name: ref.Name}, &s); err != nil {
				t.Fatalf("env %s: %v", e.Name, err)
			}
			v, ok := s.Data[ref.Key]
			if !ok {
				t.Fatalf("env %s: Secret %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			p.env = append(p.env, e.Name+"="+string(v))
		default:
			t.Fatalf("the test does not resolve env %s from %v", e.Name, e.ValueFrom)
		}
	}
	return p
}

// listenerPort returns the port tcs listens on for flag given args: theirs, else the default
// that help states.
func listenerPort(t *testing.T, args []string, help, flag string) int32 {
	t.Helper()
	addr, ok := flagValue(args, flag)
	if !ok {
		var err error
		if addr, err = flagDefault(help, flag); err != nil {
			t.Fatal(err)
		}
	}
	_, portText, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("%s=%s: %v", flag, addr, err)
	}
	port, err := strconv.ParseInt(portText, 10, 32)
	if err != nil {
		t.Fatalf("%s=%s: %v", flag, addr, err)
	}
	return int32(port)
}

// storeOnVolume returns a fresh local directory standing for the filesystem store of ctr: the
// store must live on a writable volume, as the root filesystem is read-only.
func storeOnVolume(t *testing.T, ctr *corev1.Container, help string) string {
	t.Helper()
	store, ok := flagValue(ctr.Args, "--store")
	if !ok {
		var err error
		if store, err = flagDefault(help, "--store"); err != nil {
			t.Fatal(err)
		}
	}
	if strings.HasPrefix(store, "s3://") {
		return store // a bucket every replica shares, on no volume
	}
	dir, isFile := strings.CutPrefix(store, "file://")
	if !isFile && strings.Contains(store, "://") {
		t.Fatalf("--store=%s: the install test runs the filesystem and S3 stores only", store)
	}
	return onVolume(t, ctr, "--store", dir)
}

// resultsOnVolume returns a fresh local path standing for the SQLite results store of ctr,
// which must live on a writable volume too.
func resultsOnVolume(t *testing.T, ctr *corev1.Container, help string) string {
	t.Helper()
	dsn, ok := flagValue(ctr.Args, "--results-dsn")
	if !ok {
		var err error
		if dsn, err = flagDefault(help, "--results-dsn"); err != nil {
			t.Fatal(err)
		}
	}
	path, isSQLite := strings.CutPrefix(dsn, "sqlite://")
	if !isSQLite && strings.Contains(dsn, "://") {
		t.Fatalf("--results-dsn=%s: the install test runs the SQLite results store only", dsn)
	}
	return onVolume(t, ctr, "--results-dsn", path)
}

// hasEnv reports whether ctr sets the environment variable name.
func hasEnv(ctr *corev1.Container, name string) bool {
	return slices.ContainsFunc(ctr.Env, func(e corev1.EnvVar) bool { return e.Name == name })
}

// onVolume returns the local stand-in of dir, the value of flag, on a fresh directory for the
// writable volume of ctr it is on.
func onVolume(t *testing.T, ctr *corev1.Container, flag, dir string) string {
	t.Helper()
	var mounts []string
	for _, m := range ctr.VolumeMounts {
		mounts = append(mounts, m.MountPath)
		rel, ok := strings.CutPrefix(dir, strings.TrimSuffix(m.MountPath, "/"))
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) || m.ReadOnly {
			continue
		}
		volume := filepath.Join(t.TempDir(), m.Name)
		if err := os.Mkdir(volume, 0o700); err != nil {
			t.Fatal(err)
		}
		return volume + rel
	}
	t.Fatalf("%s=%s is on no writable volume of the container (mounts %q): the root filesystem is read-only", flag, dir, mounts)
	return ""
}

// useService uses the running service as a cluster admin and a client would: an organization
// and an API key, a paste transcript through the Service's port, and the controllers'
// work on the organization. It returns the API key and the transcript's id.
func useService(t *testing.T, c *cluster, bin string, vs valueSet, d *appsv1.Deployment, p *podRun, proc *process) (apiKey, id string) {
	ctx := t.Context()
	admin := func(args ...string) string {
		cmd := exec.Command(bin, append(append([]string{"admin"}, args...), "--namespace", vs.serviceNamespace, "--kubeconfig", c.adminKubeconfig)...)
		cmd.Env = cleanEnv(t.TempDir())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tcs admin %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	orgID := admin("org", "create", "Chart Test Church")
	keyFields := strings.Fields(admin("key", "create", orgID, "--label", "chart test"))
	if !strings.HasPrefix(orgID, "org_") || len(keyFields) != 2 {
		t.Fatalf("tcs admin printed organization %q and key %q", orgID, keyFields)
	}
	apiKey = keyFields[1]

	// Clients reach the API through the Service's target port.
	svc := &corev1.Service{}
	if err := c.admin.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, svc); err != nil {
		t.Fatalf("the release's Service: %v", err)
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("the Service has %d ports, want 1", len(svc.Spec.Ports))
	}
	if port := containerPort(container(t, d), svc.Spec.Ports[0].TargetPort); port != p.listeners["--listen"] {
		t.Fatalf("the Service targets container port %d, the API listens on %d", port, p.listeners["--listen"])
	}
	api := p.url("--listen", "/api/v1/transcripts")
	created := postTranscript(t, api, apiKey, `{"source_type":"paste","content":"read revelations 21:4"}`)
	if created["status"] != "completed" || created["content"] != "read Revelation 21:4" {
		t.Fatalf("the paste came back %v", created)
	}
	id, _ = created["id"].(string)
	code, body, err := getWithKey(api+"/"+id, apiKey)
	if err != nil || code != http.StatusOK || !strings.Contains(body, `"content":"read Revelation 21:4"`) {
		t.Fatalf("GET of the transcript: %d %s %v", code, body, err)
	}

	// The transcript is a resource in the service's namespace.
	var transcripts tcsv1.TranscriptList
	if err := c.admin.List(ctx, &transcripts, client.InNamespace(vs.serviceNamespace)); err != nil {
		t.Fatal(err)
	}
	if len(transcripts.Items) != 1 || transcripts.Items[0].Spec.ID != id {
		t.Fatalf("namespace %s holds %d transcripts, want only %s", vs.serviceNamespace, len(transcripts.Items), id)
	}

	// The controllers run as the ServiceAccount too: the organization controller marks the
	// organization Ready once it has a key, and every controller's caches sync.
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		var list tcsv1.OrganizationList
		if err := c.admin.List(ctx, &list, client.InNamespace(vs.serviceNamespace)); err != nil {
			return false, err.Error()
		}
		for _, o := range list.Items {
			if o.Spec.ID == orgID {
				return meta.IsStatusConditionTrue(o.Status.Conditions, "Ready"), fmt.Sprintf("organization %s has conditions %v", orgID, o.Status.Conditions)
			}
		}
		return false, "organization " + orgID + " is missing"
	})
	testenv.Eventually(t, 20*time.Second, func() (bool, string) {
		pending := unsyncedControllers(proc.log.String())
		return len(pending) == 0, fmt.Sprintf("the caches of controllers %v have not synced", pending)
	})
	return apiKey, id
}

// leaseReleased checks that the leader-election lease in ns has no holder: a stopped replica
// hands it over, so that the next one need not wait for it to expire.
func leaseReleased(t *testing.T, c *cluster, ns string) {
	t.Helper()
	lease := &coordinationv1.Lease{}
	if err := c.admin.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "tcs-manager.tcs.dev"}, lease); err != nil {
		t.Errorf("the leader-election lease: %v", err)
		return
	}
	if h := lease.Spec.HolderIdentity; h != nil && *h != "" {
		t.Errorf("the stopped replica still holds the leader-election lease (holder %q)", *h)
	}
}

// unsyncedControllers returns the controllers that log, tcs's JSON log, shows starting but
// not yet running workers, which they do once their caches synced.
func unsyncedControllers(log string) []string {
	started, running := map[string]bool{}, map[string]bool{}
	for line := range strings.SplitSeq(log, "\n") {
		var entry struct {
			Msg        string `json:"msg"`
			Controller string `json:"controller"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Controller == "" {
			continue
		}
		switch entry.Msg {
		case "Starting EventSource":
			started[entry.Controller] = true
		case "Starting workers":
			running[entry.Controller] = true
		}
	}
	var pending []string
	for name := range started {
		if !running[name] {
			pending = append(pending, name)
		}
	}
	if len(started) == 0 {
		pending = append(pending, "(none started yet)")
	}
	slices.Sort(pending)
	return pending
}

// checkNotAdmin checks that kubeconfig acts as user, who may not list pods: the RBAC under
// test is then the chart's.
func checkNotAdmin(t *testing.T, kubeconfig []byte, user string) {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(), &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if review.Status.Allowed {
		t.Fatalf("%s may list pods: the impersonating kubeconfig does not restrict the test to the chart's RBAC", user)
	}
}

// postTranscript POSTs body to url with key and returns the created transcript; it retries
// while the service has not yet seen the new key.
func postTranscript(t *testing.T, url, key, body string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode == http.StatusUnauthorized && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", url, res.StatusCode, raw)
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("POST %s: %v: %s", url, err, raw)
		}
		return out
	}
}

// getWithKey answers the status code and body of a GET of url with API key key.
func getWithKey(url, key string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := httpClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("GET %s: %w", url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, string(body), err
}

// process is a running tcs.
type process struct {
	cmd  *exec.Cmd
	log  *testenv.SyncBuffer
	done chan error
}

// startProcess starts bin with args and env; the process is stopped when t ends, and its
// output logged when t failed or TCS_TEST_LOG is set.
func startProcess(t *testing.T, bin string, args, env []string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	p := &process{cmd: cmd, log: &testenv.SyncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() || os.Getenv("TCS_TEST_LOG") != "" {
			t.Logf("tcs %s:\n%s", strings.Join(args, " "), p.log)
		}
	})
	return p
}

// waitFor waits until url answers 200; it fails t when the process exits or time runs out.
func (p *process) waitFor(t *testing.T, url string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		code, _, err := get(url)
		if err == nil && code == http.StatusOK {
			return
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("tcs exited before %s answered 200: %v", url, err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 within %s (last: %d %v)", url, timeout, code, err)
		}
	}
}

// stop sends SIGTERM, as the kubelet does, and waits for a clean exit within the pod's
// default grace period.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("tcs exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Error("tcs did not stop within 30 s of SIGTERM")
	}
}
