package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"tcs.dev/tcs/internal/tooling/apidoc"
	"tcs.dev/tcs/internal/tooling/testenv"
)

// loadAPIDoc reads the API's OpenAPI document (apiserver/openapi.json, the one the server
// embeds) once per test binary.
var loadAPIDoc = sync.OnceValues(func() (*apidoc.Doc, error) {
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "apiserver", "openapi.json"))
	if err != nil {
		return nil, err
	}
	return apidoc.Load(data)
})

// validateResponse fails t unless the response to method url is one the OpenAPI document
// allows (see apidoc.Doc.Check).
func validateResponse(t *testing.T, method, url string, status int, header http.Header, body []byte) {
	t.Helper()
	doc, err := loadAPIDoc()
	if err == nil {
		err = doc.Check(method, url, status, header, body)
	}
	if err != nil {
		t.Errorf("%s %s answered %d, which the OpenAPI document does not allow: %v\nbody: %.2000s", method, url, status, err, body)
	}
}
