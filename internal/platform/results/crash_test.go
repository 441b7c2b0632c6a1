package results

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
)

// The crash helper is this test binary run again with helperEnv set to a DSN and helperMode
// to what it does until it is killed.
const (
	helperEnv  = "TCS_RESULTS_HELPER_DSN"
	helperMode = "TCS_RESULTS_HELPER_MODE"
)

// helperMain is the crash helper: "archive" opens the store and puts transcripts 0, 1, 2, …
// until it is killed, printing the id of each put once it is committed; "open" only opens the
// store.
func helperMain() int {
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv(helperEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	if os.Getenv(helperMode) != "archive" {
		fmt.Println("opened")
		return 0
	}
	for n := 0; ; n++ {
		if _, err := s.Put(ctx, crashTranscript(n), 1); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		fmt.Println("put", crashTranscript(n).Spec.ID)
	}
}

func crashTranscript(n int) *tcsv1.Transcript {
	return transcript(n, "org_a", base.Add(time.Duration(n)*time.Second), tcsv1.PhaseCompleted, tcsv1.SourcePaste)
}

// startHelper starts the crash helper in mode on dsn and returns it with its stdout lines.
func startHelper(t *testing.T, dsn, mode string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dsn, helperMode+"="+mode)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

// TestArchivingSurvivesKill kills (kill -9) a process while it archives transcripts one after
// the other, then retries the archiving from the start, as the archiver does after a restart:
// every put the dead process acknowledged is there, the database is intact, and the retry
// writes only what was not committed, leaving exactly one row per transcript.
func TestArchivingSurvivesKill(t *testing.T) {
	for _, d := range drivers {
		t.Run(string(d.name), func(t *testing.T) {
			ctx := context.Background()
			dsn := d.newDB(t)
			cmd, lines := startHelper(t, dsn, "archive")
			var acked []string
			for len(acked) < 60 && lines.Scan() {
				if id, ok := strings.CutPrefix(lines.Text(), "put "); ok {
					acked = append(acked, id)
				}
			}
			if len(acked) < 60 {
				t.Fatalf("the helper acknowledged %d puts before it stopped", len(acked))
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			s := openStore(t, dsn)
			if s.Driver() == SQLite {
				var check string
				if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
					t.Fatalf("integrity_check after kill -9 = %q, %v", check, err)
				}
			}
			for _, id := range acked {
				if _, err := s.Get(ctx, id, GetOptions{}); err != nil {
					t.Fatalf("an acknowledged put is lost after kill -9: %v", err)
				}
			}
			committed := countRows(t, s, "transcripts", "")
			if committed < len(acked) {
				t.Fatalf("%d rows, fewer than the %d acknowledged puts", committed, len(acked))
			}
			// Retry everything the dead process did and 50 more.
			total, written := committed+50, 0
			for n := range total {
				ok, err := s.Put(ctx, crashTranscript(n), 1)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					written++
				}
			}
			if n := countRows(t, s, "transcripts", ""); n != total {
				t.Fatalf("%d rows after the retry, want %d", n, total)
			}
			if written != 50 {
				t.Fatalf("the retry wrote %d records, want the 50 the dead process never reached", written)
			}
		})
	}
}

// TestOpenSurvivesKillDuringMigration kills processes opening a fresh store at moments spread
// over the migrations; the next Open finds every migration applied once or applies it.
func TestOpenSurvivesKillDuringMigration(t *testing.T) {
	for _, d := range drivers {
		t.Run(string(d.name), func(t *testing.T) {
			for i, delay := range []time.Duration{0, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond} {
				dsn := d.newDB(t)
				cmd, _ := startHelper(t, dsn, "open")
				time.Sleep(delay)
				cmd.Process.Kill()
				cmd.Wait()
				s := openStore(t, dsn)
				if n := countRows(t, s, "schema_migrations", ""); n != len(migrations) {
					t.Fatalf("kill %d (after %s): schema_migrations has %d rows, want %d", i, delay, n, len(migrations))
				}
				if _, err := s.Put(context.Background(), transcript(1, "org_a", base, tcsv1.PhaseCompleted, tcsv1.SourcePaste), 1); err != nil {
					t.Fatalf("kill %d (after %s): %v", i, delay, err)
				}
			}
		})
	}
}

// TestConcurrentOpensAcrossProcesses starts several processes that open one fresh store at
// once, as replicas starting together do: each opens, and each migration is recorded once.
func TestConcurrentOpensAcrossProcesses(t *testing.T) {
	for _, d := range drivers {
		t.Run(string(d.name), func(t *testing.T) {
			dsn := d.newDB(t)
			type proc struct {
				cmd   *exec.Cmd
				lines *bufio.Scanner
			}
			var procs []proc
			for range 4 {
				cmd, lines := startHelper(t, dsn, "open")
				procs = append(procs, proc{cmd, lines})
			}
			for i, p := range procs {
				opened := p.lines.Scan() && p.lines.Text() == "opened"
				if err := p.cmd.Wait(); err != nil || !opened {
					t.Fatalf("process %d: opened %t, exit %v", i, opened, err)
				}
			}
			s := openStore(t, dsn)
			if n := countRows(t, s, "schema_migrations", ""); n != len(migrations) {
				t.Fatalf("schema_migrations has %d rows after 4 processes opened at once, want %d", n, len(migrations))
			}
		})
	}
}
