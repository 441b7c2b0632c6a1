package postgres

import "syscall"

// sysProcAttr runs a server process as cred (nil: as this process) in its own process group,
// killed when the test process dies so that no server outlives a killed test run.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
