package blob

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"
)

const uploadContentType = "text/vtt; charset=utf-8"

// put sends body to the signed URL u with method and headers, and returns the answer's
// status and body. A nil body is sent with an unknown length (chunked).
func put(t *testing.T, method, u string, headers map[string]string, body io.Reader, size int64) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// flipLast changes the last character of s.
func flipLast(s string) string {
	if s == "" {
		return "x"
	}
	last := s[len(s)-1]
	repl := byte('A')
	if last == 'A' {
		repl = 'B'
	}
	return s[:len(s)-1] + string(repl)
}

// tamper edits the signed URL u with edit and returns the result.
func tamper(t *testing.T, u string, edit func(u *url.URL, q url.Values)) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	edit(p, q)
	p.RawQuery = q.Encode()
	return p.String()
}

func TestSignedPutURL(t *testing.T) {
	body := []byte("WEBVTT\n\n00:00.000 --> 00:01.000\nIn the beginning\n")
	otherKey := "uploads/other/input"
	for _, tc := range []struct {
		name   string
		fsOnly bool
		expiry time.Duration
		wait   time.Duration                    // before the PUT
		edit   func(u *url.URL, q url.Values)   // of the signed URL
		method string                           // of the PUT; PUT when empty
		header func(h map[string]string)        // edits the headers of the PUT
		body   func() (r io.Reader, size int64) // of the PUT; body when nil
		want   int                              // status; 200 when 0
	}{
		{name: "upload"},
		{name: "changed signature", want: http.StatusForbidden, edit: func(u *url.URL, q url.Values) {
			for _, p := range []string{"signature", "X-Amz-Signature"} {
				if q.Has(p) {
					q.Set(p, flipLast(q.Get(p)))
				}
			}
		}},
		{name: "changed key", want: http.StatusForbidden, edit: func(u *url.URL, q url.Values) {
			if q.Has("obj") { // filesystem: the key is a query parameter
				q.Set("obj", otherKey)
				return
			}
			u.Path = path.Join(path.Dir(path.Dir(path.Dir(u.Path))), otherKey)
		}},
		{name: "changed expiry", want: http.StatusForbidden, edit: func(u *url.URL, q url.Values) {
			if q.Has("expiry") {
				exp, _ := strconv.ParseInt(q.Get("expiry"), 10, 64)
				q.Set("expiry", strconv.FormatInt(exp+3600, 10))
			}
			if q.Has("X-Amz-Expires") {
				q.Set("X-Amz-Expires", "7200")
			}
		}},
		{name: "expired", expiry: time.Second, wait: 2100 * time.Millisecond, want: http.StatusForbidden},
		{name: "wrong content type", want: http.StatusForbidden, header: func(h map[string]string) {
			h["Content-Type"] = "application/octet-stream"
		}},
		{name: "no content type", want: http.StatusForbidden, header: func(h map[string]string) {
			delete(h, "Content-Type")
		}},
		{name: "wrong method", fsOnly: true, method: http.MethodPost, want: http.StatusForbidden},
		{name: "wrong method GET", method: http.MethodGet, want: http.StatusForbidden},
		{name: "body at the cap", fsOnly: true, body: func() (io.Reader, int64) {
			return bytes.NewReader(bytes.Repeat([]byte("a"), testMaxBytes)), testMaxBytes
		}},
		{name: "body over the cap", fsOnly: true, want: http.StatusRequestEntityTooLarge, body: func() (io.Reader, int64) {
			return bytes.NewReader(bytes.Repeat([]byte("a"), testMaxBytes+1)), testMaxBytes + 1
		}},
		{name: "chunked body over the cap", fsOnly: true, want: http.StatusRequestEntityTooLarge, body: func() (io.Reader, int64) {
			return io.MultiReader(strings.NewReader(strings.Repeat("a", testMaxBytes)), strings.NewReader("overflow")), -1
		}},
	} {
		for _, b := range backends() {
			if tc.fsOnly && b.name != "filesystem" {
				continue
			}
			t.Run(tc.name+"/"+b.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := b.open(t)
				key := "uploads/" + strings.ReplaceAll(tc.name, " ", "-") + "/input"
				expiry := tc.expiry
				if expiry == 0 {
					expiry = 5 * time.Minute
				}
				u, headers, err := s.SignedPutURL(ctx, key, uploadContentType, expiry)
				if err != nil {
					t.Fatal(err)
				}
				if headers["Content-Type"] != uploadContentType {
					t.Fatalf("headers = %v, want the Content-Type %q", headers, uploadContentType)
				}
				if tc.edit != nil {
					u = tamper(t, u, tc.edit)
				}
				if tc.header != nil {
					tc.header(headers)
				}
				method := tc.method
				if method == "" {
					method = http.MethodPut
				}
				var r io.Reader = bytes.NewReader(body)
				size := int64(len(body))
				if tc.body != nil {
					r, size = tc.body()
				}
				time.Sleep(tc.wait)

				status, answer := put(t, method, u, headers, r, size)
				want := tc.want
				if want == 0 {
					want = http.StatusOK
				}
				if status != want {
					t.Fatalf("%s answered %d %s; want %d", method, status, answer, want)
				}
				if want != http.StatusOK {
					for _, k := range []string{key, otherKey} {
						if ok, err := s.Exists(ctx, k); ok || err != nil {
							t.Fatalf("a refused upload left an object under %s (Exists = %v, %v)", k, ok, err)
						}
					}
					if b.name == "filesystem" {
						var e struct {
							Error struct{ Type, Message string }
						}
						if err := json.Unmarshal(answer, &e); err != nil || e.Error.Type == "" || e.Error.Message == "" {
							t.Fatalf("refusal body %q is not a JSON error (%v)", answer, err)
						}
						if want == http.StatusForbidden && e.Error.Type != "forbidden" {
							t.Fatalf("refusal type %q, want forbidden", e.Error.Type)
						}
					}
					return
				}
				if tc.body != nil {
					r, _ = tc.body()
				} else {
					r = bytes.NewReader(body)
				}
				wantBody, _ := io.ReadAll(r)
				if got, err := s.Get(ctx, key); err != nil || !bytes.Equal(got, wantBody) {
					t.Fatalf("Get after the upload = %.40q, %v; want %.40q", got, err, wantBody)
				}
				if size, err := s.Size(ctx, key); err != nil || size != int64(len(wantBody)) {
					t.Fatalf("Size after the upload = %d, %v; want %d", size, err, len(wantBody))
				}
			})
		}
	}
}

