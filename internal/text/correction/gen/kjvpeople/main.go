// Command kjvpeople writes the chapters of the King James Version that
// name each of its proper names, for the correction engine's people of
// the cited chapters (data/kjv_people.tsv).
//
//	go run ./gen/kjvpeople -kjv kjv.txt -names data/kjv_names.txt,data/kjv_listed_names.txt \
//	    -versification data/kjv_versification.tsv -o data/kjv_people.tsv
//
// The KJV text is that of Debian's bible-kjv-text package (public domain),
// one verse a line as `bible -f Gen1:1-Rev22:21` prints it ("Mark10:46 And
// they came to Jericho …"); without -kjv the command runs that program.
// Every name is written with its chapters; the engine reads a name the Bible
// says in many chapters (David, Moses, Naphtali, Philip) only in the
// passage a sermon reads (see frequentChapters). A
// name said in maxVerses verses or fewer also gets the words of those
// verses that say most about them: of three letters or more, in
// maxVerseFreq verses or fewer, no name ("Euodias": beseech, mind, same …),
// by which a sermon that quotes the verse names the person. It also writes
// the hash of the opening words of every verse (-starts), by which a
// sermon quoting a verse under another book's reference tells which book
// it reads.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// maxVerses is the most verses a name may be said in to get the words of
// its verses, and maxVerseFreq the most verses of the whole text a word
// of them may be in.
const (
	maxVerses    = 3
	maxVerseFreq = 500
)

func main() {
	kjv := flag.String("kjv", "", "the KJV text, one verse a line as bible(1) prints it (default: run bible -f Gen1:1-Rev22:21)")
	names := flag.String("names", "data/kjv_names.txt,data/kjv_listed_names.txt", "the files of the KJV's proper names, one a line, separated by commas")
	versification := flag.String("versification", "data/kjv_versification.tsv", "the books' OSIS ids in canonical order")
	out := flag.String("o", "data/kjv_people.tsv", "output file")
	starts := flag.String("starts", "data/kjv_verse_starts.bin", "output file of the hashes of the verses' opening words (see verseStart)")
	flag.Parse()
	if err := run(*kjv, *names, *versification, *out, *starts); err != nil {
		fmt.Fprintln(os.Stderr, "kjvpeople:", err)
		os.Exit(1)
	}
}

