package apiserver

import (
	"fmt"
	"net/http"
	"strings"
)

// ifMatchTag reads the one entity tag of an If-Match header (RFC 9110: quoted, W/ for a weak
// one), without its quotes and weak prefix: "" when none was sent or "*" (any version). want says, for the refusal of a malformed
// header, which ETag to send ("the ETag of GET /api/v1/glossary").
func ifMatchTag(r *http.Request, want string) (string, *apiError) {
	vals := r.Header.Values("If-Match")
	if len(vals) == 0 {
		return "", nil
	}
	v := strings.TrimSpace(vals[0])
	if len(vals) > 1 || strings.Contains(v, ",") {
		return "", invalid("If-Match", fmt.Sprintf("If-Match must be one entity tag: %s.", want))
	}
	if v == "*" {
		return "", nil
	}
	v = strings.TrimPrefix(v, "W/")
	quoted := len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"'
	if quoted {
		v = v[1 : len(v)-1]
	}
	if !quoted || v == "" || strings.ContainsAny(v, "\" ") {
		return "", invalid("If-Match", fmt.Sprintf("If-Match %s is not an entity tag: send %s.", quote(vals[0]), want))
	}
	return v, nil
}
