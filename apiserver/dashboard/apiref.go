package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// apiOperation is one operation of the OpenAPI document as the API reference page shows it.
type apiOperation struct {
	Method, Path, Summary, Description string
	Parameters                         []apiParameter
	// Body is the media types of the request body; none when it takes none.
	Body []string
	// Responses are the status codes it answers with.
	Responses []string
}

// apiParameter is a parameter of an operation.
type apiParameter struct {
	Name, In, Description string
	Required              bool
}

// apiRefData is the API reference page's.
type apiRefData struct {
	Title, Version, Description string
	BaseURL                     string
	Operations                  []apiOperation
}

// openAPIDoc is the part of an OpenAPI 3.1 document the reference shows.
type openAPIDoc struct {
	Info struct {
		Title, Version, Summary string
	} `json:"info"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Parameters map[string]openAPIParam `json:"parameters"`
	} `json:"components"`
}

type openAPIParam struct {
	Ref         string `json:"$ref"`
	Name        string `json:"name"`
	In          string `json:"in"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
}

type openAPIOp struct {
	Summary     string         `json:"summary"`
	Description string         `json:"description"`
	Parameters  []openAPIParam `json:"parameters"`
	RequestBody *struct {
		Content map[string]json.RawMessage `json:"content"`
	} `json:"requestBody"`
	Responses map[string]json.RawMessage `json:"responses"`
}

// apiMethods are the methods of an OpenAPI path item, in the order the page lists them.
var apiMethods = []string{"get", "head", "post", "put", "patch", "delete"}

// parseAPIReference reads the operations of the OpenAPI document doc, by path and method, with
// each parameter given by reference resolved; the parameters of a path come with each of its
// operations.
func parseAPIReference(doc []byte) (*apiRefData, error) {
	if len(doc) == 0 {
		// A dashboard set up without the document (in tests) lists no operation.
		return &apiRefData{}, nil
	}
	var d openAPIDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	resolve := func(p openAPIParam) openAPIParam {
		if name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
			return d.Components.Parameters[name]
		}
		return p
	}
	out := &apiRefData{Title: d.Info.Title, Version: d.Info.Version, Description: d.Info.Summary}
	paths := make([]string, 0, len(d.Paths))
	for p := range d.Paths {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		item := d.Paths[p]
		var shared []openAPIParam
		if raw, ok := item["parameters"]; ok {
			if err := json.Unmarshal(raw, &shared); err != nil {
				return nil, fmt.Errorf("reading the parameters of %s: %w", p, err)
			}
		}
		for _, m := range apiMethods {
			raw, ok := item[m]
			if !ok {
				continue
			}
			var op openAPIOp
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, fmt.Errorf("reading %s %s: %w", m, p, err)
			}
			o := apiOperation{Method: strings.ToUpper(m), Path: p, Summary: op.Summary, Description: firstParagraph(op.Description)}
			for _, prm := range append(slices.Clone(shared), op.Parameters...) {
				prm = resolve(prm)
				o.Parameters = append(o.Parameters, apiParameter{Name: prm.Name, In: prm.In, Description: prm.Description, Required: prm.Required})
			}
			if op.RequestBody != nil {
				for ct := range op.RequestBody.Content {
					o.Body = append(o.Body, ct)
				}
				slices.Sort(o.Body)
			}
			for code := range op.Responses {
				o.Responses = append(o.Responses, code)
			}
			slices.Sort(o.Responses)
			out.Operations = append(out.Operations, o)
		}
	}
	return out, nil
}

// firstParagraph returns the first paragraph of a description.
func firstParagraph(s string) string {
	p, _, _ := strings.Cut(strings.TrimSpace(s), "\n\n")
	return p
}

// apiReference shows the API the service serves, from its OpenAPI document: each path with its
// methods, parameters and answers, and the base URL requests go to.
func (d *Dashboard) apiReference(w http.ResponseWriter, r *http.Request, v *view) {
	data, err := parseAPIReference(d.o.OpenAPI)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data.BaseURL = d.origin
	v.Title, v.Data = "API reference", data
	d.render(w, r, http.StatusOK, "apiref", v)
}
