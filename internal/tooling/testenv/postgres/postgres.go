// Package postgres runs a real PostgreSQL server for tests: Debian's postgresql binaries
// (hack/postgres.sh installs them), a fresh cluster in a temporary directory, a free loopback
// port and a unix socket in that directory. Tests fail, never skip, when the binaries are
// missing.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// EnvBin names the environment variable that holds the directory of initdb and postgres.
const EnvBin = "TCS_POSTGRES_BIN"

// superuser is the cluster's superuser; it connects over loopback without a password.
const superuser = "tcs"

// BinDir returns the directory of initdb and postgres: TCS_POSTGRES_BIN, else the newest
// /usr/lib/postgresql/*/bin (Debian's layout). The error says how to install them.
func BinDir() (string, error) {
	if dir := os.Getenv(EnvBin); dir != "" {
		if err := hasBinaries(dir); err != nil {
			return "", fmt.Errorf("%s=%q: %w; run `make postgres` (hack/postgres.sh) to install PostgreSQL", EnvBin, dir, err)
		}
		return dir, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, dir := range dirs {
		if hasBinaries(dir) == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("PostgreSQL is needed by these tests and %s is unset and /usr/lib/postgresql/*/bin has no initdb and postgres: "+
		"run `make postgres` (hack/postgres.sh installs Debian's postgresql) or set %s to the directory of initdb and postgres", EnvBin, EnvBin)
}

func majorOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func hasBinaries(dir string) error {
	for _, name := range []string{"initdb", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not an executable", filepath.Join(dir, name))
		}
	}
	return nil
}

// Server is a running PostgreSQL server of a test.
type Server struct {
	// Port is the loopback TCP port it listens on.
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	out  *buffer

	mu  sync.Mutex
	dbs int
}

// Start initializes a cluster in a new temporary directory and starts a server on a free
// loopback port; Stop stops it and removes the directory. Run as root, it runs the server as
// the postgres system user (or nobody), since PostgreSQL refuses to run as root.
func Start(ctx context.Context) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tcs-postgres-")
	if err != nil {
		return nil, fmt.Errorf("creating the PostgreSQL directory: %w", err)
	}
	s := &Server{dir: dir, done: make(chan struct{}), out: &buffer{}}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	cred, err := credential(dir)
	if err != nil {
		return nil, err
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return nil, fmt.Errorf("creating the socket directory: %w", err)
	}
	if cred != nil {
		if err := os.Chown(sock, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("handing the socket directory to uid %d: %w", cred.Uid, err)
		}
	}
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "-A", "trust",
		"-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = sysProcAttr(cred)
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}

	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		// Durability settings are off: the data is thrown away, and the tests measure
		// behaviour, not disk speed.
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", sock,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
			"-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=64MB")
		cmd.SysProcAttr = sysProcAttr(cred)
		s.out.Reset()
		cmd.Stdout, cmd.Stderr = s.out, s.out
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting postgres: %w", err)
		}
		s.cmd, s.Port, s.done = cmd, port, make(chan struct{})
		go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(s.done)
		if lastErr = s.waitReady(ctx); lastErr == nil {
			ok = true
			return s, nil
		}
		s.kill()
	}
	return nil, fmt.Errorf("starting postgres failed 5 times; last: %w", lastErr)
}

// credential returns who runs the server: nil (this process's user) unless that is root, then
// the postgres system user (which Debian's package creates) or nobody, with dir handed over.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup("nobody"); err != nil {
			return nil, fmt.Errorf("running PostgreSQL as root is refused and neither the postgres nor the nobody user exists: %w", err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, fmt.Errorf("handing %s to the %s user: %w", dir, u.Username, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady waits until the server accepts a connection, exits, or 30 s pass.
func (s *Server) waitReady(ctx context.Context) error {
	db, err := sql.Open("pgx", s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := db.PingContext(pctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited: %s", s.out.String())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 30s: %w\n%s", err, s.out.String())
		}
	}
}

// DSN returns the connection string of database name.
func (s *Server) DSN(name string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, s.Port, name)
}

// NewDatabase creates an empty database and returns its DSN.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.dbs++
	name := fmt.Sprintf("test_%d", s.dbs)
	s.mu.Unlock()
	db, err := sql.Open("pgx", s.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("creating database %s: %w", name, err)
	}
	return s.DSN(name), nil
}

// Output returns what the server has logged.
func (s *Server) Output() string { return s.out.String() }

// Stop stops the server (a fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			err = errors.New("postgres did not stop within 20s; killed")
			s.kill()
		}
	}
	return errors.Join(err, os.RemoveAll(s.dir))
}

// kill kills the server's process group (postmaster and backends) and waits for it.
func (s *Server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

// buffer is a bytes buffer safe for the server's output goroutines.
type buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func (b *buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}
