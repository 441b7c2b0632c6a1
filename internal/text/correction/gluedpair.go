package correction

// gluedTwice reports whether the three or four digits after a book's name
// read as two chapters and verses of book b, neither sure ("john 114":
// 1:14 or 11:4): in a sermon the name is still the book's, said before
// its reference, though the reference cannot be written ("the budget
// numbers 215 and 300" of a council meeting is no book).
func (d *dict) gluedTwice(b uint8, digits string) bool {
	_, _, found := d.digitReadings(b, digits)
	return found >= 2
}
