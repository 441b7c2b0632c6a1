//go:build !linux

package blob

import "errors"

// setUserXattr reports that user extended attributes are not probed on this system, so the
// test S3 server keeps its metadata in a sidecar directory.
func setUserXattr(string) error {
	return errors.New("user extended attributes are not probed on this system")
}
