package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"testing"

	"tcs.dev/tcs/pkg/client"
)

// Teach the deterministic pass a name of the organization: the next paste is corrected by it.
func ExampleClient_CreateGlossaryEntry() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	e, err := c.CreateGlossaryEntry(ctx, client.GlossaryEntryRequest{
		Term: "Pastor Qorvathel", Forms: []string{"pastor corvatel"}, Auto: true, Category: "name",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.DeleteGlossaryEntry(ctx, e.ID) //nolint:errcheck // the example's own entry
	t, err := c.CreatePaste(ctx, client.PasteRequest{Content: "Today pastor corvatel preached."})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*t.Content)
	fmt.Println(t.ChangesSummary.ByCategory)
	// Output:
	// Today Pastor Qorvathel preached.
	// map[name:1]
}

func TestTheClientManagesTheGlossary(t *testing.T) {
	ctx := t.Context()
	a, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := client.New(os.Getenv("TCS_URL"), os.Getenv("TCS_API_KEY_B"))
	if err != nil {
		t.Fatal(err)
	}
	start, err := a.GetGlossary(ctx, client.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var kept []client.GlossaryEntryRequest
	for _, e := range start.Data {
		kept = append(kept, client.GlossaryEntryRequest{Term: e.Term, Forms: e.Forms, SoundsLike: e.SoundsLike, Auto: e.Auto, Category: e.Category})
	}
	t.Cleanup(func() {
		if _, err := a.ReplaceGlossary(context.WithoutCancel(ctx), kept); err != nil {
			t.Errorf("restoring the glossary: %v", err)
		}
	})

	g, err := a.ReplaceGlossary(ctx, []client.GlossaryEntryRequest{{Term: "Zorbanath Chapel", Forms: []string{"zorba nath chapel"}, Category: "church"}})
	if err != nil || len(g.Data) != 1 || g.Data[0].Term != "Zorbanath Chapel" || g.Version == "" {
		t.Fatalf("ReplaceGlossary = %+v, %v", g, err)
	}
	e, err := a.CreateGlossaryEntry(ctx, client.GlossaryEntryRequest{Term: "Pastor Okwuosa", Forms: []string{"pastor ok wuosa"}, Auto: true, Category: "name"}, client.IfMatch(g.Version))
	if err != nil || !strings.HasPrefix(e.ID, "gle_") || e.Version == "" || e.Version == g.Version || e.UpdatedBy == "" || e.UpdatedAt == nil {
		t.Fatalf("CreateGlossaryEntry = %+v, %v", e, err)
	}
	// A write at the version before is a conflict.
	_, err = a.CreateGlossaryEntry(ctx, client.GlossaryEntryRequest{Term: "Bethel"}, client.IfMatch(g.Version))
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 409 || apiErr.Type != client.ErrConflict || apiErr.Param != "If-Match" {
		t.Fatalf("a write at a stale version: %v", err)
	}
	got, err := a.GetGlossaryEntry(ctx, e.ID)
	if err != nil || got.Term != "Pastor Okwuosa" || got.Version != e.Version {
		t.Fatalf("GetGlossaryEntry = %+v, %v", got, err)
	}
	auto, forms := false, []string{}
	up, err := a.UpdateGlossaryEntry(ctx, e.ID, client.GlossaryEntryUpdate{Auto: &auto, Forms: &forms}, client.IfMatch(got.Version))
	if err != nil || up.Auto || len(up.Forms) != 0 || up.Term != "Pastor Okwuosa" || up.Category != "name" {
		t.Fatalf("UpdateGlossaryEntry = %+v, %v", up, err)
	}
	var terms []string
	for e, err := range a.GlossaryEntries(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		terms = append(terms, e.Term)
	}
	if !slices.Equal(terms, []string{"Zorbanath Chapel", "Pastor Okwuosa"}) {
		t.Fatalf("GlossaryEntries = %v", terms)
	}

	// Another organization sees none of it.
	if _, err := b.GetGlossaryEntry(ctx, e.ID); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Fatalf("B's GetGlossaryEntry: %v", err)
	}
	if bg, err := b.GetGlossary(ctx, client.Page{}); err != nil || slices.ContainsFunc(bg.Data, func(x client.GlossaryEntry) bool { return x.ID == e.ID }) {
		t.Fatalf("B's glossary = %+v, %v", bg, err)
	}

	// CSV export and import round trip.
	file, err := a.ExportGlossary(ctx)
	if err != nil || !strings.HasPrefix(string(file), "term,forms,sounds_like,auto,category\n") || !strings.Contains(string(file), "Pastor Okwuosa,,false,false,name") {
		t.Fatalf("ExportGlossary = %q, %v", file, err)
	}
	again, err := a.ImportGlossary(ctx, file)
	if err != nil || len(again.Data) != 2 || again.Data[1].ID != e.ID {
		t.Fatalf("ImportGlossary of the export = %+v, %v", again, err)
	}
	_, err = a.ImportGlossary(ctx, []byte("term,forms,sounds_like,auto,category\nBethel,beth|,,,\n"))
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Param != "csv" || !strings.Contains(apiErr.Message, "line 2, column 2") {
		t.Fatalf("ImportGlossary of a bad file: %v", err)
	}

	d, err := a.DeleteGlossaryEntry(ctx, e.ID)
	if err != nil || !d.Deleted || d.ID != e.ID || d.Version == "" {
		t.Fatalf("DeleteGlossaryEntry = %+v, %v", d, err)
	}
	if _, err := a.GetGlossaryEntry(ctx, e.ID); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Fatalf("GetGlossaryEntry after the delete: %v", err)
	}
}
