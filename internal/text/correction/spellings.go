package correction

// spellings holds the spellings of an index's names in one string, which
// each name slices (see spelling): fewer objects than a string per name.
type spellings struct {
	text string // the spellings, once finish has run
	buf  []byte // the spellings as they are read, before finish
}

// spelling locates a name's spellings in a spellings: its name, its
// lowercase form and the skeleton of its phonetic key, one after another
// from off, followed by whatever its index adds (from end on).
type spelling struct {
	off   uint32 // where its name starts in spellings.text
	n, ns uint8  // the lengths of its name (and of its lowercase form) and of its skeleton
}

// add appends name, its lowercase form lower and the skeleton sk of its
// key, and returns where they are.
func (s *spellings) add(name, lower string, sk []byte) spelling {
	p := spelling{off: uint32(len(s.buf)), n: uint8(len(name)), ns: uint8(len(sk))}
	s.buf = append(append(append(s.buf, name...), lower...), sk...)
	return p
}

// finish makes the spellings read the index's text.
func (s *spellings) finish() {
	s.text, s.buf = string(s.buf), nil
}

// name returns the name at p.
func (s *spellings) name(p spelling) string { return s.text[p.off : p.off+uint32(p.n)] }

// lower returns the name at p in lowercase.
func (s *spellings) lower(p spelling) string {
	o := p.off + uint32(p.n)
	return s.text[o : o+uint32(p.n)]
}

// skel returns the skeleton of the phonetic key of the name at p.
func (s *spellings) skel(p spelling) string {
	o := p.off + 2*uint32(p.n)
	return s.text[o : o+uint32(p.ns)]
}

// end returns where what the index adds after the spellings of p starts.
func (p spelling) end() uint32 { return p.off + 2*uint32(p.n) + uint32(p.ns) }
