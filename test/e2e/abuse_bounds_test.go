package e2e

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The abuse tests send the running service input whose cost has no natural bound, and
// measure what it costs the process: its peak memory, the objects it makes, the time it
// takes, the time series it keeps.

// peakRSS returns the peak resident memory of process pid (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}

// zipBombDOCX returns a DOCX whose word/document.xml, one paragraph of inflated bytes of
// text, deflates to a few hundred KB.
func zipBombDOCX(t *testing.T, inflated int) []byte {
	t.Helper()
	head := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`
	tail := `</w:t></w:r></w:p></w:body></w:document>`
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	crc := crc32.NewIEEE()
	w := io.MultiWriter(fw, crc)
	io.WriteString(w, head)
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	n := len(head) + len(tail)
	for n+len(chunk) <= inflated {
		w.Write(chunk)
		n += len(chunk)
	}
	io.WriteString(w, tail)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels"} {
		f, _ := zw.Create(name)
		io.WriteString(f, `<?xml version="1.0"?><x/>`)
	}
	f, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, CRC32: crc.Sum32(),
		CompressedSize64: uint64(deflated.Len()), UncompressedSize64: uint64(n)})
	if err != nil {
		t.Fatal(err)
	}
	f.Write(deflated.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// uploadAndConfirm uploads content through an upload grant and confirms it; it returns the
// transcript id.
func uploadAndConfirm(t *testing.T, url, key, filename, format string, content []byte) string {
	t.Helper()
	grant := call(t, http.MethodPost, url+"/api/v1/transcripts/uploads", key, fmt.Sprintf(`{"filename":%q,"source_format":%q}`, filename, format))
	if grant.status != http.StatusCreated {
		t.Fatalf("upload grant: %d %s", grant.status, grant.raw)
	}
	req, err := http.NewRequest(http.MethodPut, grant.body["upload_url"].(string), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range grant.body["upload_headers"].(map[string]any) {
		req.Header.Set(k, fmt.Sprint(v))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode >= 300 {
		t.Fatalf("PUT of %s: %d %s", filename, res.StatusCode, body)
	}
	id := grant.body["transcript_id"].(string)
	if a := call(t, http.MethodPost, url+"/api/v1/transcripts", key, fmt.Sprintf(`{"source_type":"upload","transcript_id":%q}`, id)); a.status >= 300 {
		t.Fatalf("confirming %s: %d %s", filename, a.status, a.raw)
	}
	return id
}

// TestAbuseCompressedUpload uploads a 300 KB DOCX that inflates to 250 MB, and documents whose
// text goes beyond the 5 MB of a remote file (HTML and VTT character references that decode
// longer than they are) or that split into too many pieces (SRT, JSON): each transcript fails
// unprocessable, for good, saying which limit it went beyond, and the process's peak memory
// stays far below what reading the bomb takes.
func TestAbuseCompressedUpload(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	url, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	pid := dev.cmd.Process.Pid
	before := peakRSS(t, pid)

	bomb := zipBombDOCX(t, 250<<20)
	if len(bomb) > 400<<10 {
		t.Fatalf("the bomb is %d KB", len(bomb)>>10)
	}
	// 2.45 MB of letters and 490,000 references of 5 bytes that decode to 6: a 4.9 MB file of
	// 5.4 MB of text, within the limit on references (500,000).
	refs := strings.Repeat("a", 2_450_000) + strings.Repeat("&nGt;", 490_000)
	vtt := "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n" + refs + "\n"
	srt := "1\n00:00:01,000 --> 00:00:02,000\n" + strings.Repeat("a\n", 2_000_000)
	for _, tc := range []struct {
		filename, format string
		content          []byte
		reason           string
	}{
		{"bomb.docx", "docx", bomb, "word/document.xml inflates to more than 5000000 bytes"},
		{"refs.html", "html", []byte(refs), "extracted text is longer than 5000000 bytes"},
		{"refs.vtt", "vtt", []byte(vtt), "extracted text is longer than 5000000 bytes"},
		{"lines.srt", "srt", []byte(srt), "more than 250000 text runs"},
		{"strings.json", "json", []byte("[" + strings.Repeat(`{"text":"a"},`, 300_000) + "1]"), "more than 250000 text runs"},
	} {
		start := time.Now()
		id := uploadAndConfirm(t, url, key, tc.filename, tc.format, tc.content)
		a := poll(t, url+"/api/v1/transcripts/"+id, key)
		e, _ := a.body["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if a.body["status"] != "failed" || e["type"] != "unprocessable" || !strings.Contains(msg, tc.reason) {
			t.Fatalf("%s (%d KB): %.500s; want failed, unprocessable, saying %q", tc.filename, len(tc.content)>>10, a.raw, tc.reason)
		}
		t.Logf("%s (%d KB): failed unprocessable in %v: %s", tc.filename, len(tc.content)>>10, time.Since(start).Round(time.Millisecond), msg)
		// The failure is final: the transcript stays failed, with one job that is not retried.
		time.Sleep(300 * time.Millisecond)
		again := call(t, http.MethodGet, url+"/api/v1/transcripts/"+id, key, "")
		if again.body["status"] != "failed" {
			t.Fatalf("%s: %.500s after failing", tc.filename, again.raw)
		}
	}
	peak := peakRSS(t, pid)
	t.Logf("peak RSS of tcs dev: %d MB before the uploads, %d MB after (a 250 MB document.xml alone is 250 MB)", before>>20, peak>>20)
	if limit := int64(400 << 20); peak > limit {
		t.Fatalf("peak RSS %d MB, want under %d MB", peak>>20, limit>>20)
	}
	if !alive(pid) {
		t.Fatal("tcs dev died")
	}
}

// TestAbuseRandomMethods sends requests with hundreds of random methods and one of 20 KB: the
// answers do not repeat the method, and the API metrics keep a bounded number of series.
func TestAbuseRandomMethods(t *testing.T) {
	metricsAddr := freeAddr(t)
	dev := startDev(t, filepath.Join(t.TempDir(), "state"), "--metrics-bind-address", metricsAddr, "--metrics-secure=false")
	url, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	series := func() int {
		t.Helper()
		var res *http.Response
		var err error
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if res, err = http.Get("http://" + metricsAddr + "/metrics"); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("metrics endpoint: %v", err)
			}
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return strings.Count(string(body), "\ntcs_api_requests_total{")
	}
	send := func(method string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url+"/api/v1/me", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	start := time.Now()
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i := range 300 {
		m := make([]byte, 8+i%8)
		for j := range m {
			m[j] = letters[rand.IntN(len(letters))]
		}
		if status, body := send(string(m)); status != http.StatusMethodNotAllowed || len(body) > 1024 {
			t.Fatalf("method %s: %d %s", m, status, body)
		}
	}
	huge := strings.Repeat("Z", 20<<10)
	status, body := send(huge)
	if status != http.StatusMethodNotAllowed || strings.Contains(body, strings.Repeat("Z", 100)) || len(body) > 1024 {
		t.Fatalf("a method of 20 KB: %d, %d bytes: %.300s", status, len(body), body)
	}
	n := series()
	t.Logf("301 random methods in %v: tcs_api_requests_total has %d series; the 405 for a 20 KB method is %d bytes: %s", time.Since(start).Round(time.Millisecond), n, len(body), strings.TrimSpace(body))
	if n > 10 {
		t.Fatalf("tcs_api_requests_total has %d series after 301 random methods", n)
	}
}

// TestAbuseOversizedTitlesAndURLs sends titles of 1.4 MB and URLs of 100 KB on every path by
// which they enter a transcript: each is refused with a 400 naming its param, and no
// transcript is made.
func TestAbuseOversizedTitlesAndURLs(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	url, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	title := strings.Repeat("t", 1400<<10)
	longURL := "https://example.com/" + strings.Repeat("u", 100<<10)
	body := func(v map[string]any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	start := time.Now()
	for _, tc := range []struct {
		name, path, body, param string
	}{
		{"paste title", "/api/v1/transcripts", body(map[string]any{"source_type": "paste", "content": "hello", "title": title}), "title"},
		{"youtube title", "/api/v1/transcripts", body(map[string]any{"source_type": "youtube", "url": "https://youtu.be/dQw4w9WgXcQ", "title": title}), "title"},
		{"youtube url", "/api/v1/transcripts", body(map[string]any{"source_type": "youtube", "url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ&x=" + strings.Repeat("u", 100<<10)}), "url"},
		{"url source url", "/api/v1/transcripts", body(map[string]any{"source_type": "url", "source_format": "txt", "url": longURL}), "url"},
		{"url source title", "/api/v1/transcripts", body(map[string]any{"source_type": "url", "source_format": "txt", "url": "https://example.com/a.txt", "title": title}), "title"},
		{"upload grant title", "/api/v1/transcripts/uploads", body(map[string]any{"filename": "a.txt", "title": title}), "title"},
		{"upload grant filename", "/api/v1/transcripts/uploads", body(map[string]any{"filename": strings.Repeat("f", 300) + ".txt"}), "filename"},
	} {
		a := call(t, http.MethodPost, url+tc.path, key, tc.body)
		e, _ := a.body["error"].(map[string]any)
		if a.status != http.StatusBadRequest || e["param"] != tc.param || len(a.raw) > 1024 {
			t.Fatalf("%s: %d %.300s; want 400 with param %s", tc.name, a.status, a.raw, tc.param)
		}
	}
	made := len(listTranscripts(t, dev.env["KUBECONFIG"], dev.env["TCS_ORG"]))
	t.Logf("7 oversized requests (%d MB) refused in %v; transcripts made: %d", 5*len(title)>>20, time.Since(start).Round(time.Millisecond), made)
	if made != 0 {
		t.Fatalf("%d transcripts made by refused requests", made)
	}
}

// TestAbuseLongJobID asks for jobs whose ids end in dozens of digits: each is a 404 at once.
func TestAbuseLongJobID(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	url, key := dev.env["TCS_URL"], dev.env["TCS_API_KEY"]
	const n = 50
	start := time.Now()
	for i := range n {
		id := "job_" + strings.Repeat(strconv.Itoa(1+i%9), 55)
		if a := call(t, http.MethodGet, url+"/api/v1/jobs/"+id, key, ""); a.status != http.StatusNotFound || errType(a) != "not_found" {
			t.Fatalf("GET /jobs/%s: %d %s", id, a.status, a.raw)
		}
	}
	per := time.Since(start) / n
	t.Logf("GET /jobs/{job_ and 55 digits}: 404 in %v each on average", per)
	if per > 200*time.Millisecond {
		t.Fatalf("a 404 for a long job id takes %v", per)
	}
}

// TestAbuseLiveStreams opens the dashboard's live progress stream from a signed-in session:
// a session holds at most 4 streams, and a stream of an organization ends within seconds of
// its member's removal from it.
func TestAbuseLiveStreams(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	dash, email, orgA, orgB := dev.env["TCS_DASHBOARD_URL"], dev.env["TCS_DEMO_EMAIL"], dev.env["TCS_ORG"], dev.env["TCS_ORG_B"]
	const password = "a long demo password"
	owner := newWebUser(t, dash)
	if status, _ := owner.setPassword(dev.env["TCS_DEMO_INVITE"], password); status != http.StatusOK || !owner.signIn(email, password) {
		t.Fatal("the demo owner cannot set a password and sign in")
	}
	// The streams outlive the page client's time-out: the same cookies, no time-out.
	browser := &http.Client{Jar: owner.c.Jar}
	admin := func(args ...string) {
		t.Helper()
		out, err := exec.Command(tcsBin, append([]string{"admin", "member", "--kubeconfig", dev.env["KUBECONFIG"]}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tcs admin member %v: %v\n%s", args, err, out)
		}
	}
	// The owner of A, who has an account, joins B by accepting its invitation signed in.
	admin("add", "--org", orgB, "--email", email, "--role", "member")
	if status, page := owner.post("invitations/accept", "invitations", url.Values{"org": {orgB}}); status != http.StatusOK || !strings.Contains(page, "You joined") {
		t.Fatalf("accepting the invitation to B: %d\n%s", status, page)
	}
	// open opens the live stream of org; the test's cleanup closes it.
	type stream struct {
		status int
		header http.Header
		body   io.ReadCloser
	}
	open := func(org string) stream {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, dash+"o/"+org+"/live", nil)
		res, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return stream{res.StatusCode, res.Header, res.Body}
	}
	// The membership in B reaches the cache the dashboard's pages read a moment later.
	var streamB stream
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if streamB = open(orgB); streamB.status == http.StatusOK {
			break
		}
		streamB.body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the stream of B: %d", streamB.status)
		}
	}
	if ct := streamB.header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("the stream of B is %s", ct)
	}
	for i := 2; i <= 4; i++ {
		if res := open(orgA); res.status != http.StatusOK || res.header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("stream %d of the session: %d %s", i, res.status, res.header.Get("Content-Type"))
		}
	}
	if res := open(orgA); res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") == "" {
		t.Fatalf("stream 5 of the session: %d, want 429 with Retry-After", res.status)
	}
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, streamB.body)
		close(ended)
	}()
	start := time.Now()
	admin("remove", "--org", orgB, "--email", email)
	select {
	case <-ended:
	case <-time.After(40 * time.Second):
		t.Fatal("the stream of B is still open 40 s after its member was removed")
	}
	took := time.Since(start)
	t.Logf("4 streams open, the 5th refused with 429; the stream of B ended %v after the member's removal", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Fatalf("the stream ended %v after the removal, want within seconds (the organization's change event)", took)
	}
}
