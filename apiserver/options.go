package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	tcsv1 "tcs.dev/tcs/api/v1alpha1"
	"tcs.dev/tcs/internal/domain/transcripts"
	"tcs.dev/tcs/internal/text/correction"
)

// categoriesParam reads options.categories: a non-empty array of at most tcsv1.MaxCategories
// category names, each as tcsv1.ValidCategory says; duplicates collapse and the names are
// sorted, so that the same set is always the same list. The array is read item by item, so
// that a longer one is refused before it is held.
func categoriesParam(raw json.RawMessage) ([]string, *apiError) {
	const param = "options.categories"
	items, aerr := arrayParam(raw, param, tcsv1.MaxCategories)
	if aerr != nil {
		return nil, aerr
	}
	if len(items) == 0 {
		return nil, invalid(param, "options.categories is empty; leave it out to correct every category.")
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		name := fmt.Sprintf("%s[%d]", param, i)
		if len(item) > 6*tcsv1.MaxCategoryBytes+2 {
			return nil, invalid(name, fmt.Sprintf("%s is longer than %d bytes.", name, tcsv1.MaxCategoryBytes))
		}
		c, aerr := stringParam(item, name)
		if aerr != nil {
			return nil, aerr
		}
		if !tcsv1.ValidCategory(c) {
			return nil, invalid(name, fmt.Sprintf("%s %s is not a category name: 1 to %d bytes of lowercase letters, digits, _ and -, such as %s, %s or a category of your glossary.",
				name, quote(c), tcsv1.MaxCategoryBytes, correction.CategoryBible, correction.CategoryPlace))
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// thresholdsParam reads options.thresholds: an object of auto_apply and suggest, each a number
// from 0 to 1 with at most three decimal places, suggest at most auto_apply. An empty object
// is no thresholds (nil).
func thresholdsParam(raw json.RawMessage) (*tcsv1.Thresholds, *apiError) {
	obj, aerr := objectParam(raw, "options.thresholds")
	if aerr != nil {
		return nil, aerr
	}
	if aerr := members(obj, "options.thresholds.", "auto_apply", "suggest"); aerr != nil {
		return nil, aerr
	}
	var out tcsv1.Thresholds
	for _, m := range []struct {
		name string
		text *string
	}{{"auto_apply", &out.AutoApply}, {"suggest", &out.Suggest}} {
		raw, ok := obj[m.name]
		if !ok || isNull(raw) {
			continue
		}
		if *m.text, aerr = confidenceParam(raw, "options.thresholds."+m.name); aerr != nil {
			return nil, aerr
		}
	}
	if err := transcripts.CheckThresholds(out); err != nil {
		var pe *transcripts.ParamError
		if errors.As(err, &pe) {
			return nil, invalid(pe.Param, pe.Message)
		}
		return nil, invalid("options.thresholds", err.Error())
	}
	if out == (tcsv1.Thresholds{}) {
		return nil, nil
	}
	return &out, nil
}

// confidenceParam reads a number from 0 to 1 with at most three decimal places, and returns
// it as the CRD keeps it (tcsv1.ParseConfidence reads it back).
func confidenceParam(raw json.RawMessage, param string) (string, *apiError) {
	msg := fmt.Sprintf("%s must be a number from 0 to 1 with at most three decimal places, such as 0.85.", param)
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || len(raw) > 32 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return "", invalid(param, msg)
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || !(v >= 0 && v <= 1) {
		return "", invalid(param, msg)
	}
	if v == 0 {
		v = 0 // -0 is 0
	}
	text := strconv.FormatFloat(v, 'f', -1, 64)
	if _, err := tcsv1.ParseConfidence(text); err != nil {
		return "", invalid(param, msg)
	}
	return text, nil
}

// metadataParam reads options.metadata: an object of at most tcsv1.MaxMetadataKeys string
// values of at most tcsv1.MaxMetadataValueBytes bytes, under keys as tcsv1.ValidMetadataKey
// says. It is read member by member, so that a larger one is refused before it is held; an
// empty object is no metadata (nil).
func metadataParam(raw json.RawMessage) (map[string]string, *apiError) {
	const param = "options.metadata"
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, invalid(param, "options.metadata must be an object of string values.")
	}
	out := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil, invalid(param, "options.metadata must be an object of string values.")
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, invalid(param, "options.metadata must be an object of string values.")
		}
		name := param + "." + key
		if !tcsv1.ValidMetadataKey(key) {
			if key == "" {
				name = param
			}
			return nil, invalid(clip(name), fmt.Sprintf("The metadata key %s is not 1 to %d bytes of letters, digits, _, . and -.", quote(key), tcsv1.MaxMetadataKeyBytes))
		}
		if _, seen := out[key]; !seen && len(out) == tcsv1.MaxMetadataKeys {
			return nil, invalid(param, fmt.Sprintf("options.metadata has more than %d keys.", tcsv1.MaxMetadataKeys))
		}
		if len(value) > 6*tcsv1.MaxMetadataValueBytes+2 {
			return nil, invalid(name, fmt.Sprintf("%s is longer than %d bytes.", name, tcsv1.MaxMetadataValueBytes))
		}
		v, aerr := stringParam(value, name)
		if aerr != nil {
			return nil, aerr
		}
		if len(v) > tcsv1.MaxMetadataValueBytes {
			return nil, invalid(name, fmt.Sprintf("%s is longer than %d bytes.", name, tcsv1.MaxMetadataValueBytes))
		}
		out[key] = v
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// arrayParam reads raw as a JSON array of at most limit items, refusing a longer one at the
// first item beyond it.
func arrayParam(raw json.RawMessage, param string, limit int) ([]json.RawMessage, *apiError) {
	notArray := invalid(param, fmt.Sprintf("%s must be an array of strings.", param))
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, notArray
	}
	var items []json.RawMessage
	for dec.More() {
		if len(items) == limit {
			return nil, invalid(param, fmt.Sprintf("%s has more than %d items.", param, limit))
		}
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return nil, notArray
		}
		items = append(items, item)
	}
	return items, nil
}
