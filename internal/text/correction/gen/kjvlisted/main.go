// Command kjvlisted writes the proper names of the King James Version
// that data/kjv_names.txt leaves out: the words its text writes with a
// capital only after a comma, as in its lists of names ("Hodijah,
// Maaseiah, Kelita", Nehemiah 8:7; "Crescens to Galatia", 2 Timothy 4:10),
// and never in lowercase (data/kjv_listed_names.txt).
//
//	go run ./gen/kjvlisted -kjv kjv.txt -names data/kjv_names.txt \
//	    -english data/english_words.txt -o data/kjv_listed_names.txt
//
// The KJV text is that of Debian's bible-kjv-text package (public domain),
// one verse a line as `bible -f Gen1:1-Rev22:21` prints it; without -kjv
// the command runs that program. A word is kept when the text writes it
// with a capital and never in lowercase, inside a verse or as its first
// word only ("Parthians, and Medes", Acts 2:9), it has four letters or
// more, it is not in kjv_names.txt, its lowercase form is no English
// word, and it is neither a verb form in -est ("Revilest") or -ing
// ("Endeavouring", a verse's first word) nor one of the words the KJV leaves untranslated and
// glosses ("Talitha cumi; which is, being interpreted") or a feast's name
// ("Easter", "Pentecost").
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"tcs.dev/tcs/internal/text/correction/gen/kjvtext"
)

// untranslated holds the words the KJV leaves in Hebrew, Aramaic or Greek
// and glosses, which it writes with a capital inside a verse but which
// name no one, and the names of its feasts, which are the calendar's.
var untranslated = []string{"Abba", "Eloi", "Ephphatha", "Higgaion", "Raca", "Rabboni", "Selah", "Talitha", "Easter", "Pentecost"}

func main() {
	kjv := flag.String("kjv", "", "the KJV text, one verse a line as bible(1) prints it (default: run bible -f Gen1:1-Rev22:21)")
	names := flag.String("names", "data/kjv_names.txt", "the KJV's proper names, one a line")
	english := flag.String("english", "data/english_words.txt", "lowercase English words, one a line")
	out := flag.String("o", "data/kjv_listed_names.txt", "output file")
	flag.Parse()
	if err := run(*kjv, *names, *english, *out); err != nil {
		fmt.Fprintln(os.Stderr, "kjvlisted:", err)
		os.Exit(1)
	}
}

func run(kjvFile, namesFile, englishFile, outFile string) error {
	text, err := kjvtext.Read(kjvFile)
	if err != nil {
		return err
	}
	names, english := map[string]bool{}, map[string]bool{}
	if err := kjvtext.AddList(namesFile, names); err != nil {
		return err
	}
	if err := kjvtext.AddList(englishFile, english); err != nil {
		return err
	}
	lower := map[string]bool{}   // the words the text writes in lowercase
	capital := map[string]bool{} // the words it writes with a capital
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	verses := 0
	for sc.Scan() {
		_, verse, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		verses++
		words := strings.FieldsFunc(verse, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
		for _, w := range words {
			switch {
			case w[0] >= 'a' && w[0] <= 'z':
				lower[w] = true
			case strings.ToUpper(w) != w:
				capital[w] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the KJV text: %w", err)
	}
	if verses < 31000 {
		return fmt.Errorf("the KJV text has %d verses, want 31,102", verses)
	}
	var keep []string
	for w := range capital {
		lw := strings.ToLower(w)
		switch {
		case len(w) < 4, lower[lw], names[w], english[lw], slices.Contains(untranslated, w),
			strings.HasSuffix(lw, "est"), strings.HasSuffix(lw, "ing"):
			continue
		}
		keep = append(keep, w)
	}
	slices.Sort(keep)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Proper names of the King James Version (public domain) that kjv_names.txt leaves out: words written with a capital only after a comma, as in its lists of names, or at a verse's start, never in lowercase, of four letters or more, no English word, no verb form in -est or -ing and none of the words it leaves untranslated nor a feast. Derived from Debian's bible-kjv-text 4.38 by gen/kjvlisted (see NOTICE).\n")
	for _, w := range keep {
		fmt.Fprintln(&buf, w)
	}
	if err := os.WriteFile(outFile, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the listed names: %w", err)
	}
	return nil
}
