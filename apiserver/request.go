package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/limits"
	"tcs.dev/tcs/internal/platform/sources"
	"tcs.dev/tcs/internal/text/formats"
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

// titleParam reads the optional title, trimmed, of at most limits.MaxTitle bytes.
func titleParam(obj map[string]json.RawMessage) (string, *apiError) {
	raw, ok := obj["title"]
	if !ok || isNull(raw) {
		return "", nil
	}
	if len(raw) > 6*limits.MaxTitle+2 {
		// Longer than any title within the limit, however escaped: not decoded.
		return "", invalid("title", fmt.Sprintf("title is longer than %d bytes.", limits.MaxTitle))
	}
	title, aerr := stringParam(raw, "title")
	if aerr != nil {
		return "", aerr
	}
	title = strings.TrimSpace(title)
	if len(title) > limits.MaxTitle {
		return "", invalid("title", fmt.Sprintf("title is longer than %d bytes.", limits.MaxTitle))
	}
	return title, nil
}

// urlParam reads the required url of a youtube or url source, of at most limits.MaxURL bytes.
func urlParam(obj map[string]json.RawMessage, context string) (string, *apiError) {
	if raw, ok := obj["url"]; ok && len(raw) > 6*limits.MaxURL+2 {
		return "", invalid("url", fmt.Sprintf("url is longer than %d bytes.", limits.MaxURL))
	}
	u, aerr := requiredString(obj, "url", context)
	if aerr != nil {
		return "", aerr
	}
	if len(u) > limits.MaxURL {
		return "", invalid("url", fmt.Sprintf("url is longer than %d bytes.", limits.MaxURL))
	}
	return u, nil
}

// requiredString reads a member that must be a non-blank string.
func requiredString(obj map[string]json.RawMessage, name, context string) (string, *apiError) {
	raw, ok := obj[name]
	if !ok || isNull(raw) {
		return "", invalid(name, fmt.Sprintf("%s is required %s.", name, context))
	}
	v, aerr := stringParam(raw, name)
	if aerr != nil {
		return "", aerr
	}
	if strings.TrimSpace(v) == "" {
		return "", invalid(name, name+" is empty.")
	}
	return v, nil
}

// formatParam reads source_format from one of allowed; required says whether it may be absent.
func formatParam(obj map[string]json.RawMessage, allowed []formats.Format, required bool) (formats.Format, *apiError) {
	raw, ok := obj["source_format"]
	if !ok || isNull(raw) {
		if required {
			return "", invalid("source_format", "source_format is required for this source_type: one of "+formatNames(allowed)+".")
		}
		return "", nil
	}
	f, aerr := stringParam(raw, "source_format")
	if aerr != nil {
		return "", aerr
	}
	return oneOfFormats(f, allowed)
}

func oneOfFormats(f string, allowed []formats.Format) (formats.Format, *apiError) {
	for _, a := range allowed {
		if string(a) == f {
			return a, nil
		}
	}
	return "", invalid("source_format", fmt.Sprintf("source_format %s is not one of %s.", quote(f), formatNames(allowed)))
}

func formatNames(fs []formats.Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// userError turns an error of internal/platform/sources into the API's answer, naming param.
func userError(param string, err error) *apiError {
	var ue *sources.UserError
	if errors.As(err, &ue) && ue.Type == ErrUnprocessable {
		return &apiError{Status: http.StatusUnprocessableEntity, Type: ErrUnprocessable, Param: param, Message: ue.Message}
	}
	if errors.As(err, &ue) {
		return invalid(param, ue.Message)
	}
	return invalid(param, err.Error())
}

func parseOptions(raw json.RawMessage) (tcsv1.TranscriptOptions, *apiError) {
	var o tcsv1.TranscriptOptions
	obj, aerr := objectParam(raw, "options")
	if aerr != nil {
		return o, aerr
	}
	if aerr := members(obj, "options.", "ai_pass", "normalize_references", "language", "categories", "thresholds", "metadata"); aerr != nil {
		return o, aerr
	}
	if raw, ok := obj["language"]; ok && !isNull(raw) {
		lang, aerr := stringParam(raw, "options.language")
		if aerr != nil {
			return o, aerr
		}
		if !validLanguage(lang) {
			return o, invalid("options.language", fmt.Sprintf("options.language %s is not a language tag such as en or pt-BR.", quote(lang)))
		}
		o.Language = lang
	}
	if raw, ok := obj["normalize_references"]; ok {
		if o.NormalizeReferences, aerr = boolParam(raw, "options.normalize_references"); aerr != nil {
			return o, aerr
		}
	}
	if raw, ok := obj["ai_pass"]; ok && !isNull(raw) {
		ai, aerr := objectParam(raw, "options.ai_pass")
		if aerr != nil {
			return o, aerr
		}
		if aerr := members(ai, "options.ai_pass.", "enabled", "apply"); aerr != nil {
			return o, aerr
		}
		if raw, ok := ai["enabled"]; ok {
			if o.AIPass.Enabled, aerr = boolParam(raw, "options.ai_pass.enabled"); aerr != nil {
				return o, aerr
			}
		}
		if raw, ok := ai["apply"]; ok {
			if o.AIPass.Apply, aerr = boolParam(raw, "options.ai_pass.apply"); aerr != nil {
				return o, aerr
			}
		}
	}
	if raw, ok := obj["categories"]; ok && !isNull(raw) {
		if o.Categories, aerr = categoriesParam(raw); aerr != nil {
			return o, aerr
		}
	}
	if raw, ok := obj["thresholds"]; ok && !isNull(raw) {
		if o.Thresholds, aerr = thresholdsParam(raw); aerr != nil {
			return o, aerr
		}
	}
	if raw, ok := obj["metadata"]; ok && !isNull(raw) {
		if o.Metadata, aerr = metadataParam(raw); aerr != nil {
			return o, aerr
		}
	}
	return o, nil
}

// givenOptions names the members of a valid options object that are present and not null.
func givenOptions(raw json.RawMessage) []string {
	var o struct {
		AIPass              map[string]json.RawMessage `json:"ai_pass"`
		Language            json.RawMessage            `json:"language"`
		NormalizeReferences json.RawMessage            `json:"normalize_references"`
		Categories          json.RawMessage            `json:"categories"`
		Thresholds          map[string]json.RawMessage `json:"thresholds"`
		Metadata            map[string]json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	var out []string
	for _, m := range []string{"enabled", "apply"} {
		if v, ok := o.AIPass[m]; ok && !isNull(v) {
			out = append(out, "options.ai_pass."+m)
		}
	}
	if len(o.Language) > 0 && !isNull(o.Language) {
		out = append(out, "options.language")
	}
	if len(o.NormalizeReferences) > 0 && !isNull(o.NormalizeReferences) {
		out = append(out, "options.normalize_references")
	}
	if len(o.Categories) > 0 && !isNull(o.Categories) {
		out = append(out, "options.categories")
	}
	for _, m := range []string{"auto_apply", "suggest"} {
		if v, ok := o.Thresholds[m]; ok && !isNull(v) {
			out = append(out, "options.thresholds."+m)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Metadata)) {
		out = append(out, "options.metadata."+k)
	}
	return out
}

// validLanguage accepts BCP 47-like tags: letters, digits and hyphens, 2 to 35 characters.
func validLanguage(s string) bool {
	if len(s) < 2 || len(s) > 35 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
