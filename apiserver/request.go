package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxJSONBody bounds a JSON request body: a 2 MB content may grow several times when escaped.
const maxJSONBody = 16 << 20

// readJSONObject reads a request body that must be one JSON object and returns its members.
func readJSONObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, *apiError) {
	return readJSON(w, r, false)
}

// readOptionalJSONObject is readJSONObject for a body that may be left out: an empty body is
// an empty object.
func readOptionalJSONObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, *apiError) {
	return readJSON(w, r, true)
}

func readJSON(w http.ResponseWriter, r *http.Request, optional bool) (map[string]json.RawMessage, *apiError) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		// curl -d sends form-urlencoded by default; its body is still the JSON the user typed.
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json") && mt != "application/x-www-form-urlencoded") {
			return nil, &apiError{Status: http.StatusUnsupportedMediaType, Type: ErrInvalidRequest,
				Message: fmt.Sprintf("Content-Type %s is not supported; send application/json.", quote(ct))}
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJSONBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &apiError{Status: http.StatusRequestEntityTooLarge, Type: ErrInvalidRequest,
				Message: fmt.Sprintf("The request body is larger than %d bytes.", maxJSONBody)}
		}
		return nil, invalid("", "The request body could not be read.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return map[string]json.RawMessage{}, nil
		}
		return nil, invalid("", "The request body is empty; send a JSON object.")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		msg := "The request body is not a JSON object."
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			msg = fmt.Sprintf("The request body is not valid JSON (at byte %d): %v.", syn.Offset, err)
		}
		return nil, invalid("", msg)
	}
	return obj, nil
}

// members checks that obj has no member outside allowed; prefix names nested parameters.
func members(obj map[string]json.RawMessage, prefix string, allowed ...string) *apiError {
	var unknown []string
	for k := range obj {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	if unknown[0] == "" {
		return invalid(prefix, "The request has a member with an empty name, which is not a parameter.")
	}
	name := clip(prefix + unknown[0])
	return invalid(name, fmt.Sprintf("Unknown parameter %q.", name))
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// stringParam decodes a string member; invalid UTF-8 and lone surrogates are refused.
func stringParam(raw json.RawMessage, param string) (string, *apiError) {
	if !utf8.Valid(raw) || hasLoneSurrogate(raw) {
		return "", invalid(param, fmt.Sprintf("%s must be valid UTF-8 text.", param))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || isNull(raw) {
		return "", invalid(param, fmt.Sprintf("%s must be a string.", param))
	}
	return s, nil
}

func boolParam(raw json.RawMessage, param string) (bool, *apiError) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil || isNull(raw) {
		return false, invalid(param, fmt.Sprintf("%s must be a boolean.", param))
	}
	return b, nil
}

func objectParam(raw json.RawMessage, param string) (map[string]json.RawMessage, *apiError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, invalid(param, fmt.Sprintf("%s must be an object.", param))
	}
	return obj, nil
}

// hasLoneSurrogate reports whether a JSON string holds a \uD800–\uDFFF escape that is not
// part of a pair; encoding/json would silently turn it into U+FFFD.
func hasLoneSurrogate(raw json.RawMessage) bool {
	if !bytes.Contains(raw, []byte(`\u`)) && !bytes.Contains(raw, []byte(`\U`)) {
		return false
	}
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // skip the escaped character, so that \\u is not read as an escape
			continue
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		if err != nil {
			continue
		}
		switch {
		case v >= 0xD800 && v <= 0xDBFF:
			if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if lo, err := strconv.ParseUint(string(raw[i+8:i+12]), 16, 16); err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11
					continue
				}
			}
			return true
		case v >= 0xDC00 && v <= 0xDFFF:
			return true
		}
		i += 5
	}
	return false
}

// boolQuery reads an optional boolean query parameter.
func boolQuery(r *http.Request, name string) (bool, *apiError) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, invalid(name, fmt.Sprintf("%s must be true or false.", name))
	}
	return b, nil
}

// intQuery reads an optional integer query parameter within [lo, hi].
func intQuery(r *http.Request, name string, def, lo, hi int) (int, *apiError) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, invalid(name, fmt.Sprintf("%s must be an integer from %d to %d.", name, lo, hi))
	}
	return n, nil
}
