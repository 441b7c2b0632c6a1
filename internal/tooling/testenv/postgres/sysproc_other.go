//go:build !linux

package postgres

import "syscall"

// sysProcAttr runs a server process as cred (nil: as this process) in its own process group.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
