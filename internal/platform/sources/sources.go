// Package sources fetches the remote sources of a transcript: the captions of
// a YouTube video and files named by a URL.
//
// All outbound traffic goes through the client [NewClient] returns. That
// client refuses to connect to private, reserved, loopback and other
// non-public addresses (internal/platform/netpolicy decides which); the address is
// checked when the connection is made, after name resolution, so DNS
// rebinding cannot pass.
//
// Errors come in two kinds. A *[UserError] is a failure the client caused or
// must hear about (a bad link, a video without captions, a file that is too
// large); it is not worth retrying. Any other error is transient: the network,
// a timeout, a remote server having a bad moment; the caller should retry.
package sources

import "fmt"

// API error types used in [UserError.Type].
const (
	// TypeUnprocessable is for a well-formed request whose source cannot be used.
	TypeUnprocessable = "unprocessable"
	// TypeInvalidRequest is for a request that is malformed.
	TypeInvalidRequest = "invalid_request"
)

// A UserError is a failure the client caused or must hear about. Type is an
// API error type ([TypeUnprocessable] or [TypeInvalidRequest]) and Message a
// sentence meant for the client.
//
// Any error from this package that does not unwrap to a *UserError is
// transient.
type UserError struct {
	Type    string
	Message string
}

// Error returns the message.
func (e *UserError) Error() string { return e.Message }

func unprocessable(format string, args ...any) *UserError {
	return &UserError{Type: TypeUnprocessable, Message: fmt.Sprintf(format, args...)}
}

func invalidRequest(format string, args ...any) *UserError {
	return &UserError{Type: TypeInvalidRequest, Message: fmt.Sprintf(format, args...)}
}
