package v1alpha1_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/platform/kube/scheme"
	"tcs.dev/tcs/internal/tooling/testenv"
)

func TestNewDeliveryResponseKeepsABoundedStartOfTheAnswer(t *testing.T) {
	many := http.Header{}
	for i := range 100 {
		many.Add(fmt.Sprintf("X-Extra-%03d", i), "v")
	}
	cases := []struct {
		name        string
		header      http.Header
		head        string
		more        bool
		wantHeaders []tcsv1.ResponseHeader
		wantHCut    bool
		wantBody    string
		wantBCut    bool
	}{
		{"a short answer is kept whole, headers in name order",
			http.Header{"X-Request-Id": {"req_1"}, "Content-Type": {"text/plain"}}, "ok", false,
			[]tcsv1.ResponseHeader{{Name: "Content-Type", Value: "text/plain"}, {Name: "X-Request-Id", Value: "req_1"}}, false, "ok", false},
		{"headers that may carry credentials are never kept",
			http.Header{"Set-Cookie": {"s=1"}, "Authorization": {"Bearer x"}, "Proxy-Authenticate": {"Basic"}, "X-Api-Key": {"k"},
				"X-Auth-Token": {"t"}, "X-Session-Id": {"s"}, "X-Client-Secret": {"c"}, "Www-Authenticate": {"Basic"}, "Server": {"nginx"}}, "", false,
			[]tcsv1.ResponseHeader{{Name: "Server", Value: "nginx"}}, false, "", false},
		{"a header with two values is kept as two", http.Header{"Vary": {"Accept", "Origin"}}, "", false,
			[]tcsv1.ResponseHeader{{Name: "Vary", Value: "Accept"}, {Name: "Vary", Value: "Origin"}}, false, "", false},
		{"a long header value is cut at its bound", http.Header{"X-Long": {strings.Repeat("v", tcsv1.MaxResponseHeaderValueBytes+1)}}, "", false,
			[]tcsv1.ResponseHeader{{Name: "X-Long", Value: strings.Repeat("v", tcsv1.MaxResponseHeaderValueBytes)}}, true, "", false},
		{"a long header name is cut at its bound", http.Header{"X-" + strings.Repeat("N", tcsv1.MaxResponseHeaderNameBytes): {"v"}}, "", false,
			[]tcsv1.ResponseHeader{{Name: "X-" + strings.Repeat("N", tcsv1.MaxResponseHeaderNameBytes-2), Value: "v"}}, true, "", false},
		{"bytes that are not UTF-8 become U+FFFD", http.Header{}, "caf\xe9 \xff\xfe!", false, nil, false, "caf\uFFFD \uFFFD!", false},
		{"a body at the bound is whole", http.Header{}, strings.Repeat("b", tcsv1.MaxResponseBodyBytes), false, nil, false, strings.Repeat("b", tcsv1.MaxResponseBodyBytes), false},
		{"a body over the bound is cut", http.Header{}, strings.Repeat("b", tcsv1.MaxResponseBodyBytes+1), false, nil, false, strings.Repeat("b", tcsv1.MaxResponseBodyBytes), true},
		{"a body cut inside a character ends before it", http.Header{}, "a" + strings.Repeat("é", tcsv1.MaxResponseBodyBytes/2), false, nil, false,
			"a" + strings.Repeat("é", tcsv1.MaxResponseBodyBytes/2-1), true},
		{"a body that went on after its head is truncated", http.Header{}, "start", true, nil, false, "start", true},
		{"a long run of bytes that are not UTF-8 is truncated though it shrinks", http.Header{}, strings.Repeat("\xff", tcsv1.MaxResponseBodyBytes+1), true, nil, false, "\uFFFD", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := tcsv1.NewDeliveryResponse(c.header, []byte(c.head), c.more)
			if fmt.Sprint(r.Headers) != fmt.Sprint(c.wantHeaders) || r.HeadersTruncated != c.wantHCut {
				t.Errorf("headers %v truncated %t, want %v %t", r.Headers, r.HeadersTruncated, c.wantHeaders, c.wantHCut)
			}
			if r.Body != c.wantBody || r.BodyTruncated != c.wantBCut {
				t.Errorf("body %q truncated %t, want %q %t", r.Body, r.BodyTruncated, c.wantBody, c.wantBCut)
			}
			if !utf8.ValidString(r.Body) || len(r.Body) > tcsv1.MaxResponseBodyBytes {
				t.Errorf("body of %d bytes, valid UTF-8 %t", len(r.Body), utf8.ValidString(r.Body))
			}
		})
	}
	t.Run("a hundred headers are cut to the bound, the first by name", func(t *testing.T) {
		r := tcsv1.NewDeliveryResponse(many, nil, false)
		if len(r.Headers) != tcsv1.MaxResponseHeaders || !r.HeadersTruncated ||
			r.Headers[0].Name != "X-Extra-000" || r.Headers[tcsv1.MaxResponseHeaders-1].Name != fmt.Sprintf("X-Extra-%03d", tcsv1.MaxResponseHeaders-1) {
			t.Fatalf("%d headers, truncated %t: %v", len(r.Headers), r.HeadersTruncated, r.Headers)
		}
	})
}

