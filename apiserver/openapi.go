package apiserver

import (
	_ "embed"
	"net/http"
)

// openAPIDocument is the OpenAPI 3.1 document of the API. docs/openapi.json is a byte-identical
// copy; TestOpenAPIDocsCopy keeps the two equal.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPI serves the OpenAPI document of the API. It needs no authentication.
func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openAPIDocument)
}

// OpenAPIDocument returns a copy of the OpenAPI document the API serves at
// /api/v1/openapi.json, for the dashboard's API reference.
func OpenAPIDocument() []byte {
	return append([]byte(nil), openAPIDocument...)
}
