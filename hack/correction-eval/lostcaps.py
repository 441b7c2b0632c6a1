# The known errors of a document in the caption shape: the capitals that
# captionshape.caption took from it, written once the document's text is
# known, less those a builder's rule strikes (a common noun, a title).
class Lost:
    """Collects the rows caption writes for one document and, at flush, writes
    to errs each one that keep lets through: keep(name, start, want, before,
    after) returns the expected text (want, or another) or None to strike
    it; before and after are the words of width bytes around it."""
    def __init__(self, errs, keep, width=8):
        self.rows = []
        self.errs = errs
        self.keep = keep
        self.width = width
    def write(self, row):
        self.rows.append(row.rstrip('\n').split('\t'))
    def flush(self, body):
        b = body.encode()
        for name, doc, s, e, want in self.rows:
            before = b[max(0, int(s) - self.width):int(s)].decode(errors='ignore').split()
            after = b[int(e):int(e) + self.width].decode(errors='ignore').split()
            want = self.keep(name, int(s), want, before, after)
            if want is not None:
                self.errs.write('\t'.join([name, doc, s, e, want]) + '\n')

def standard(name, start, want, before, after):
    """Strikes the title "king of Kings" and a generic "this psalms"; "psalms"
    before a number is one psalm, as psalm.singular writes it."""
    if want == 'Kings' and before[-2:] == ['king', 'of']:
        return None
    if want == 'Psalms' and before[-1:] == ['this']:
        return None
    if want == 'Psalms' and after[:1] and after[0].isdigit():
        return 'Psalm'
    return want