// TestTheAPIServerBoundsTheResponseOfAnAttempt stores attempts' responses on a real
// kube-apiserver with the generated CRDs: the CRD's bounds are the constants'.
func TestTheAPIServerBoundsTheResponseOfAnAttempt(t *testing.T) {
	env, err := testenv.Start()
	if err != nil {
		t.Fatalf("these tests need the local control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	c := env.Client(t, client.Options{Scheme: scheme.New()})
	ns := env.Namespace(t, "validation")
	headers := func(n int) []tcsv1.ResponseHeader {
		hs := make([]tcsv1.ResponseHeader, n)
		for i := range hs {
			hs[i] = tcsv1.ResponseHeader{Name: fmt.Sprintf("X-%0*d", tcsv1.MaxResponseHeaderNameBytes-2, i), Value: strings.Repeat("v", tcsv1.MaxResponseHeaderValueBytes)}
		}
		return hs
	}
	cases := []struct {
		name string
		resp tcsv1.DeliveryResponse
		// refused is a part of the API server's message; empty means the response is accepted.
		refused string
	}{
		{"a response at every bound is accepted", tcsv1.DeliveryResponse{Headers: headers(tcsv1.MaxResponseHeaders), HeadersTruncated: true,
			Body: strings.Repeat("b", tcsv1.MaxResponseBodyBytes), BodyTruncated: true}, ""},
		{"one header too many is refused", tcsv1.DeliveryResponse{Headers: headers(tcsv1.MaxResponseHeaders + 1)}, "response.headers"},
		{"a header name too long is refused", tcsv1.DeliveryResponse{Headers: []tcsv1.ResponseHeader{{Name: strings.Repeat("N", tcsv1.MaxResponseHeaderNameBytes+1), Value: "v"}}}, "headers[0].name"},
		{"a header value too long is refused", tcsv1.DeliveryResponse{Headers: []tcsv1.ResponseHeader{{Name: "X", Value: strings.Repeat("v", tcsv1.MaxResponseHeaderValueBytes+1)}}}, "headers[0].value"},
		{"a body too long is refused", tcsv1.DeliveryResponse{Body: strings.Repeat("b", tcsv1.MaxResponseBodyBytes+1)}, "response.body"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := &tcsv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("evt-v%d", i)},
				Spec: tcsv1.WebhookDeliverySpec{ID: fmt.Sprintf("evt_v%d", i), Organization: "org_v", Endpoint: "we-v", Event: tcsv1.EventTranscriptCreated,
					TranscriptID: "tr_v", PayloadRef: "p"}}
			if err := c.Create(t.Context(), d); err != nil {
				t.Fatal(err)
			}
			resp := tc.resp
			d.Status.Attempts = []tcsv1.DeliveryAttempt{{Time: metav1.NewTime(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)), StatusCode: 500,
				Error: "the endpoint answered 500 Internal Server Error", DurationMillis: 3, Response: &resp}}
			err := c.Status().Update(t.Context(), d)
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("storing the attempt: %v, want it accepted", err)
			case tc.refused != "" && err == nil:
				t.Fatalf("the attempt was accepted, want it refused with %q", tc.refused)
			case tc.refused != "" && !strings.Contains(err.Error(), tc.refused):
				t.Fatalf("storing the attempt: %v, want an error saying %q", err, tc.refused)
			}
			if tc.refused != "" {
				return
			}
			got := &tcsv1.WebhookDelivery{}
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(d), got); err != nil {
				t.Fatal(err)
			}
			if len(got.Status.Attempts) != 1 || !apiequality.Semantic.DeepEqual(got.Status.Attempts[0].Response, &resp) {
				t.Fatalf("stored attempts %+v, want the response %+v", got.Status.Attempts, resp)
			}
		})
	}
}