func run(kjvFile, namesFile, versFile, outFile, startsFile string) error {
	var text []byte
	var err error
	if kjvFile == "" {
		text, err = exec.Command("bible", "-f", "Gen1:1-Rev22:21").Output()
	} else {
		text, err = os.ReadFile(kjvFile)
	}
	if err != nil {
		return fmt.Errorf("reading the KJV text: %w", err)
	}
	osis, err := readOSIS(versFile)
	if err != nil {
		return err
	}
	nameSet := map[string]bool{}
	for f := range strings.SplitSeq(namesFile, ",") {
		if err := readNames(f, nameSet); err != nil {
			return err
		}
	}
	// The chapters of each name, in canonical order, and its verses.
	chapters := map[string][]string{}
	verseIDs := map[string][]int{}
	var verseWords [][]string
	var startHashes []byte     // verseStart of each verse, in canonical order, little-endian
	freq := map[string]int{}   // the number of verses each lowercase word is in
	abbrev := map[string]int{} // bible(1)'s abbreviation of a book: its index in osis
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	verses := 0
	for sc.Scan() {
		line := sc.Text()
		ref, verse, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		book, chapter, err := splitRef(ref)
		if err != nil {
			return err
		}
		b, known := abbrev[book]
		if !known {
			b = len(abbrev)
			if b >= len(osis) {
				return fmt.Errorf("%s: more books than %s has", ref, versFile)
			}
			abbrev[book] = b
		}
		id := osis[b] + "." + chapter
		words := strings.FieldsFunc(verse, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
		verseWords = append(verseWords, words)
		startHashes = binary.LittleEndian.AppendUint32(startHashes, verseStart(words))
		seen := map[string]bool{}
		for _, w := range words {
			if lw := strings.ToLower(w); !seen[lw] {
				seen[lw] = true
				freq[lw]++
			}
			if !nameSet[w] {
				continue
			}
			if cs := chapters[w]; len(cs) == 0 || cs[len(cs)-1] != id {
				chapters[w] = append(cs, id)
			}
			if vs := verseIDs[w]; len(vs) == 0 || vs[len(vs)-1] != verses {
				verseIDs[w] = append(vs, verses)
			}
		}
		verses++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the KJV text: %w", err)
	}
	if len(abbrev) != len(osis) || verses < 31000 {
		return fmt.Errorf("the KJV text has %d books and %d verses, want %d books and 31,102 verses", len(abbrev), verses, len(osis))
	}
	keys := make([]string, 0, len(chapters))
	for w := range chapters {
		keys = append(keys, w)
	}
	slices.Sort(keys)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# The chapters of the King James Version (public domain; Debian's bible-kjv-text) that name each proper name, and for a name said in %d verses or fewer the words of its verses in %d verses or fewer of the text. Generated by gen/kjvpeople.\n", maxVerses, maxVerseFreq)
	for _, w := range keys {
		var words []string
		if vs := verseIDs[w]; len(vs) <= maxVerses {
			for _, v := range vs {
				for _, x := range verseWords[v] {
					lx := strings.ToLower(x)
					if len(lx) >= 3 && freq[lx] <= maxVerseFreq && !nameSet[x] && !slices.Contains(words, lx) {
						words = append(words, lx)
					}
				}
			}
			slices.Sort(words)
		}
		fmt.Fprintf(&buf, "%s\t%s\t%s\n", w, strings.Join(chapters[w], ","), strings.Join(words, " "))
	}
	if err := writeFile(outFile, &buf); err != nil {
		return err
	}
	return writeFile(startsFile, bytes.NewReader(startHashes))
}

// splitRef splits a reference as bible(1) writes it ("1Cor13:4") into the
// book's abbreviation and the chapter.
func splitRef(ref string) (string, string, error) {
	colon := strings.IndexByte(ref, ':')
	if colon < 0 {
		return "", "", fmt.Errorf("bad reference %q", ref)
	}
	k := colon
	for k > 1 && ref[k-1] >= '0' && ref[k-1] <= '9' {
		k--
	}
	if k == colon {
		return "", "", fmt.Errorf("bad reference %q", ref)
	}
	return ref[:k], ref[k:colon], nil
}

// readOSIS returns the OSIS ids of the books of the versification table,
// in its order.
func readOSIS(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the versification: %w", err)
	}
	var ids []string
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i == 0 || strings.HasPrefix(line, "#") {
			continue // the header
		}
		id, _, _ := strings.Cut(line, "\t")
		ids = append(ids, id)
	}
	return ids, nil
}

// readNames adds to set the names of a list of one name a line.
func readNames(file string, set map[string]bool) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading the names: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			set[line] = true
		}
	}
	return nil
}

func writeFile(name string, r io.Reader) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("writing the people: %w", err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("writing the people: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the people: %w", err)
	}
	return nil
}

// startWords is how many words of a verse verseStart reads.
const startWords = 5

// verseStart returns the hash of the first startWords words of a verse:
// each word's hash as the engine's scanner computes it (see wordHash),
// mixed in order, the high 32 bits. A sermon quoting the verse says them
// first ("this book of the law" for Joshua 1:8).
func verseStart(words []string) uint32 {
	var h uint64
	for _, w := range words[:min(len(words), startWords)] {
		h = (h ^ wordHash(w)) * 0x9e3779b97f4a7c15
	}
	return uint32(h >> 32)
}

// wordHash is the engine's keyHash (internal/text/correction) of the
// ASCII word w in any case: its lowercase bytes eight at a time.
func wordHash(w string) uint64 {
	var h uint64
	for i := 0; i < len(w); i += 8 {
		var v uint64
		for k := range min(len(w)-i, 8) {
			v |= uint64(w[i+k]|0x20) << (8 * k)
		}
		h = (h ^ v) * 0x9e3779b97f4a7c15
	}
	return (h ^ uint64(len(w))) * 0xff51afd7ed558ccd
}