func TestSignedPutURLRefusals(t *testing.T) {
	ctx := context.Background()
	fsStore := openTestDir(t)
	s3Store := openTestS3(t)
	unsigned, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer unsigned.Close()
	noBase, err := Open(ctx, t.TempDir(), Options{SigningSecret: []byte("secret")})
	if err != nil {
		t.Fatal(err)
	}
	defer noBase.Close()

	for _, tc := range []struct {
		name        string
		s           *Store
		contentType string
		expiry      time.Duration
	}{
		{"filesystem without a signing secret", unsigned, uploadContentType, time.Minute},
		{"filesystem without an upload base URL", noBase, uploadContentType, time.Minute},
		{"filesystem without a content type", fsStore, "", time.Minute},
		{"s3 without a content type", s3Store, "", time.Minute},
		{"filesystem with a zero expiry", fsStore, uploadContentType, 0},
		{"s3 with a negative expiry", s3Store, uploadContentType, -time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if u, _, err := tc.s.SignedPutURL(ctx, "k", tc.contentType, tc.expiry); err == nil {
				t.Fatalf("SignedPutURL = %q, want an error", u)
			}
		})
	}

	for _, tc := range []struct {
		name     string
		s        *Store
		maxBytes int64
	}{
		{"s3", s3Store, 1 << 20},
		{"filesystem without a signing secret", unsigned, 1 << 20},
		{"filesystem with a zero cap", fsStore, 0},
	} {
		t.Run("UploadHandler/"+tc.name, func(t *testing.T) {
			if _, err := tc.s.UploadHandler(tc.maxBytes, nil); err == nil {
				t.Fatal("UploadHandler succeeded, want an error")
			}
		})
	}
}
