package chartdoc

import (
	"strings"
	"testing"
)

func TestValues(t *testing.T) {
	schema := `{"properties": {
		"image": {"type": "object", "description": "d", "properties": {
			"tag": {"type": "string", "description": "The tag."},
			"pullPolicy": {"type": "string", "enum": ["Always", "Never"], "description": "Pull | policy."}}},
		"cidrs": {"type": "array", "items": {"type": "string"}, "description": "CIDRs."},
		"minAvailable": {"type": ["integer", "string"], "description": "A count or a percentage."}}}`
	cases := []struct {
		name, schema, values string
		want                 []Value
		wantErr              string
	}{
		{name: "leaves with defaults", schema: schema, values: "image: {tag: v1, pullPolicy: Never}\ncidrs: []\nminAvailable: 1\n", want: []Value{
			{"cidrs", "array of string", "[]", "CIDRs."},
			{"image.pullPolicy", "string: `\"Always\"`, `\"Never\"`", `"Never"`, "Pull | policy."},
			{"image.tag", "string", `"v1"`, "The tag."},
			{"minAvailable", "integer or string", "1", "A count or a percentage."},
		}},
		{name: "a value the schema lacks", schema: schema, values: "image: {tag: v1, pullPolicy: Never, tga: x}\ncidrs: []\nminAvailable: 1\n", wantErr: "values.yaml sets image.tga"},
		{name: "a value without a default", schema: schema, values: "image: {tag: v1}\ncidrs: []\nminAvailable: 1\n", wantErr: "no default for image.pullPolicy"},
		{name: "a property without a description", schema: `{"properties": {"port": {"type": "integer"}}}`, values: "port: 80\n", wantErr: "does not describe port"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Values([]byte(tc.schema), []byte(tc.values))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("value %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	table := Table([]Value{{"a", "string", `"x"`, "A | b."}})
	if !strings.Contains(string(table), "| `a` | string | `\"x\"` | A \\| b. |\n") {
		t.Errorf("table %q does not escape the description's pipe", table)
	}
	readme := "# Chart\n\n" + Begin + "\nold\n" + End + "\n\nMore.\n"
	out, err := Update([]byte(readme), table)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Chart\n\n" + string(table) + "\nMore.\n"; string(out) != want {
		t.Errorf("Update gave %q, want %q", out, want)
	}
	if _, err := Update([]byte("# no markers\n"), table); err == nil {
		t.Error("Update of a README without markers did not fail")
	}
}