func TestEventsOfOneStateShareOneSnapshot(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	completed := func(tr *tcsv1.Transcript) {
		tr.Status.Phase, tr.Status.AIPassStatus, tr.Status.ContentRef = tcsv1.PhaseCompleted, tcsv1.AIPassIdle, "content"
		at := metav1.NewTime(now)
		tr.Status.CompletedAt = &at
	}
	cases := []struct {
		name string
		// emit emits the events of the case on tr.
		emit func(tr *tcsv1.Transcript)
		// dispatched are the events marked dispatched, in order, after emit.
		dispatched []int
		// wantOwn tells, per event, whether it holds a snapshot of its own.
		wantOwn []bool
		// wantPhase is the phase each event announces, "" for none (dropped).
		wantPhase []tcsv1.Phase
	}{
		{
			name: "two events of one transition keep one snapshot",
			emit: func(tr *tcsv1.Transcript) {
				completed(tr)
				tr.Emit(tcsv1.EventTranscriptCreated, now)
				tr.Emit(tcsv1.EventTranscriptCompleted, now)
			},
			wantOwn:   []bool{true, false},
			wantPhase: []tcsv1.Phase{tcsv1.PhaseCompleted, tcsv1.PhaseCompleted},
		},
		{
			name: "an event of another state keeps its own",
			emit: func(tr *tcsv1.Transcript) {
				tr.Status.Phase = tcsv1.PhasePending
				tr.Emit(tcsv1.EventTranscriptCreated, now)
				completed(tr)
				tr.Emit(tcsv1.EventTranscriptCompleted, now)
			},
			wantOwn:   []bool{true, true},
			wantPhase: []tcsv1.Phase{tcsv1.PhasePending, tcsv1.PhaseCompleted},
		},
		{
			name: "the first dispatched hands its snapshot to the events that share it",
			emit: func(tr *tcsv1.Transcript) {
				completed(tr)
				tr.Emit(tcsv1.EventTranscriptCreated, now)
				tr.Emit(tcsv1.EventTranscriptCompleted, now)
				tr.EmitKeyed(tcsv1.EventAIPassStarted, "job_1", now)
			},
			dispatched: []int{0},
			wantOwn:    []bool{false, true, false},
			wantPhase:  []tcsv1.Phase{"", tcsv1.PhaseCompleted, tcsv1.PhaseCompleted},
		},
		{
			name: "a sharer dispatched first hands the shared snapshot on to the next",
			emit: func(tr *tcsv1.Transcript) {
				completed(tr)
				tr.Emit(tcsv1.EventTranscriptCreated, now)
				tr.Emit(tcsv1.EventTranscriptCompleted, now)
				tr.EmitKeyed(tcsv1.EventAIPassStarted, "job_1", now)
			},
			dispatched: []int{1},
			wantOwn:    []bool{true, false, true},
			wantPhase:  []tcsv1.Phase{tcsv1.PhaseCompleted, "", tcsv1.PhaseCompleted},
		},
		{
			name: "all dispatched drop every snapshot",
			emit: func(tr *tcsv1.Transcript) {
				completed(tr)
				tr.Emit(tcsv1.EventTranscriptCreated, now)
				tr.Emit(tcsv1.EventTranscriptCompleted, now)
			},
			dispatched: []int{0, 1},
			wantOwn:    []bool{false, false},
			wantPhase:  []tcsv1.Phase{"", ""},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := &tcsv1.Transcript{}
			tc.emit(tr)
			for _, seq := range tc.dispatched {
				tr.MarkDispatched(seq)
			}
			events := tr.Status.EmittedEvents
			if len(events) != len(tc.wantOwn) {
				t.Fatalf("%d events, want %d", len(events), len(tc.wantOwn))
			}
			for seq, e := range events {
				if own := e.State != nil; own != tc.wantOwn[seq] {
					t.Errorf("event %d holds a snapshot: %v, want %v", seq, own, tc.wantOwn[seq])
				}
				var phase tcsv1.Phase
				if st := tr.EventState(seq); st != nil {
					phase = st.Phase
				}
				if phase != tc.wantPhase[seq] {
					t.Errorf("event %d announces phase %q, want %q", seq, phase, tc.wantPhase[seq])
				}
			}
		})
	}
}
