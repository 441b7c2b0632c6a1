package e2e

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAbuseRemovedMemberStream opens the live progress stream of a member, removes the member,
// and shows that the stream ends and carries nothing of the organization created after the
// removal: the open stream of a removed member used to keep receiving the organization's events.
func TestAbuseRemovedMemberStream(t *testing.T) {
	dev := startDev(t, filepath.Join(t.TempDir(), "state"))
	dash, api, org, key := dev.env["TCS_DASHBOARD_URL"], dev.env["TCS_URL"], dev.env["TCS_ORG"], dev.env["TCS_API_KEY"]
	const ownerPassword, memberPassword, member = "the password of the owner", "the password of the member", "leaving@demo-a.example"

	owner := newWebUser(t, dash)
	if status, _ := owner.setPassword(dev.env["TCS_DEMO_INVITE"], ownerPassword); status != http.StatusOK || !owner.signIn(dev.env["TCS_DEMO_EMAIL"], ownerPassword) {
		t.Fatal("the owner cannot set a password and sign in")
	}
	if status, page := owner.post("o/"+org+"/members", "o/"+org+"/members", url.Values{"email": {member}, "role": {"member"}}); status != http.StatusOK {
		t.Fatalf("inviting: %d\n%s", status, page)
	}
	leaving := newWebUser(t, dash)
	if status, _ := leaving.setPassword(waitLogLink(t, dev, "invitation", member), memberPassword); status != http.StatusOK || !leaving.signIn(member, memberPassword) {
		t.Fatal("the member cannot set a password and sign in")
	}

	// The member's stream, read line by line in the background.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, dash+"o/"+org+"/live", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The stream outlives the page client's time-out: the same cookies, no time-out.
	streams := &http.Client{Jar: leaving.c.Jar}
	res, err := streams.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("the member's live stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// drain returns what the stream sent until it ended (ended true) or for d.
	drain := func(d time.Duration) (got string, ended bool) {
		timer := time.NewTimer(d)
		defer timer.Stop()
		var b strings.Builder
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return b.String(), true
				}
				b.WriteString(l + "\n")
			case <-timer.C:
				return b.String(), false
			}
		}
	}

	paste := func(text string) string {
		a := call(t, http.MethodPost, api+"/api/v1/transcripts", key, `{"source_type":"paste","content":"`+text+`"}`)
		if a.status >= 300 {
			t.Fatalf("paste: %d %s", a.status, a.raw)
		}
		return a.body["id"].(string)
	}
	before := paste("before the removal we read first corinthians 13")
	if got, _ := drain(5 * time.Second); !strings.Contains(got, before) {
		t.Fatalf("the member's stream does not carry the organization's transcript %s:\n%s", before, got)
	}

	removedAt := time.Now()
	if status, page := owner.post("o/"+org+"/members/remove", "o/"+org+"/members", url.Values{"email": {member}}); status != http.StatusOK {
		t.Fatalf("removing the member: %d\n%s", status, page)
	}
	after := paste("after the removal we read revelations 21")
	got, ended := drain(20 * time.Second)
	took := time.Since(removedAt)
	if strings.Contains(got, after) {
		t.Fatalf("the removed member's stream carried %s, created after the removal:\n%s", after, got)
	}
	if !ended {
		t.Fatalf("the removed member's stream was still open %v after the removal", took)
	}
	t.Logf("the stream of the removed member ended %v after the removal, with nothing created after it", took.Round(time.Millisecond))

	// Removed from their only organization, the member has no session any more: the page of
	// the organization sends them to the sign-in page.
	if _, page := leaving.get("o/" + org + "/"); !strings.Contains(page, "Forgot your password?") {
		t.Fatalf("the removed member is not sent to the sign-in page:\n%.500s", page)
	}
}
