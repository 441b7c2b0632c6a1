package correction

// gluedTwice reports whether the three or four digits after a book's name
// read as two chapters and verses of book b, neither sure ("john 114":
// 1:14 or 11:4): in a sermon the name is still the book's, said before
// its reference, though the reference cannot be written ("the budget
// numbers 215 and 300" of a council meeting is no book).
func (d *dict) gluedTwice(b uint8, digits string) bool {
	n := 0
	for k := 0; k < len(digits); k++ {
		n = n*10 + int(digits[k]-'0')
	}
	found := 0
	for _, div := range [...]int{10, 100, 1000} {
		if div >= n || (div == 1000 && len(digits) < 4) {
			break
		}
		if cc, vv := n/div, n%div; vv >= div/10 && d.hasVerse(b, cc, vv) {
			found++
		}
	}
	return found >= 2
}
